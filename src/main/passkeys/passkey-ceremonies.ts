/**
 * The two passkey ceremonies main runs on its own page (passkey-page.ts): an assertion over a body about to be sent
 * (the Stamper's `assertPasskey`), and a new credential for a user (registration). Each reads what the page posted
 * back into the form the service takes, naming the first thing wrong.
 */
import type { z } from 'zod';
import { attestation as attestationSchema } from '../../shared/api';
import { utf8Encode } from '../../shared/crypto/encoding';
import { fingerprintOf } from '../../shared/crypto/stamp';
import { parseWebAuthnStamp, webAuthnChallengeFor, type WebAuthnStamp } from '../../shared/crypto/webauthn';
import { describeIssues } from '../../shared/ipc/contract';
import { QkError } from '../../shared/errors';
import { describePasskey } from './passkey';
import type { AssertPasskey } from './passkey-stamp';
import { runPasskeyPage, type OpenPasskeyPage } from './passkey-page';

/** The attestation a new credential answers, as `create_authenticators` takes it (all bytes base64url). */
export type PasskeyAttestation = z.infer<typeof attestationSchema>;

function expectOutcome(posted: Record<string, unknown>, outcome: string): void {
  if (posted.outcome !== outcome) {
    throw new QkError('REQUEST_INVALID', `the passkey page answered ${JSON.stringify(posted.outcome)}, expected "${outcome}"; nothing was signed`);
  }
}

/** The assertion the page posted, or STAMP_MALFORMED / REQUEST_INVALID naming the member that is wrong. */
export function readAssertion(posted: Record<string, unknown>): WebAuthnStamp {
  expectOutcome(posted, 'assertion');
  const { authenticatorData, clientDataJson, credentialId, signature } = posted;
  return parseWebAuthnStamp(JSON.stringify({ authenticatorData, clientDataJson, credentialId, signature }));
}

/** The new credential's attestation the page posted, or REQUEST_INVALID naming the member that is wrong. */
export function readAttestation(posted: Record<string, unknown>): PasskeyAttestation {
  expectOutcome(posted, 'attestation');
  const { credentialId, clientDataJson, attestationObject, transports } = posted;
  const parsed = attestationSchema.safeParse({ credentialId, clientDataJson, attestationObject, transports });
  if (!parsed.success) {
    throw new QkError('REQUEST_INVALID', `the passkey page answered an attestation QuorumKey cannot use: ${describeIssues(parsed.error)}`);
  }
  return parsed.data;
}

export interface PasskeyCeremonyOptions {
  openPage: OpenPasskeyPage;
  timeoutMs?: number;
}

/** The Stamper's `assertPasskey`: the assertion is made on main's page, which restates the reading and fingerprint. */
export function assertPasskeyOnPage({ openPage, timeoutMs }: PasskeyCeremonyOptions): AssertPasskey {
  return async ({ passkey, body, reading }) => {
    const bytes = utf8Encode(body);
    const bodyFingerprint = fingerprintOf(bytes);
    return runPasskeyPage({
      page: {
        heading: `Vote with ${describePasskey(passkey)}`,
        reading: reading.split('\n').filter((line) => line.trim() !== ''),
        bodyFingerprint,
        ceremony: { kind: 'get', challenge: webAuthnChallengeFor(bytes), credentialId: passkey.credentialId },
      },
      openPage,
      readAnswer: readAssertion,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
  };
}

export interface CreatePasskeyRequest {
  /** The relying party's random challenge, which `create_authenticators` is then told. */
  challenge: Uint8Array;
  /** The service's user id: the credential's user handle. */
  userId: string;
  /** The user's name, for the authenticator's own prompt. */
  userName: string;
  /** What the page states: whose credential it becomes, where, under which name. */
  reading: readonly string[];
}

/** A new credential for `request.userId`, made on main's page: its attestation, for `create_authenticators`. */
export function createPasskeyOnPage({ openPage, timeoutMs }: PasskeyCeremonyOptions, request: CreatePasskeyRequest): Promise<PasskeyAttestation> {
  return runPasskeyPage({
    page: {
      heading: 'Add a security key to vote with',
      reading: request.reading,
      ceremony: { kind: 'create', challenge: request.challenge, user: { handle: utf8Encode(request.userId), name: request.userName } },
    },
    openPage,
    readAnswer: readAttestation,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}
