import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refusal, startTestService, type TestKey, type TestService } from '../support/service';
import { addStoredPasskey } from '../support/stored-passkey';

const CREATE_POLICY = 'ACTIVITY_TYPE_CREATE_POLICY_V3';
let t: TestService;
let alice: { userId: string; key: TestKey };
let bob: { userId: string; key: TestKey };
let carol: { userId: string; key: TestKey };

beforeEach(async () => {
  t = await startTestService();
  alice = { userId: t.info.rootUserId, key: t.rootKey };
  bob = await t.addUser({ name: 'bob' });
  carol = await t.addUser({ name: 'carol' });
  await t.setRootQuorum(2, [alice.userId, bob.userId, carol.userId]);
});
afterEach(async () => {
  await t.close();
});

const policyParams = (name: string, extra: Record<string, string> = {}) => ({ policyName: name, effect: 'EFFECT_ALLOW', notes: '', ...extra });
const count = async (): Promise<number> => (await t.query('list_policies', {})).body.policies.length;

describe('a 2-of-3 root quorum', () => {
  it('waits in CONSENSUS_NEEDED until a second root user approves, then executes', async () => {
    const proposed = await t.submit('create_policy', CREATE_POLICY, policyParams('needs two'));
    expect(proposed.status).toBe(200);
    const pending = proposed.body.activity;
    expect(pending.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect([pending.canApprove, pending.canReject]).toEqual([true, true]);
    expect(pending.result).toEqual({});
    expect(await count()).toBe(0);

    const approved = await t.client(bob.key).approveActivity({
      type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      timestampMs: String(t.clock.now()),
      organizationId: t.info.organizationId,
      parameters: { fingerprint: pending.fingerprint },
    });
    expect(approved.activity.id).toBe(pending.id);
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(approved.activity.votes.map((v) => v.userId)).toEqual([alice.userId, bob.userId]);
    expect(approved.activity.result.createPolicyResult?.policyId).toBeDefined();
    expect(await count()).toBe(1);

    const again = await t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint }, { key: carol.key });
    expect(refusal(again)).toEqual([400, 'ACTIVITY_NOT_PENDING']);
  });

  it('the byte-identical body stamped by another root user counts as their approval', async () => {
    const body = JSON.stringify({
      type: CREATE_POLICY,
      timestampMs: String(t.clock.now()),
      organizationId: t.info.organizationId,
      parameters: policyParams('cosigned'),
    });
    const first = await t.post('/public/v1/submit/create_policy', body);
    expect(first.body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const second = await t.post('/public/v1/submit/create_policy', body, { key: carol.key });
    expect(second.body.activity.id).toBe(first.body.activity.id);
    expect(second.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('a rejection ends it REJECTED; a second vote by the same user is refused', async () => {
    const pending = (await t.submit('create_policy', CREATE_POLICY, policyParams('rejected'))).body.activity;
    const twice = await t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint });
    expect(refusal(twice)).toEqual([400, 'ALREADY_VOTED']);
    const rejected = await t.client(carol.key).rejectActivity({
      type: 'ACTIVITY_TYPE_REJECT_ACTIVITY',
      timestampMs: String(t.clock.now()),
      organizationId: t.info.organizationId,
      parameters: { fingerprint: pending.fingerprint },
    });
    expect(rejected.activity.status).toBe('ACTIVITY_STATUS_REJECTED');
    expect(rejected.activity.canApprove).toBe(false);
    expect(rejected.activity.votes.at(-1)?.selection).toBe('VOTE_SELECTION_REJECTED');
    const late = await t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint }, { key: bob.key });
    expect(late.body.details[0].turnkeyErrorCode).toBe('ACTIVITY_NOT_PENDING');
    expect(await count()).toBe(0);
  });

  it('an unknown fingerprint is ACTIVITY_NOT_FOUND with Turnkey’s message', async () => {
    const reply = await t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: `sha256:${'0'.repeat(64)}` });
    expect(reply.status).toBe(404);
    expect(reply.body.message).toBe('No activity found with fingerprint. Consensus activities must target an existing activity by fingerprint');
  });

  it('stale approvals (older than 24 h) no longer count', async () => {
    const pending = (await t.submit('create_policy', CREATE_POLICY, policyParams('stale'))).body.activity;
    t.clock.advance(25 * 60 * 60 * 1000);
    const approved = await t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint }, { key: bob.key });
    expect(approved.body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const third = await t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint }, { key: carol.key });
    expect(third.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('the window runs 24 h from the first approval: an approval inside it does not extend it', async () => {
    const dave = await t.addUser({ name: 'dave' });
    await t.setRootQuorum(3, [alice.userId, bob.userId, carol.userId, dave.userId]);
    const pending = (await t.submit('create_policy', CREATE_POLICY, policyParams('three within a day'))).body.activity;
    const approve = (key: TestKey) => t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint }, { key });
    t.clock.advance(23 * 60 * 60 * 1000);
    expect((await approve(bob.key)).body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    // 25 h after alice's proposal: her approval and bob's expired with the window they were given in.
    t.clock.advance(2 * 60 * 60 * 1000);
    expect((await approve(carol.key)).body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect((await approve(dave.key)).body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(await count()).toBe(0);
  });

  it('a user whose approval expired approves again, and that approval counts in the new window', async () => {
    await t.setRootQuorum(2, [alice.userId, bob.userId]);
    const pending = (await t.submit('create_policy', CREATE_POLICY, policyParams('re-approved'))).body.activity;
    const approve = (key: TestKey) => t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint }, { key });
    const twice = await approve(alice.key);
    expect(refusal(twice)).toEqual([400, 'ALREADY_VOTED']);

    t.clock.advance(25 * 60 * 60 * 1000);
    expect((await approve(bob.key)).body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const again = await approve(alice.key);
    expect(again.status).toBe(200);
    expect(again.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    // Every vote stays on the record, the expired one too.
    expect(again.body.activity.votes.map((v: { userId: string }) => v.userId)).toEqual([alice.userId, bob.userId, alice.userId]);
    expect(await count()).toBe(1);
  });
});

