/**
 * Main's reading of an activity waiting for authenticators (docs/architecture.md#one-answer-per-vote): the viewer's
 * open MFA step, whether this desktop's stamp meets it, and what an approval from here is, over steps, methods and
 * users. The words are voteReadingOf's, the one place the card, the inbox and main's confirmation take them from.
 */
import { describe, expect, it } from 'vitest';
import type { AuthenticationMethod, MfaStatus, User } from '../../src/shared/api';
import { voteReadingOf, type HeldCredentials, type VoteReadingInput } from '../../src/main/approvals/vote-reading';
import type { PolicyStanding } from '../../src/main/signing/policy-standing';
import type { OrganizationSnapshot } from '../../src/main/signing/organization';
import { apiUser } from '../support/api-users';

const BEA = 'user-bea';
const BOB = 'user-bob';
const BEA_KEY = { id: 'key-bea-desk', publicKey: '02' + 'ab'.repeat(32) };
const BEA_CI_KEY = { id: 'key-bea-ci', publicKey: '03' + 'cd'.repeat(32) };
const PASSKEY: AuthenticationMethod['type'] = 'AUTHENTICATION_TYPE_PASSKEY';
const API_KEY: AuthenticationMethod['type'] = 'AUTHENTICATION_TYPE_API_KEY';
// The profile votes with Bea's registered "YubiKey" (its authenticator id is what a PASSKEY step names).
const BEA_PASSKEY: HeldCredentials = { passkeyAuthenticatorId: `${BEA}-yubikey` };

function user(userId: string, userName: string, apiKeys: { id: string; name: string; publicKey: string }[], policies: [string, string][]): User {
  return apiUser({
    userId,
    userName,
    passkeys: [{ id: `${userId}-yubikey`, name: 'YubiKey' }],
    apiKeys,
    mfaPolicies: policies.map(([id, name]) => ({ id, name })),
  });
}

const snapshot: OrganizationSnapshot = {
  viewer: { userId: BEA, username: 'Bea', organizationId: 'org', organizationName: 'Root' },
  wallets: [],
  accounts: [],
  privateKeys: [],
  contracts: [],
  policies: [],
  users: [
    user(
      BEA,
      'Bea',
      [
        { id: BEA_KEY.id, name: 'desk', publicKey: BEA_KEY.publicKey },
        { id: BEA_CI_KEY.id, name: 'ci', publicKey: BEA_CI_KEY.publicKey },
      ],
      [['mfa-sign', 'Signing']],
    ),
    user(BOB, 'Bob', [], [['mfa-bob', 'Bob signs']]),
  ],
  tags: [],
  rootQuorum: { threshold: 1, userIds: [BEA] },
};

function status(userId: string, steps: AuthenticationMethod[][], satisfiedMethods: AuthenticationMethod[] = [], satisfied = false): MfaStatus {
  return {
    mfaPolicyId: userId === BEA ? 'mfa-sign' : 'mfa-bob',
    userId,
    satisfied,
    satisfiedMethods,
    requiredMethods: steps.map((any) => ({ any })),
  };
}

function readingOf(statuses: MfaStatus[], held: HeldCredentials = { apiKeyPublicKey: BEA_KEY.publicKey }) {
  return voteReadingOf(readingInput(statuses, held));
}

