/**
 * One-time passwords through the auth proxy (docs/service.md#sessions-and-otp, docs/service.md#otp-flow;
 * docs/formats.md#credential-bundles, docs/formats.md#otp-verification-tokens). A code is delivered to the outbox file
 * instead of an email or SMS; verifying it answers a v2 verification token — an ES256 JWT signed by the service's OTP
 * token key, binding the client's P-256 key to the verified contact.
 *
 * otp_init_v2 also answers a target bundle: a fresh P-256 key, signed like an import bundle by the OTP token key, to
 * which the client HPKE-encrypts `{"otp_code","public_key"}` (what @turnkey/crypto's encryptOtpCodeToBundle sends).
 */
import { randomInt } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { QkError } from '../../shared/errors';
import { isEmailAddress, MAX_EMAIL_LENGTH } from '../../shared/text';
import { BUNDLE_VERSION } from '../../shared/crypto/bundles';
import { ecdsaSign } from '../../shared/crypto/ecdsa';
import { bytesToHex, hexToBytes, utf8Decode, utf8Encode } from '../../shared/crypto/encoding';
import { hpkeOpen } from '../../shared/crypto/hpke';
import { generateEncryptionKeyPair, privateKeyBytes } from '../../shared/crypto/keys';
import { encodeVerificationToken, verifyVerificationToken, type VerificationTokenClaims } from '../../shared/crypto/tokens';
import { OTP_TOKEN_SIGNING_KEY, serviceSigner, sessionPublicKeyOf } from '../families/sessions';
import type { Repositories, Store } from '../store';
import type { OtpRecord } from '../store/otp-auth';
import { appendOutboxMessage, type OtpChannel } from './outbox';

/** Crockford base32 without I, L, O, U: Turnkey's alphanumeric OTP alphabet. */
export const OTP_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Turnkey's defaults (docs/service.md#sessions-and-otp): 9 characters, alphanumeric, valid 5 minutes. */
export const OTP_LENGTH = 9;
export const OTP_LIFETIME_MS = 5 * 60 * 1000;
/** Wrong codes allowed before the OTP is burned. */
export const MAX_OTP_ATTEMPTS = 5;
/** Verification token lifetime (docs/service.md#otp-flow: default one hour). */
export const VERIFICATION_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

export const OTP_TYPES = { OTP_TYPE_EMAIL: 'email', OTP_TYPE_SMS: 'sms' } as const satisfies Record<string, OtpChannel>;
export type OtpType = keyof typeof OTP_TYPES;

const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

export interface OtpDeps {
  store: Store;
  outboxFile: string;
  now: () => number;
  newId: () => string;
}

function invalid(field: string, problem: string): QkError {
  return new QkError('REQUEST_INVALID', `${field} ${problem}`, { issues: [{ path: field, message: problem }] });
}

/** The contact as stored and compared: emails lower-cased, phone numbers in E.164. */
export function normalizeContact(otpType: string, contact: string): string {
  if (otpType === 'OTP_TYPE_EMAIL') {
    if (contact.length > MAX_EMAIL_LENGTH)
      throw invalid('contact', `must be an email address of at most ${MAX_EMAIL_LENGTH} characters, got ${contact.length}`);
    if (!isEmailAddress(contact)) throw invalid('contact', `must be an email address, got "${contact}"`);
    return contact.toLowerCase();
  }
  if (otpType === 'OTP_TYPE_SMS') {
    if (!E164_PATTERN.test(contact)) throw invalid('contact', `must be a phone number in E.164 form (+15551234567), got "${contact}"`);
    return contact;
  }
  throw invalid('otpType', `must be OTP_TYPE_EMAIL or OTP_TYPE_SMS, got "${otpType}"`);
}

/** How a code looks and lasts; the auth proxy always uses Turnkey's defaults, init_otp may choose. */
export interface OtpShape {
  length: number;
  alphanumeric: boolean;
  lifetimeMs: number;
}