describe('policies for non-root users', () => {
  it('a non-root user is denied without a policy, allowed alone by one, and a matching DENY wins', async () => {
    await t.setRootQuorum(1, [alice.userId]);
    const dave = await t.addUser({ name: 'dave' });
    const denied = await t.submit('create_policy', CREATE_POLICY, policyParams('by dave'), { key: dave.key });
    expect(refusal(denied)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    expect(denied.body.details[1]['@type']).toBe('type.googleapis.com/errors.v1.PolicyEnginePermissionError');
    expect((await t.query('list_activities', {})).body.activities).toHaveLength(0);

    await t.submit(
      'create_policy',
      CREATE_POLICY,
      policyParams('dave may manage policies', {
        condition: "activity.resource == 'POLICY'",
        consensus: `approvers.any(user, user.id == '${dave.userId}')`,
      }),
    );
    const allowed = await t.submit('create_policy', CREATE_POLICY, policyParams('by dave'), { key: dave.key });
    expect(allowed.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    await t.submit('create_policy', CREATE_POLICY, {
      ...policyParams('no deletes'),
      effect: 'EFFECT_DENY',
      condition: "activity.action == 'DELETE'",
    });
    const policyId = allowed.body.activity.result.createPolicyResult.policyId;
    const deleting = await t.submit('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId }, { key: dave.key });
    expect(deleting.status).toBe(403);
    expect(deleting.body.message).toBe('policy engine denied request explicitly');
  });

  it('`user` in a condition is the user the parameters name: a policy lets dave rename only users with a tag', async () => {
    await t.setRootQuorum(1, [alice.userId]);
    const tagId = 'tag-renamable';
    await t.store.transaction((tx) =>
      tx.userTags.insert({ id: tagId, organizationId: t.info.organizationId, name: 'renamable', now: t.clock.now() }),
    );
    const dave = await t.addUser({ name: 'dave' });
    const tagged = await t.addUser({ name: 'tagged', tagIds: [tagId] });
    await t.submit(
      'create_policy',
      CREATE_POLICY,
      policyParams('dave renames tagged users', {
        condition: `activity.type == 'ACTIVITY_TYPE_UPDATE_USER_NAME' && user.tags.contains('${tagId}')`,
        consensus: `approvers.any(user, user.id == '${dave.userId}')`,
      }),
    );
    const rename = (userId: string) =>
      t.submit('update_user_name', 'ACTIVITY_TYPE_UPDATE_USER_NAME', { userId, userName: 'renamed' }, { key: dave.key });
    expect((await rename(tagged.userId)).body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const untagged = await rename(bob.userId);
    expect(refusal(untagged)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    expect((await t.query('get_user', { userId: bob.userId })).body.user.userName).toBe('bob');
  });

  it('a policy needing two tagged approvers waits for the second, who may vote because the consensus needs them', async () => {
    await t.setRootQuorum(1, [alice.userId]);
    const tagId = 'tag-ops';
    await t.store.transaction((tx) => tx.userTags.insert({ id: tagId, organizationId: t.info.organizationId, name: 'ops', now: t.clock.now() }));
    const erin = await t.addUser({ name: 'erin', tagIds: [tagId] });
    const frank = await t.addUser({ name: 'frank', tagIds: [tagId] });
    const outsider = await t.addUser({ name: 'outsider' });
    await t.submit(
      'create_policy',
      CREATE_POLICY,
      policyParams('two ops', {
        condition: "activity.resource == 'POLICY'",
        consensus: `approvers.filter(user, user.tags.contains('${tagId}')).count() >= 2`,
      }),
    );
    const pending = (await t.submit('create_policy', CREATE_POLICY, policyParams('by ops'), { key: erin.key })).body.activity;
    expect(pending.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const stranger = await t.submit('reject_activity', 'ACTIVITY_TYPE_REJECT_ACTIVITY', { fingerprint: pending.fingerprint }, { key: outsider.key });
    expect(stranger.status).toBe(403);
    const done = await t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint }, { key: frank.key });
    expect(done.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});

describe('credentials in a consensus', () => {
  it('a passkey may vote where the consensus asks for it, and its stored vote keeps the passkey’s credential_id', async () => {
    // Alice and Bob form the root quorum; Carol counts only through the policy, and only with her passkey. The engine
    // does not short-circuit, so the passkeys are filtered before their credential_id is read.
    await t.setRootQuorum(2, [alice.userId, bob.userId]);
    const passkey = await addStoredPasskey(t, carol.userId, 'carol-passkey');
    await t.store.transaction((tx) => {
      tx.policies.insert({
        id: 'policy-passkey',
        organizationId: t.info.organizationId,
        name: 'alice and carol’s passkey',
        effect: 'EFFECT_ALLOW',
        condition: `activity.type == '${CREATE_POLICY}'`,
        consensus: `approvers.any(u, u.id == '${alice.userId}') && credentials.filter(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR').any(c, c.credential_id == '${passkey.credentialId}')`,
        time: '',
        notes: '',
        now: t.clock.now(),
      });
    });

    const pending = (await t.submit('create_policy', CREATE_POLICY, policyParams('by passkey'))).body.activity;
    expect(pending.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const vote = JSON.stringify({
      type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      timestampMs: String(t.clock.now()),
      organizationId: t.info.organizationId,
      parameters: { fingerprint: pending.fingerprint },
    });
    const approved = await t.post('/public/v1/submit/approve_activity', vote, {
      unstamped: true,
      headers: { 'X-Stamp-WebAuthn': passkey.assert(vote) },
    });
    expect(approved.body.activity?.status, JSON.stringify(approved.body)).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await count()).toBe(2);
  });
});
