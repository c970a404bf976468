import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusal, startTestService, type TestService } from '../support/service';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.close();
});

const CREATE_POLICY = 'ACTIVITY_TYPE_CREATE_POLICY_V3';

describe('the platform through Turnkey’s official client', () => {
  it('answers whoami for the root key', async () => {
    const whoami = await t.client().getWhoami({ organizationId: t.info.organizationId });
    expect(whoami).toEqual({
      organizationId: t.info.organizationId,
      organizationName: 'Root organization',
      userId: t.info.rootUserId,
      username: 'Root user',
    });
  });

  it('creates a policy, then gets and lists it and its activity', async () => {
    const client = t.client();
    const response = await client.createPolicy({
      type: CREATE_POLICY,
      timestampMs: String(t.clock.now()),
      organizationId: t.info.organizationId,
      parameters: { policyName: 'signers', effect: 'EFFECT_ALLOW', condition: "activity.action == 'SIGN'", notes: '' },
    });
    const { activity } = response;
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(activity.type).toBe(CREATE_POLICY);
    expect(activity.intent.createPolicyIntentV3?.policyName).toBe('signers');
    const policyId = activity.result.createPolicyResult?.policyId;
    expect(policyId).toMatch(/^[0-9a-f-]{36}$/);
    expect(activity.votes).toHaveLength(1);
    expect(activity.votes[0]).toMatchObject({ userId: t.info.rootUserId, selection: 'VOTE_SELECTION_APPROVED' });
    expect(activity.votes[0]?.user.apiKeys[0]?.credential.publicKey).toBe(t.rootKey.publicKey);
    expect(activity.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(activity.canApprove).toBe(false);
    expect(activity.createdAt).toEqual({ seconds: expect.stringMatching(/^\d+$/), nanos: expect.stringMatching(/^\d+$/) });

    const fetched = await client.getActivity({ organizationId: t.info.organizationId, activityId: activity.id });
    expect(fetched.activity).toEqual(activity);

    const { policy } = await client.getPolicy({ organizationId: t.info.organizationId, policyId: policyId! });
    expect(policy).toMatchObject({ policyName: 'signers', effect: 'EFFECT_ALLOW', condition: "activity.action == 'SIGN'", consensus: '' });
    const { policies } = await client.getPolicies({ organizationId: t.info.organizationId });
    expect(policies.map((p) => p.policyId)).toContain(policyId);

    // A FAILED activity beside the COMPLETED one, so that each status filter has something to leave out.
    const failed = (await t.submit('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: 'no-such-policy' })).body.activity;
    expect(failed.status).toBe('ACTIVITY_STATUS_FAILED');
    const listedBy = async (status: 'ACTIVITY_STATUS_COMPLETED' | 'ACTIVITY_STATUS_FAILED') =>
      (await client.getActivities({ organizationId: t.info.organizationId, filterByStatus: [status] })).activities.map((a) => a.id);
    expect(await listedBy('ACTIVITY_STATUS_COMPLETED')).toEqual([activity.id]);
    expect(await listedBy('ACTIVITY_STATUS_FAILED')).toEqual([failed.id]);
  });

  it('resubmitting the identical body returns the same activity (idempotency by fingerprint)', async () => {
    const body = {
      type: CREATE_POLICY,
      timestampMs: String(t.clock.now() - 1),
      organizationId: t.info.organizationId,
      parameters: { policyName: 'idempotent', effect: 'EFFECT_DENY', notes: 'n' },
    };
    const first = await t.post('/public/v1/submit/create_policy', body);
    const second = await t.post('/public/v1/submit/create_policy', body);
    expect(first.status).toBe(200);
    expect(second.body.activity.id).toBe(first.body.activity.id);
    const { policies } = await t.client().getPolicies({ organizationId: t.info.organizationId });
    expect(policies.filter((p) => p.policyName === 'idempotent')).toHaveLength(1);
  });

  it('pages list_activities newest first with before/after cursors', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const reply = await t.submit('create_policy', CREATE_POLICY, { policyName: `page ${index}`, effect: 'EFFECT_ALLOW', notes: '' });
      ids.push(reply.body.activity.id);
    }
    const newest = ids.slice().reverse();
    const page1 = await t.query('list_activities', { paginationOptions: { limit: '2' } });
    expect(page1.body.activities.map((a: { id: string }) => a.id)).toEqual(newest.slice(0, 2));
    const page2 = await t.query('list_activities', { paginationOptions: { limit: '2', before: newest[1] } });
    expect(page2.body.activities.map((a: { id: string }) => a.id)).toEqual(newest.slice(2, 4));
    const back = await t.query('list_activities', { paginationOptions: { limit: '2', after: newest[2] } });
    expect(back.body.activities.map((a: { id: string }) => a.id)).toEqual(newest.slice(0, 2));
    const tooMany = await t.query('list_activities', { paginationOptions: { limit: '101' } });
    expect(tooMany.status).toBe(400);
  });
});

describe('policies', () => {
  it('refuses an expression that does not parse with its position, recording nothing', async () => {
    const before = await t.query('list_activities', { paginationOptions: { limit: '100' } });
    const reply = await t.submit('create_policy', CREATE_POLICY, {
      policyName: 'broken',
      effect: 'EFFECT_ALLOW',
      condition: 'activity.action == ',
      notes: '',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.details[0].turnkeyErrorCode).toBe('POLICY_PARSE_ERROR');
    expect(reply.body.message).toMatch(/parameters\.condition.*at 1:\d+/);
    const after = await t.query('list_activities', { paginationOptions: { limit: '100' } });
    expect(after.body.activities).toHaveLength(before.body.activities.length);
  });

  it('updates only the given fields and deletes, through the official client', async () => {
    const client = t.client();
    const created = await t.submit('create_policy', CREATE_POLICY, { policyName: 'to update', effect: 'EFFECT_ALLOW', notes: 'old' });
    const policyId = created.body.activity.result.createPolicyResult.policyId;
    const updated = await client.updatePolicy(t.envelope('ACTIVITY_TYPE_UPDATE_POLICY_V2', { policyId, policyNotes: 'new' }));
    expect(updated.activity.result).toEqual({ updatePolicyResultV2: { policyId } });
    const { body } = await t.query('get_policy', { policyId });
    expect(body.policy).toMatchObject({ policyName: 'to update', notes: 'new', effect: 'EFFECT_ALLOW' });
    const deleted = await client.deletePolicy(t.envelope('ACTIVITY_TYPE_DELETE_POLICY', { policyId }));
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(deleted.activity.result.deletePolicyResult?.policyId).toBe(policyId);
    expect((await t.query('get_policy', { policyId })).status).toBe(404);
    const again = await t.submit('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId }, { timestampMs: String(t.clock.now() - 5) });
    // An execution failure is a recorded FAILED activity answered with 200 (docs/service.md#error-body).
    expect(again.status).toBe(200);
    expect(again.body.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(again.body.activity.failure.details[0].turnkeyErrorCode).toBe('NOT_FOUND');
  });

  it("renames a policy, keeps a name given again, and refuses a rename to another policy's name", async () => {
    let revision = 0;
    // Notes that differ each time: an update is never the replay of an earlier one.
    const update = (policyId: string, policyName: string) =>
      t
        .submit('update_policy', 'ACTIVITY_TYPE_UPDATE_POLICY_V2', { policyId, policyName, policyNotes: `revision ${++revision}` })
        .then((reply) => reply.body.activity);
    const create = (policyName: string) =>
      t.submit('create_policy', CREATE_POLICY, { policyName, effect: 'EFFECT_ALLOW', notes: '' }).then((reply) => reply.body.activity);
    const renamed = (await create('named first')).result.createPolicyResult.policyId;
    const other = (await create('taken')).result.createPolicyResult.policyId;

    expect((await update(renamed, 'named again')).status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await t.query('get_policy', { policyId: renamed })).body.policy.policyName).toBe('named again');
    // The old name is free once the name's index follows the rename.
    expect((await create('named first')).status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await update(renamed, 'named again')).status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await t.query('get_policy', { policyId: renamed })).body.policy).toMatchObject({ policyName: 'named again', notes: 'revision 2' });
    const refused = await update(renamed, 'taken');
    expect(refused.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(refused.failure.message).toMatch(`policy label must be unique: a policy named "taken" already exists (${other})`);
    expect((await t.query('get_policy', { policyId: renamed })).body.policy.policyName).toBe('named again');
  });

  it('creates several policies at once through the official client, and refuses a duplicate name', async () => {
    const reply = await t.client().createPolicies({
      type: 'ACTIVITY_TYPE_CREATE_POLICIES',
      timestampMs: String(t.clock.now()),
      organizationId: t.info.organizationId,
      parameters: {
        policies: [
          { policyName: 'bulk a', effect: 'EFFECT_ALLOW', notes: '' },
          { policyName: 'bulk b', effect: 'EFFECT_DENY', consensus: 'approvers.count() >= 2', notes: '' },
        ],
      },
    });
    const policyIds = reply.activity.result.createPoliciesResult?.policyIds ?? [];
    expect(policyIds).toHaveLength(2);
    const { policies } = await t.client().getPolicies({ organizationId: t.info.organizationId });
    expect(
      policies
        .filter((policy) => policyIds.includes(policy.policyId))
        .map((policy) => policy.policyName)
        .sort(),
    ).toEqual(['bulk a', 'bulk b']);
    const duplicate = await t.submit('create_policy', CREATE_POLICY, { policyName: 'bulk a', effect: 'EFFECT_ALLOW', notes: '' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.message).toMatch(/policy label must be unique/);
  });
});

describe('the wire', () => {
  it('answers an unknown path with 404 OPERATION_NOT_FOUND in the error shape', async () => {
    const reply = await t.post('/public/v1/query/no_such_thing', { organizationId: t.info.organizationId });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      code: 5,
      message: expect.stringContaining('/public/v1/query/no_such_thing'),
      details: [{ '@type': 'type.googleapis.com/errors.v1.TurnkeyErrorDetail', turnkeyErrorCode: 'OPERATION_NOT_FOUND' }],
    });
  });

  it('refuses bad JSON, an empty body, a body too large and a missing stamp, whatever the Content-Type', async () => {
    const badJson = await t.post('/public/v1/query/whoami', '{"organizationId":');
    expect(refusal(badJson)).toEqual([400, 'REQUEST_INVALID']);

    const badText = await fetch(`${t.info.baseUrl}/public/v1/query/whoami`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: '{"organizationId":',
    });
    expect(badText.status).toBe(400);
    expect((await badText.json()).message).toMatch(/^bad request body: not valid JSON/);

    const empty = await fetch(`${t.info.baseUrl}/public/v1/query/whoami`, { method: 'POST' });
    expect(empty.status).toBe(400);
    expect((await empty.json()).message).toBe('bad request body: the body is empty; send a JSON object');

    const large = await t.post('/public/v1/query/whoami', { organizationId: t.info.organizationId, pad: 'x'.repeat(1_100_000) });
    expect(refusal(large)).toEqual([400, 'REQUEST_TOO_LARGE']);

    const unstamped = await t.query('whoami', {}, { unstamped: true });
    expect(unstamped.status).toBe(401);
    expect(unstamped.body.message).toBe('cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)');
  });
});