export const DEFAULT_OTP_SHAPE: OtpShape = { length: OTP_LENGTH, alphanumeric: true, lifetimeMs: OTP_LIFETIME_MS };

function newCode(shape: OtpShape): string {
  const alphabet = shape.alphanumeric ? OTP_ALPHABET : OTP_ALPHABET.slice(0, 10);
  return Array.from({ length: shape.length }, () => alphabet[randomInt(alphabet.length)]).join('');
}

const hashCode = (code: string): string => bytesToHex(sha256(utf8Encode(code.toUpperCase())));

export interface CreatedOtp {
  otpId: string;
  contact: string;
  otpType: OtpType;
  code: string;
  otpEncryptionTargetBundle?: string;
}

/**
 * Stores a new OTP for the contact inside the caller's transaction; `withTarget` adds the target bundle the client
 * encrypts its code to. The caller delivers the code (deliverOtp) once the OTP is stored.
 */
export function createOtp(
  store: Repositories,
  request: { organizationId: string; otpType: string; contact: string; withTarget: boolean; shape: OtpShape; otpId: string; now: number },
): CreatedOtp {
  const contact = normalizeContact(request.otpType, request.contact);
  const code = newCode(request.shape);
  const target = request.withTarget ? generateEncryptionKeyPair() : undefined;
  store.otps.insert({
    id: request.otpId,
    organizationId: request.organizationId,
    otpType: request.otpType,
    contact,
    codeHash: hashCode(code),
    targetPrivateKey: target?.privateKey,
    expiresAt: request.now + request.shape.lifetimeMs,
    createdAt: request.now,
  });
  const bundle = target === undefined ? undefined : targetBundle(store, target.publicKey, request.organizationId);
  return {
    otpId: request.otpId,
    contact,
    otpType: request.otpType as OtpType,
    code,
    ...(bundle === undefined ? {} : { otpEncryptionTargetBundle: bundle }),
  };
}

/** Appends the code to the outbox in place of the email or SMS. */
export function deliverOtp(outboxFile: string, otp: CreatedOtp, now: number): void {
  appendOutboxMessage(outboxFile, {
    contact: otp.contact,
    channel: OTP_TYPES[otp.otpType],
    code: otp.code,
    otpId: otp.otpId,
    createdAt: new Date(now).toISOString(),
  });
}

/** Creates an OTP for the contact, delivers the code to the outbox and returns the OTP id (and, v2, the target bundle). */
export async function initOtp(
  deps: OtpDeps,
  organizationId: string,
  request: { otpType: string; contact: string },
  withTarget: boolean,
): Promise<{ otpId: string; otpEncryptionTargetBundle?: string }> {
  const now = deps.now();
  const otpId = deps.newId();
  const created = await deps.store.transaction((tx) =>
    createOtp(tx, { organizationId, otpType: request.otpType, contact: request.contact, withTarget, shape: DEFAULT_OTP_SHAPE, otpId, now }),
  );
  deliverOtp(deps.outboxFile, created, now);
  return { otpId, ...(created.otpEncryptionTargetBundle === undefined ? {} : { otpEncryptionTargetBundle: created.otpEncryptionTargetBundle }) };
}

/** The signed envelope `{version, data, dataSignature, enclaveQuorumPublic}` over `{targetPublic, organizationId}`. */
function targetBundle(store: Repositories, targetPublic: string, organizationId: string): string {
  const key = store.serviceKeys.get(OTP_TOKEN_SIGNING_KEY);
  if (key === undefined) throw new QkError('INTERNAL', 'the OTP token signing key is missing; start the service with startService');
  const data = utf8Encode(JSON.stringify({ targetPublic, organizationId }));
  const signature = ecdsaSign('p256', data, privateKeyBytes(key.privateKey, 'OTP token signing key'), 'der');
  return JSON.stringify({
    version: BUNDLE_VERSION,
    data: bytesToHex(data),
    dataSignature: bytesToHex(signature),
    enclaveQuorumPublic: key.publicKey,
  });
}

