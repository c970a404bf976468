/**
 * A submission's answer is built from the records its transaction wrote, not read back (activities/pipeline.ts): these
 * hold it, as JSON text member for member and in order, to what get_activity answers for the same activity afterwards,
 * for every way a new activity can end its transaction: completed (with app proofs, under an older version's names),
 * failed, waiting for consensus, waiting for authenticators; and for every way a vote can leave it: rejected, still
 * waiting for consensus, waiting for the voter's authenticators, completed by an approval or by an authenticator.
 */
import { TurnkeyClient } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type Reply, type TestKey, type TestService } from '../support/service';
import { addStoredPasskey } from '../support/stored-passkey';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

/** Submits, and expects the answer's activity to be, byte for byte, the one get_activity then answers. */
async function answeredAsRead(name: string, type: string, parameters: unknown, body: Record<string, unknown> = {}): Promise<Reply['body']> {
  t.clock.advance(1);
  const reply = await t.post(`/public/v1/submit/${name}`, { ...t.envelope(type, parameters), ...body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const read = await t.query('get_activity', { activityId: reply.body.activity.id });
  expect(read.status).toBe(200);
  expect(JSON.stringify(reply.body.activity)).toBe(JSON.stringify(read.body.activity));
  return reply.body.activity;
}

const ETHEREUM_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
};

describe("a new activity's answer, built from what its transaction wrote", () => {
  it('completed, failed, and completed with app proofs', async () => {
    const policy = await answeredAsRead('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'signers',
      effect: 'EFFECT_ALLOW',
      condition: "activity.action == 'SIGN'",
      notes: '',
    });
    expect(policy.status).toBe('ACTIVITY_STATUS_COMPLETED');

    const failed = await answeredAsRead('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: 'no-such-policy' });
    expect(failed.status).toBe('ACTIVITY_STATUS_FAILED');

    const proved = await answeredAsRead(
      'create_wallet',
      'ACTIVITY_TYPE_CREATE_WALLET',
      { walletName: 'proved', accounts: [ETHEREUM_ACCOUNT] },
      { generateAppProofs: true },
    );
    expect([proved.status, proved.appProofs?.length]).toEqual(['ACTIVITY_STATUS_COMPLETED', 2]);

    const signWith = proved.result.createWalletResult.addresses[0];
    const signed = await answeredAsRead('sign_raw_payload', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
      signWith,
      payload: 'ab'.repeat(32),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(signed.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it("completed under an older version's type, intent and result names", async () => {
    const older = await answeredAsRead('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V2', {
      policyName: 'older',
      selectors: [],
      effect: 'EFFECT_DENY',
      notes: '',
    });
    expect([older.type, older.status, Object.keys(older.intent)]).toEqual([
      'ACTIVITY_TYPE_CREATE_POLICY_V2',
      'ACTIVITY_STATUS_COMPLETED',
      ['createPolicyIntentV2'],
    ]);
  });

  it('waiting for consensus, and waiting for the proposer’s authenticators', async () => {
    const other = await t.addUser({ name: 'second approver' });
    await t.setRootQuorum(2, [t.info.rootUserId, other.userId]);
    const waiting = await answeredAsRead('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'waits',
      effect: 'EFFECT_ALLOW',
      condition: "activity.action == 'SIGN'",
      notes: '',
    });
    expect([waiting.status, waiting.canApprove]).toEqual(['ACTIVITY_STATUS_CONSENSUS_NEEDED', true]);

    await t.setRootQuorum(1, [t.info.rootUserId]);
    await addStoredPasskey(t, t.info.rootUserId, 'root-passkey');
    await answeredAsRead('create_mfa_policy', 'ACTIVITY_TYPE_CREATE_MFA_POLICY', {
      userId: t.info.rootUserId,
      mfaPolicyName: 'passkey for wallets',
      condition: "activity.resource == 'WALLET'",
      requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_PASSKEY' }] }],
      order: 0,
    });
    const held = await answeredAsRead('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'held', accounts: [ETHEREUM_ACCOUNT] });
    expect(held.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
  });
});

/** Votes on the activity of `fingerprint` with `key`, and expects the answer to be, byte for byte, get_activity's. */
async function votedAsRead(name: 'approve_activity' | 'reject_activity', fingerprint: string, key: TestKey): Promise<Reply['body']> {
  t.clock.advance(1);
  const type = name === 'approve_activity' ? 'ACTIVITY_TYPE_APPROVE_ACTIVITY' : 'ACTIVITY_TYPE_REJECT_ACTIVITY';
  const reply = await t.submit(name, type, { fingerprint }, { key });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const read = await t.query('get_activity', { activityId: reply.body.activity.id });
  expect(JSON.stringify(reply.body.activity)).toBe(JSON.stringify(read.body.activity));
  return reply.body.activity;
}

const proposal = (policyName: string) => ({ policyName, effect: 'EFFECT_ALLOW', condition: "activity.action == 'SIGN'", notes: '' });

describe("a vote's answer, built from what its transaction wrote", () => {
  it('rejected, still waiting for consensus, and completed by the last approval', async () => {
    const alice = await t.addUser({ name: 'alice' });
    const bob = await t.addUser({ name: 'bob' });
    await t.setRootQuorum(3, [t.info.rootUserId, alice.userId, bob.userId]);

    const rejected = await answeredAsRead('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', proposal('rejected'));
    expect((await votedAsRead('reject_activity', rejected.fingerprint, alice.key)).status).toBe('ACTIVITY_STATUS_REJECTED');

    const approved = await answeredAsRead('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', proposal('approved'));
    const waiting = await votedAsRead('approve_activity', approved.fingerprint, alice.key);
    expect([waiting.status, waiting.votes.length]).toEqual(['ACTIVITY_STATUS_CONSENSUS_NEEDED', 2]);
    const completed = await votedAsRead('approve_activity', approved.fingerprint, bob.key);
    expect([completed.status, completed.votes.length]).toEqual(['ACTIVITY_STATUS_COMPLETED', 3]);
  });

  it("waiting for the voter's authenticators, then completed by one", async () => {
    const alice = await t.addUser({ name: 'alice' });
    const passkey = await addStoredPasskey(t, alice.userId, 'alice-passkey');
    await answeredAsRead('create_mfa_policy', 'ACTIVITY_TYPE_CREATE_MFA_POLICY', {
      userId: alice.userId,
      mfaPolicyName: 'passkey for policies',
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_POLICY_V3'",
      requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_PASSKEY' }] }],
      order: 0,
    });
    await t.setRootQuorum(2, [t.info.rootUserId, alice.userId]);
    const proposed = await answeredAsRead('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', proposal('held by mfa'));
    const held = await votedAsRead('approve_activity', proposed.fingerprint, alice.key);
    expect(held.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');

    const client = new TurnkeyClient(
      { baseUrl: t.info.baseUrl },
      { stamp: async (payload: string) => ({ stampHeaderName: 'X-Stamp-WebAuthn', stampHeaderValue: passkey.assert(payload) }) },
    );
    const { activity } = await client.approveActivity({
      ...t.nextEnvelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'),
      parameters: { fingerprint: proposed.fingerprint },
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const read = await t.query('get_activity', { activityId: activity.id });
    expect(JSON.stringify(activity)).toBe(JSON.stringify(read.body.activity));
  });
});
