/**
 * A policy's `time` expression (early access in Turnkey, docs/service.md#policy-precedence): stored and returned as
 * `time`, checked when written, and outside its window the policy neither allows nor denies.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type TestKey, type TestService } from '../support/service';

const CREATE_POLICY = 'ACTIVITY_TYPE_CREATE_POLICY_V3';
const UPDATE_POLICY = 'ACTIVITY_TYPE_UPDATE_POLICY_V2';
const CREATE_USER_TAG = 'ACTIVITY_TYPE_CREATE_USER_TAG';
/** Weekdays 09:00–17:00 on New York's wall clock. */
const OFFICE_HOURS = "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')";
/** Wednesday 2026-07-01, 09:30 EDT. */
const WEDNESDAY_MORNING = Date.parse('2026-07-01T13:30:00Z');

let t: TestService;
let bob: { userId: string; key: TestKey };

beforeEach(async () => {
  t = await startTestService({ startMs: WEDNESDAY_MORNING });
  bob = await t.addUser({ name: 'bob' });
});
afterEach(async () => {
  await t.close();
});

const moveClockTo = (iso: string): void => t.clock.advance(Date.parse(iso) - t.clock.now());

async function createPolicy(fields: Record<string, string>): Promise<string> {
  const reply = await t.submit('create_policy', CREATE_POLICY, { effect: 'EFFECT_ALLOW', notes: '', ...fields });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  return reply.body.activity.result.createPolicyResult.policyId as string;
}

let tagNumber = 0;
const bobCreatesTag = () => t.submit('create_user_tag', CREATE_USER_TAG, { userTagName: `tag ${(tagNumber += 1)}`, userIds: [] }, { key: bob.key });
const bobMayCreateTags = (extra: Record<string, string> = {}) =>
  createPolicy({
    policyName: 'bob creates tags',
    condition: `activity.type == '${CREATE_USER_TAG}'`,
    consensus: `approvers.any(user, user.id == '${bob.userId}')`,
    ...extra,
  });
/** Per-policy outcomes from the denial's PolicyEnginePermissionError detail. */
function outcomesOf(reply: { body: { details: { '@type': string; policyEvaluations?: { policyId: string; outcome: string }[] }[] } }) {
  const detail = reply.body.details.find((entry) => entry['@type'].endsWith('errors.v1.PolicyEnginePermissionError'));
  return Object.fromEntries((detail?.policyEvaluations ?? []).map((evaluation) => [evaluation.policyId, evaluation.outcome]));
}