/** Opens an `encryptedOtpBundle` (`{encappedPublic, ciphertext}` hex) with the OTP's target key. */
export async function openCodeBundle(record: OtpRecord, encryptedOtpBundle: string): Promise<{ code: string; publicKey: string }> {
  if (record.targetPrivateKey === undefined) {
    throw new QkError('OTP_INVALID', `OTP ${record.id} was not started with otp_init_v2 (or is already used); verify it with otp_verify`);
  }
  let envelope: { encappedPublic?: unknown; ciphertext?: unknown };
  try {
    envelope = JSON.parse(encryptedOtpBundle) as typeof envelope;
  } catch {
    throw invalid('encryptedOtpBundle', 'must be JSON {"encappedPublic","ciphertext"}');
  }
  if (typeof envelope.encappedPublic !== 'string' || typeof envelope.ciphertext !== 'string') {
    throw invalid('encryptedOtpBundle', 'must hold hex strings "encappedPublic" and "ciphertext"');
  }
  const plaintext = await hpkeOpen({
    encappedPublic: hexToBytes(envelope.encappedPublic, 'encryptedOtpBundle.encappedPublic'),
    ciphertext: hexToBytes(envelope.ciphertext, 'encryptedOtpBundle.ciphertext'),
    recipientPrivateKey: privateKeyBytes(record.targetPrivateKey, 'OTP target key'),
  });
  let payload: { otp_code?: unknown; public_key?: unknown };
  try {
    payload = JSON.parse(utf8Decode(plaintext, 'OTP bundle plaintext')) as typeof payload;
  } catch {
    throw invalid('encryptedOtpBundle', 'decrypts to something other than JSON {"otp_code","public_key"}');
  }
  if (typeof payload.otp_code !== 'string' || typeof payload.public_key !== 'string') {
    throw invalid('encryptedOtpBundle', 'plaintext must hold strings "otp_code" and "public_key"');
  }
  return { code: payload.otp_code, publicKey: payload.public_key };
}

type Attempt = { ok: true; record: OtpRecord } | { ok: false; error: QkError };

/**
 * Checks a submitted code against the OTP inside the caller's transaction. A wrong code counts as an attempt; the
 * right one burns the OTP. `earlierFailures` are wrong attempts recorded elsewhere (failed verify_otp activities,
 * whose own writes roll back).
 */
export function attemptOtp(store: Repositories, otpId: string, code: string, now: number, earlierFailures = 0): Attempt {
  const current = store.otps.get(otpId)!;
  if (current.usedAt !== undefined) return { ok: false, error: new QkError('OTP_INVALID', `OTP ${otpId} was already used; request a new code`) };
  if (now >= current.expiresAt)
    return {
      ok: false,
      error: new QkError('OTP_INVALID', `OTP ${otpId} expired at ${new Date(current.expiresAt).toISOString()}; request a new code`),
    };
  const attempts = current.attempts + earlierFailures;
  if (attempts >= MAX_OTP_ATTEMPTS) {
    return { ok: false, error: new QkError('OTP_ATTEMPTS_EXCEEDED', `OTP ${otpId} had ${MAX_OTP_ATTEMPTS} wrong attempts; request a new code`) };
  }
  if (hashCode(code) !== current.codeHash) {
    store.otps.recordAttempt(otpId);
    const left = MAX_OTP_ATTEMPTS - attempts - 1;
    return { ok: false, error: new QkError('OTP_INVALID', `the code is wrong for OTP ${otpId}; ${left} attempt${left === 1 ? '' : 's'} left`) };
  }
  store.otps.markUsed(otpId, now);
  return { ok: true, record: current };
}