function readingInput(statuses: MfaStatus[], held: HeldCredentials = { apiKeyPublicKey: BEA_KEY.publicKey }): VoteReadingInput {
  return {
    activity: { type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' },
    tally: { voters: [{ userId: BEA, userName: 'Bea', selection: 'approved', votedAtMs: 0, expired: false }], approverIds: [BEA], timeLeftMs: 1000 },
    snapshot,
    profileName: 'Bea desk',
    title: 'Sign a payload',
    standing: 'not read here',
    withViewer: 'not read here',
    mfa: { statuses, held },
  };
}

const APPROVE_LABELS: Record<string, string> = {
  'Needs your API key approval': 'Approve with your API key…',
  'Needs your security key': 'Approve with your security key…',
  'Needs your email code': 'Approve with your email code…',
};

describe("the viewer's open MFA step", () => {
  const cases: {
    name: string;
    statuses: MfaStatus[];
    held?: HeldCredentials;
    headline: string;
    heldHere: boolean;
    credential: string;
    approvalIs: string | RegExp;
  }[] = [
    {
      name: 'any API key: the profile’s own meets it',
      statuses: [status(BEA, [[{ type: API_KEY }]])],
      headline: 'Needs your API key approval',
      heldHere: true,
      credential: 'any API key of Bea',
      approvalIs: 'This approval is your API key step of MFA policy "Signing"; 1 of 1 steps',
    },
    {
      name: 'the API key this profile signs with, by id',
      statuses: [status(BEA, [[{ type: API_KEY, id: BEA_KEY.id }]])],
      headline: 'Needs your API key approval',
      heldHere: true,
      credential: 'the API key "desk" of Bea',
      approvalIs: 'This approval is your API key step of MFA policy "Signing"; 1 of 1 steps',
    },
    {
      name: 'another API key of the same user',
      statuses: [status(BEA, [[{ type: API_KEY, id: BEA_CI_KEY.id }]])],
      headline: 'Needs your API key approval',
      heldHere: false,
      credential: 'the API key "ci" of Bea',
      approvalIs: /^Your API key step of MFA policy "Signing" is open \(0 of 1 steps met\), but profile "Bea desk" signs with another API key/,
    },
    {
      name: 'an API key whose public key the keychain cannot give',
      statuses: [status(BEA, [[{ type: API_KEY }]])],
      held: {},
      headline: 'Needs your API key approval',
      heldHere: false,
      credential: 'any API key of Bea',
      approvalIs: /the API key profile "Bea desk" signs with cannot be read/,
    },
    {
      name: 'a passkey: this desktop registers none',
      statuses: [status(BEA, [[{ type: PASSKEY }]])],
      headline: 'Needs your security key',
      heldHere: false,
      credential: 'any security key of Bea',
      approvalIs: /this desktop has no security key registered for Bea: an approval from here would be refused$/,
    },
    {
      name: 'a named passkey, by its name',
      statuses: [status(BEA, [[{ type: PASSKEY, id: `${BEA}-yubikey` }]])],
      headline: 'Needs your security key',
      heldHere: false,
      credential: 'the security key "YubiKey" of Bea',
      approvalIs: /no security key registered for Bea/,
    },
    {
      name: 'a passkey or an API key in one step: the one held is offered',
      statuses: [status(BEA, [[{ type: PASSKEY }, { type: API_KEY }]])],
      headline: 'Needs your API key approval',
      heldHere: true,
      credential: 'any API key of Bea',
      approvalIs: 'This approval is your API key step of MFA policy "Signing"; 1 of 1 steps',
    },
    {
      name: 'a session met, then an API key: the second of two steps',
      statuses: [status(BEA, [[{ type: 'AUTHENTICATION_TYPE_SESSION' }], [{ type: API_KEY }]], [{ type: 'AUTHENTICATION_TYPE_SESSION' }])],
      headline: 'Needs your API key approval',
      heldHere: true,
      credential: 'any API key of Bea',
      approvalIs: 'This approval is your API key step of MFA policy "Signing"; 2 of 2 steps',
    },
    {
      name: 'a passkey still open before an API key: the API key step is offered, 1 of 2',
      statuses: [status(BEA, [[{ type: PASSKEY }], [{ type: API_KEY }]])],
      headline: 'Needs your API key approval',
      heldHere: true,
      credential: 'any API key of Bea',
      approvalIs: 'This approval is your API key step of MFA policy "Signing"; 1 of 2 steps',
    },
    {
      name: 'any passkey: the profile’s own, which stamps its votes, meets it',
      statuses: [status(BEA, [[{ type: PASSKEY }]])],
      held: BEA_PASSKEY,
      headline: 'Needs your security key',
      heldHere: true,
      credential: 'any security key of Bea',
      approvalIs: 'This approval is your security key step of MFA policy "Signing"; 1 of 1 steps',
    },
    {
      name: 'the passkey this profile votes with, by its authenticator id',
      statuses: [status(BEA, [[{ type: PASSKEY, id: `${BEA}-yubikey` }]])],
      held: BEA_PASSKEY,
      headline: 'Needs your security key',
      heldHere: true,
      credential: 'the security key "YubiKey" of Bea',
      approvalIs: 'This approval is your security key step of MFA policy "Signing"; 1 of 1 steps',
    },
    {
      name: 'another passkey of the same user',
      statuses: [status(BEA, [[{ type: PASSKEY, id: 'bea-phone' }]])],
      held: BEA_PASSKEY,
      headline: 'Needs your security key',
      heldHere: false,
      credential: 'the security key "bea-phone" of Bea',
      approvalIs: /but profile "Bea desk" votes with another security key than the security key "bea-phone" of Bea: an approval/,
    },
    {
      name: 'a passkey the user no longer has',
      statuses: [status(BEA, [[{ type: PASSKEY }]])],
      held: { passkeyAuthenticatorId: 'removed' },
      headline: 'Needs your security key',
      heldHere: false,
      credential: 'any security key of Bea',
      approvalIs: /the security key profile "Bea desk" votes with is not registered for Bea/,
    },
    {
      name: 'an API key step while the profile votes with its passkey',
      statuses: [status(BEA, [[{ type: API_KEY }]])],
      held: BEA_PASSKEY,
      headline: 'Needs your API key approval',
      heldHere: false,
      credential: 'any API key of Bea',
      approvalIs: /profile "Bea desk" votes with its security key, not an API key/,
    },
    {
      name: 'a passkey or an API key in one step, with a passkey profile: the passkey is offered',
      statuses: [status(BEA, [[{ type: API_KEY }, { type: PASSKEY }]])],
      held: BEA_PASSKEY,
      headline: 'Needs your security key',
      heldHere: true,
      credential: 'any security key of Bea',
      approvalIs: 'This approval is your security key step of MFA policy "Signing"; 1 of 1 steps',
    },
    {
      name: 'an API key met, then the passkey: the second of two steps',
      statuses: [status(BEA, [[{ type: API_KEY }], [{ type: PASSKEY }]], [{ type: API_KEY, id: BEA_KEY.id }])],
      held: BEA_PASSKEY,
      headline: 'Needs your security key',
      heldHere: true,
      credential: 'any security key of Bea',
      approvalIs: 'This approval is your security key step of MFA policy "Signing"; 2 of 2 steps',
    },
    {
      name: 'an email code, which QuorumKey cannot present',
      statuses: [status(BEA, [[{ type: 'AUTHENTICATION_TYPE_EMAIL_OTP' }]])],
      headline: 'Needs your email code',
      heldHere: false,
      credential: "Bea's email code",
      approvalIs: /QuorumKey cannot present Bea's email code/,
    },
  ];
  it.each(cases)('$name', ({ statuses, held, headline, heldHere, credential, approvalIs }) => {
    const reading = readingOf(statuses, held);
    expect(reading.authenticators).toMatchObject({ headline, heldHere, credential, policy: '"Signing"' });
    // The button names what the approval presents, as the headline does.
    expect(reading.authenticators!.approveLabel).toBe(APPROVE_LABELS[headline]);
    expect(reading.authenticators!.approvalIs).toMatch(approvalIs);
    // The card's "If you approve" and main's confirmation say the same.
    expect(reading.approveDoes).toBe(reading.authenticators!.approvalIs);
    expect(reading.awaitedAuthenticators).toBeUndefined();
  });
});

describe('whose MFA steps it waits for', () => {
  const cases: { name: string; statuses: MfaStatus[]; viewer: boolean; awaited: string[] | undefined }[] = [
    {
      name: 'another user’s passkey: named, the viewer asked nothing of',
      statuses: [status(BOB, [[{ type: PASSKEY }]])],
      viewer: false,
      awaited: ['any security key of Bob (MFA policy "Bob signs"; 0 of 1 steps met)'],
    },
    {
      name: 'the viewer’s met, another’s open',
      statuses: [status(BEA, [[{ type: API_KEY }]], [{ type: API_KEY, id: BEA_KEY.id }], true), status(BOB, [[{ type: API_KEY }]])],
      viewer: false,
      awaited: ['any API key of Bob (MFA policy "Bob signs"; 0 of 1 steps met)'],
    },
    {
      name: 'both open',
      statuses: [status(BEA, [[{ type: API_KEY }]]), status(BOB, [[{ type: PASSKEY }]])],
      viewer: true,
      awaited: ['any security key of Bob (MFA policy "Bob signs"; 0 of 1 steps met)'],
    },
    { name: 'every requirement met', statuses: [status(BEA, [[{ type: API_KEY }]], [{ type: API_KEY }], true)], viewer: false, awaited: undefined },
  ];
  it.each(cases)('$name', ({ statuses, viewer, awaited }) => {
    const reading = readingOf(statuses);
    expect(reading.authenticators !== undefined).toBe(viewer);
    expect(reading.awaitedAuthenticators).toEqual(awaited);
  });

  it('"Still needs" names the open steps before what the policies need, never "nothing more" alone', () => {
    const allowed: PolicyStanding = {
      outcome: 'ALLOW',
      decidedBy: 'policy',
      matchedPolicies: [],
      failedPolicies: [],
      viewerCanApprove: false,
      evaluations: [],
      stillToVote: [],
      why: [],
    };
    const reading = voteReadingOf({
      ...readingInput([status(BEA, [[{ type: PASSKEY }]]), status(BOB, [[{ type: API_KEY }]])], BEA_PASSKEY),
      standing: allowed,
      withViewer: allowed,
    });
    expect(reading.stillNeeded).toBe(
      'first any security key of Bea (MFA policy "Signing"; 0 of 1 steps met), and any API key of Bob (MFA policy "Bob signs"; 0 of 1 steps met); then nothing more: a policy allows it',
    );
    expect(voteReadingOf({ ...readingInput([status(BEA, [[{ type: PASSKEY }]], [{ type: PASSKEY }], true)]), standing: allowed }).stillNeeded).toBe(
      'nothing more: a policy allows it',
    );
  });

  it('without an MFA status the reading is a plain vote reading', () => {
    const reading = voteReadingOf({
      activity: { type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' },
      tally: { voters: [], approverIds: [], timeLeftMs: 0 },
      snapshot,
      profileName: 'Bea desk',
      title: 'Sign a payload',
      standing: 'not read here',
      withViewer: 'not read here',
    });
    expect(reading.authenticators).toBeUndefined();
    expect(reading.approveDoes).toMatch(/QuorumKey cannot tell what your approval does/);
  });
});