describe('authorization with a time window', () => {
  it('an ALLOW policy allows inside its window and is skipped outside it (implicit deny)', async () => {
    const policyId = await bobMayCreateTags({ time: OFFICE_HOURS });
    const inside = await bobCreatesTag();
    expect(inside.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    moveClockTo('2026-07-01T21:00:00Z'); // 17:00 EDT: the 8-hour window has just closed
    const evening = await bobCreatesTag();
    expect(evening.status).toBe(403);
    expect(evening.body.message).toMatch(/No policies evaluated to outcome: Allow/);
    expect(outcomesOf(evening)).toEqual({ [policyId]: 'OUTCOME_TIME_INACTIVE' });

    moveClockTo('2026-07-04T14:00:00Z'); // Saturday 10:00 EDT
    expect((await bobCreatesTag()).status).toBe(403);
    moveClockTo('2026-07-06T13:00:00Z'); // Monday 09:00 EDT: open again
    expect((await bobCreatesTag()).body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('reads the window on the zone’s wall clock: in winter 09:00 New York is 14:00Z', async () => {
    await bobMayCreateTags({ time: OFFICE_HOURS });
    moveClockTo('2026-12-02T13:30:00Z'); // Wednesday 08:30 EST
    expect((await bobCreatesTag()).status).toBe(403);
    moveClockTo('2026-12-02T14:00:00Z');
    expect((await bobCreatesTag()).body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('a DENY policy outside its window does not deny; inside it, it does', async () => {
    await bobMayCreateTags();
    const denyId = await createPolicy({
      policyName: 'no tags at weekends',
      effect: 'EFFECT_DENY',
      condition: `activity.type == '${CREATE_USER_TAG}'`,
      time: "CronSpan('0 0 * * 0,6', '1d', 'UTC')",
    });
    expect((await bobCreatesTag()).body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    moveClockTo('2026-07-04T12:00:00Z'); // Saturday
    const weekend = await bobCreatesTag();
    expect(weekend.status).toBe(403);
    expect(weekend.body.message).toBe('policy engine denied request explicitly');
    expect(outcomesOf(weekend)[denyId]).toBe('OUTCOME_DENY_EXPLICIT');
  });

  it('an approver named by a time-inactive policy may not vote on its activity', async () => {
    const carol = await t.addUser({ name: 'carol' });
    await createPolicy({
      policyName: 'bob and carol create tags in office hours',
      condition: `activity.type == '${CREATE_USER_TAG}'`,
      consensus: `approvers.any(user, user.id == '${bob.userId}') && approvers.any(user, user.id == '${carol.userId}')`,
      time: OFFICE_HOURS,
    });
    const proposed = await bobCreatesTag();
    expect(proposed.body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    moveClockTo('2026-07-01T22:00:00Z');
    const lateVote = await t.submit(
      'approve_activity',
      'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      { fingerprint: proposed.body.activity.fingerprint },
      { key: carol.key },
    );
    expect(lateVote.status).toBe(403);
  });
});

describe('storing and returning time', () => {
  it('get_policy and list_policies return time as written, and leave it out when the policy has none', async () => {
    const timed = await createPolicy({ policyName: 'timed', time: OFFICE_HOURS });
    const untimed = await createPolicy({ policyName: 'untimed' });
    expect((await t.query('get_policy', { policyId: timed })).body.policy.time).toBe(OFFICE_HOURS);
    const untimedView = (await t.query('get_policy', { policyId: untimed })).body.policy;
    expect(untimedView).not.toHaveProperty('time');
    const listed = (await t.query('list_policies', {})).body.policies as { policyId: string; time?: string }[];
    expect(listed.map((policy) => [policy.policyId, policy.time])).toEqual([
      [timed, OFFICE_HOURS],
      [untimed, undefined],
    ]);
  });

  it('create_policies stores each policy’s time', async () => {
    const reply = await t.submit('create_policies', 'ACTIVITY_TYPE_CREATE_POLICIES', {
      policies: [
        { policyName: 'a', effect: 'EFFECT_ALLOW', notes: '', time: "time.now < Timestamp('2027-01-01T00:00:00Z')" },
        { policyName: 'b', effect: 'EFFECT_ALLOW', notes: '' },
      ],
    });
    const [first, second] = reply.body.activity.result.createPoliciesResult.policyIds as [string, string];
    expect((await t.query('get_policy', { policyId: first })).body.policy.time).toBe("time.now < Timestamp('2027-01-01T00:00:00Z')");
    expect((await t.query('get_policy', { policyId: second })).body.policy).not.toHaveProperty('time');
  });

  it('update_policy changes time, keeps it when absent and clears it when empty', async () => {
    const policyId = await bobMayCreateTags({ time: OFFICE_HOURS });
    const later = "time.now >= Timestamp('2026-08-01T00:00:00Z')";
    const updated = await t.submit('update_policy', UPDATE_POLICY, { policyId, time: later });
    expect(updated.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await t.query('get_policy', { policyId })).body.policy.time).toBe(later);
    expect((await bobCreatesTag()).status).toBe(403);

    await t.submit('update_policy', UPDATE_POLICY, { policyId, policyNotes: 'notes only' });
    expect((await t.query('get_policy', { policyId })).body.policy).toMatchObject({ notes: 'notes only', time: later });

    await t.submit('update_policy', UPDATE_POLICY, { policyId, time: '' });
    expect((await t.query('get_policy', { policyId })).body.policy).not.toHaveProperty('time');
    expect((await bobCreatesTag()).body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});

describe('invalid time expressions are refused with 400 and nothing is stored', () => {
  const policies = async (): Promise<unknown[]> => (await t.query('list_policies', {})).body.policies;

  it.each([
    [
      'a cron name',
      "CronSpan('0 9 * * MON', '8h', 'UTC')",
      /invalid policy time: parameters\.time: CronSpan\(\) schedule: day-of-week field: names are not supported.*\(at 1:19\)/,
    ],
    [
      'an unknown zone',
      "CronSpan('0 9 * * *', '8h', 'Mars/Base')",
      /invalid policy time: parameters\.time: CronSpan\(\) time zone: unknown time zone 'Mars\/Base'/,
    ],
    ['a duration over 7 days', "CronSpan('0 9 * * *', '8d', 'UTC')", /invalid policy time: parameters\.time: .*7-day limit/],
    [
      'a condition keyword',
      "activity.kind == 'CREATE_USER_TAG'",
      /invalid policy time: parameters\.time: 'activity' belongs in condition expressions/,
    ],
    ['a non-bool', 'time.now', /invalid policy time: .*must evaluate to a bool/],
  ])('create_policy with %s', async (_name, time, message) => {
    const activitiesBefore = await t.activityCount();
    const reply = await t.submit('create_policy', CREATE_POLICY, { policyName: 'bad', effect: 'EFFECT_ALLOW', notes: '', time });
    expect(reply.status).toBe(400);
    expect(reply.body.details[0].turnkeyErrorCode).toBe('POLICY_PARSE_ERROR');
    expect(reply.body.message).toMatch(message);
    expect(await policies()).toEqual([]);
    expect(await t.activityCount()).toBe(activitiesBefore);
  });

  it('CronSpan or time.now in a condition is refused as not belonging there', async () => {
    const cron = await t.submit('create_policy', CREATE_POLICY, { policyName: 'bad', effect: 'EFFECT_ALLOW', notes: '', condition: OFFICE_HOURS });
    expect([cron.status, cron.body.message]).toEqual([
      400,
      expect.stringMatching(/invalid policy condition: parameters\.condition: CronSpan\(\) belongs in a policy's time expression/),
    ]);
    const now = await t.submit('create_policy', CREATE_POLICY, {
      policyName: 'bad',
      effect: 'EFFECT_ALLOW',
      notes: '',
      consensus: "time.now > Timestamp('2026-01-01T00:00:00Z')",
    });
    expect([now.status, now.body.message]).toEqual([400, expect.stringMatching(/invalid policy consensus: .*'time' belongs in time expressions/)]);
    expect(await policies()).toEqual([]);
  });

  it('create_policies names the element at fault and stores none', async () => {
    const reply = await t.submit('create_policies', 'ACTIVITY_TYPE_CREATE_POLICIES', {
      policies: [
        { policyName: 'fine', effect: 'EFFECT_ALLOW', notes: '', time: OFFICE_HOURS },
        { policyName: 'broken', effect: 'EFFECT_ALLOW', notes: '', time: "CronSpan('0 9 * *', '8h', 'UTC')" },
      ],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/invalid policy time: parameters\.policies\[1\]\.time: CronSpan\(\) schedule: a cron schedule has 5 fields/);
    expect(await policies()).toEqual([]);
  });

  it('update_policy with a bad time leaves the stored one unchanged', async () => {
    const policyId = await createPolicy({ policyName: 'timed', time: OFFICE_HOURS });
    const activitiesBefore = await t.activityCount();
    const reply = await t.submit('update_policy', UPDATE_POLICY, { policyId, time: "CronSpan('*/5 * * * *', '1h', 'UTC')" });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/invalid policy time: parameters\.time: CronSpan\(\) schedule: minute field: steps/);
    expect((await t.query('get_policy', { policyId })).body.policy.time).toBe(OFFICE_HOURS);
    expect(await t.activityCount()).toBe(activitiesBefore);
  });
});