/** The verification token for a verified OTP, binding the client's key to the contact. */
export function verificationTokenFor(
  store: Repositories,
  record: OtpRecord,
  request: { publicKey: string; tokenId: string; now: number; lifetimeMs: number },
): Promise<string> {
  const claims: VerificationTokenClaims = {
    exp: String(request.now + request.lifetimeMs),
    id: request.tokenId,
    organization_id: record.organizationId,
    verification_type: record.otpType,
    contact: record.contact,
    public_key: sessionPublicKeyOf(request.publicKey, 'publicKey'),
  };
  return encodeVerificationToken(claims, serviceSigner(store, OTP_TOKEN_SIGNING_KEY));
}

/** Checks the code against the OTP (a wrong code is committed as an attempt although the call fails). */
async function verifyCode(
  deps: OtpDeps,
  organizationId: string,
  otpId: string,
  code: () => Promise<{ code: string; publicKey: string }>,
): Promise<string> {
  const now = deps.now();
  const record = deps.store.read.otps.get(otpId);
  if (record === undefined || record.organizationId !== organizationId)
    throw new QkError('NOT_FOUND', `no OTP ${otpId} for this auth proxy configuration`);
  const submitted = await code();
  const publicKey = sessionPublicKeyOf(submitted.publicKey, 'publicKey');
  const attempt = await deps.store.transaction((tx) => attemptOtp(tx, otpId, submitted.code, now));
  if (!attempt.ok) throw attempt.error;
  return verificationTokenFor(deps.store.read, attempt.record, { publicKey, tokenId: deps.newId(), now, lifetimeMs: VERIFICATION_TOKEN_LIFETIME_MS });
}

export function verifyOtpCode(
  deps: OtpDeps,
  organizationId: string,
  request: { otpId: string; otpCode: string; publicKey?: string | undefined },
): Promise<string> {
  const { publicKey } = request;
  if (publicKey === undefined) {
    throw invalid('publicKey', 'is required: the verification token binds the client key that will sign the login or signup');
  }
  return verifyCode(deps, organizationId, request.otpId, async () => ({ code: request.otpCode, publicKey }));
}

export function verifyOtpBundle(deps: OtpDeps, organizationId: string, request: { otpId: string; encryptedOtpBundle: string }): Promise<string> {
  return verifyCode(deps, organizationId, request.otpId, async () =>
    openCodeBundle(deps.store.read.otps.get(request.otpId)!, request.encryptedOtpBundle),
  );
}

/** Verifies a verification token issued by this service for this auth proxy configuration's organization. */
export function checkVerificationToken(store: Repositories, token: string, organizationId: string, now: number): VerificationTokenClaims {
  const key = store.serviceKeys.get(OTP_TOKEN_SIGNING_KEY);
  if (key === undefined) throw new QkError('INTERNAL', 'the OTP token signing key is missing; start the service with startService');
  const claims = verifyVerificationToken(token, key.publicKey, now);
  if (claims.organization_id !== organizationId) {
    throw new QkError(
      'TOKEN_INVALID',
      `verification token was issued for organization ${claims.organization_id}, not for this auth proxy configuration's ${organizationId}`,
    );
  }
  return claims;
}

/**
 * Verifies a verification token used in `organizationId` on the main API: issued by this service for that
 * organization or for its parent (where the auth proxy and the app's OTP flow usually run).
 */
export function checkVerificationTokenIn(
  store: Repositories,
  token: string,
  organizationId: string,
  now: number,
  field: string,
): VerificationTokenClaims {
  const key = store.serviceKeys.get(OTP_TOKEN_SIGNING_KEY);
  if (key === undefined) throw new QkError('INTERNAL', 'the OTP token signing key is missing; start the service with startService');
  const claims = verifyVerificationToken(token, key.publicKey, now);
  const parentId = store.organizations.get(organizationId)?.parentId;
  if (claims.organization_id !== organizationId && claims.organization_id !== parentId) {
    throw new QkError('TOKEN_INVALID', `${field} was issued for organization ${claims.organization_id}, not for ${organizationId} or its parent`);
  }
  return claims;
}
