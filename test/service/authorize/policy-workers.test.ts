/**
 * Issue 36, item 6: a costly policy decision holds up none of the service's other clients. A decision or a search of
 * who may vote is tried on the event loop within a slice of steps; one that outgrows it is made again on a policy
 * worker within the whole budget. The engine is deterministic, so both give the same answer: shown here over cheap
 * and costly jobs, one that runs out of the whole budget among them, with a real pool; and where each ran.
 */
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authorize, eligibilitySearch, INLINE_POLICY_STEPS, refusedBeforeDecoding } from '../../../src/service/authorize';
import { answerInFull, answerInSlice, type DecisionInput, type PolicyJob } from '../../../src/service/authorize/policy-jobs';
import { PolicyPool } from '../../../src/service/authorize/policy-pool';
import { PolicyTimestamp, conditionContextOf, type EnginePolicy } from '../../../src/shared/policy';
import { recordingPolicyWorkers } from '../../support/policy-workers';
import { countingSteps } from '../../unit/policy/step-count';
import { startTestService, type TestKey, type TestService } from '../../support/service';

const DIGITS = '[0,1,2,3,4,5,6,7,8,9]';
/** Four any/all deep over literal lists: about 23,000 steps, within one evaluation's budget but past the slice. */
const COSTLY = `${DIGITS}.all(a, ${DIGITS}.all(b, ${DIGITS}.all(c, ${DIGITS}.all(d, true))))`;
/** The same, false at its last element: about 34,000 steps. */
const COSTLY_FALSE = `${DIGITS}.all(a, ${DIGITS}.all(b, ${DIGITS}.all(c, ${DIGITS}.all(d, a != b))))`;

const policy = (id: string, effect: EnginePolicy['effect'], condition: string, consensus = ''): EnginePolicy => ({
  id,
  name: id,
  effect,
  condition,
  consensus,
  time: '',
});

const approver = {
  user: { id: 'user-dave', tags: ['tag-ops'], alias: 'dave' },
  credential: { id: 'key-dave', user_id: 'user-dave', type: 'CREDENTIAL_TYPE_API_KEY_P256', public_key: '02ab' },
};

function decision(policies: EnginePolicy[], condition = conditionContextOf('ACTIVITY_TYPE_CREATE_WALLET', {}, {}, undefined)): DecisionInput {
  return {
    policies,
    activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
    params: {},
    condition,
    approvers: [approver],
    rootQuorum: { userIds: ['user-root'], threshold: 1 },
    now: Date.UTC(2026, 10, 28),
  };
}

const costlyAllows = (count: number) =>
  Array.from({ length: count }, (_, index) => policy(`costly-${index}`, 'EFFECT_ALLOW', `${COSTLY_FALSE} || ${index} == 99`));

/**
 * The jobs, built anew on each call as the service builds each request's: the engine remembers a field's result per
 * context object, so a job answered once would answer from memory.
 */
const freshJobs = (): Record<string, PolicyJob> => ({
  'a cheap decision': { kind: 'decide', request: decision([policy('wallets', 'EFFECT_ALLOW', "activity.resource == 'WALLET'")]) },
  'a costly decision that allows': { kind: 'decide', request: decision([policy('costly', 'EFFECT_ALLOW', COSTLY)]) },
  'a decision that runs out of the whole budget': { kind: 'decide', request: decision(costlyAllows(10)) },
  'DENYs that alone run out the whole budget': {
    kind: 'decide',
    request: decision([...costlyAllows(2), ...costlyAllows(10).map((allow) => ({ ...allow, effect: 'EFFECT_DENY' as const }))]),
  },
  'a costly refusal before decoding': { kind: 'refused-before-decoding', request: decision([policy('costly', 'EFFECT_ALLOW', `${COSTLY_FALSE}`)]) },
  'a cheap refusal before decoding': {
    kind: 'refused-before-decoding',
    request: decision([policy('transfers', 'EFFECT_ALLOW', "eth.tx.to == '0x0000000000000000000000000000000000000001'")]),
  },
  // A timestamp is a class instance: it must cross to the worker as a timestamp, not as a struct.
  'a condition reading a timestamp the request carries': {
    kind: 'decide',
    request: decision([policy('before', 'EFFECT_ALLOW', `${COSTLY} && activity.params.at < Timestamp('2027-01-01T00:00:00Z')`)], {
      activity: {
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        kind: 'ACTIVITY_KIND_CREATE',
        params: { at: PolicyTimestamp.fromDate(new Date(Date.UTC(2026, 0, 1))) },
      },
    }),
  },
  'a search of who may vote, cheap': {
    kind: 'vote-eligibility',
    search: {
      userId: 'user-dave',
      users: [
        { user: approver.user, credentials: [approver.credential] },
        { user: { id: 'user-erin', tags: [] }, credentials: [{ ...approver.credential, id: 'key-erin', user_id: 'user-erin' }] },
      ],
      policies: [policy('two', 'EFFECT_ALLOW', '', 'approvers.count() >= 2')],
      condition: conditionContextOf('ACTIVITY_TYPE_CREATE_WALLET', {}, {}, undefined),
      now: Date.UTC(2026, 10, 28),
    },
  },
  'a search of who may vote that runs out of the whole budget': {
    kind: 'vote-eligibility',
    search: {
      userId: 'user-0',
      users: Array.from({ length: 100 }, (_, index) => ({
        user: { id: `user-${index}`, tags: [] },
        credentials: [{ ...approver.credential, id: `key-${index}`, user_id: `user-${index}` }],
      })),
      policies: [policy('pairwise', 'EFFECT_ALLOW', '', "approvers.count() >= 2 && approvers.all(a, approvers.all(b, b.id != ''))")],
      condition: conditionContextOf('ACTIVITY_TYPE_CREATE_WALLET', {}, {}, undefined),
      now: Date.UTC(2026, 10, 28),
    },
  },
});
const jobNames = Object.keys(freshJobs());
const job = (name: string): PolicyJob => freshJobs()[name]!;

describe('a policy job answers the same on the event loop and on a policy worker', () => {
  const pool = new PolicyPool();
  afterAll(() => pool.close());

  it.each(jobNames)('%s', async (name) => {
    const inline = answerInFull(job(name));
    expect(await pool.run(job(name))).toEqual(inline);
    // The slice answers only when it is certain to give the whole budget's answer.
    const slice = answerInSlice(job(name), INLINE_POLICY_STEPS);
    if (slice !== undefined) expect(slice).toEqual(inline);
  });

  it('the jobs cover both sides: some answered within the slice, the costly ones not, and both budgets run out', () => {
    const sliced = jobNames.map((name) => [name, answerInSlice(job(name), INLINE_POLICY_STEPS) !== undefined]);
    expect(Object.fromEntries(sliced)).toEqual({
      'a cheap decision': true,
      'a costly decision that allows': false,
      'a decision that runs out of the whole budget': false,
      'DENYs that alone run out the whole budget': false,
      'a costly refusal before decoding': false,
      'a cheap refusal before decoding': true,
      'a condition reading a timestamp the request carries': false,
      'a search of who may vote, cheap': true,
      'a search of who may vote that runs out of the whole budget': false,
    });
    expect(answerInFull(job('a costly decision that allows')).result).toMatchObject({ decision: 'allow', by: 'policy' });
    expect(answerInFull(job('a condition reading a timestamp the request carries')).result).toMatchObject({ decision: 'allow' });
    expect(answerInFull(job('a decision that runs out of the whole budget'))).toMatchObject({
      result: { decision: 'deny', reason: 'implicit' },
      log: expect.arrayContaining([expect.stringMatching(/^policy costly-9 \(costly-9\): condition could not be evaluated: TooCostly/)]),
    });
    expect(answerInFull(job('DENYs that alone run out the whole budget')).log).toContain(
      'the DENY policies took more than 250000 steps to evaluate in all; the request is denied',
    );
    expect(answerInFull(job('a search of who may vote that runs out of the whole budget')).result).toEqual({
      eligible: false,
      tooCostly: ['pairwise'],
    });
  });
});

describe('which jobs the event loop tries', () => {
  it('not one whose policies cost more than the slice by their static cost, though it would take few steps', () => {
    const unread = { kind: 'decide' as const, request: decision([policy('unread', 'EFFECT_ALLOW', `activity.resource == 'POLICY' && ${COSTLY}`)]) };
    expect(countingSteps(() => answerInFull(unread))).toMatchObject({ result: { result: { decision: 'deny' } }, steps: 5 });
    expect(answerInSlice(unread, INLINE_POLICY_STEPS)).toBeUndefined();
  });
});

describe('the policy pool', () => {
  it('a worker that dies fails its own job with a clear error, and the next job is answered by a new one', async () => {
    const entry = { file: pathToFileURL(`${import.meta.dirname}/../../support/crashing-policy-worker.ts`), execArgv: ['--import', 'tsx'] };
    const pool = new PolicyPool({ entry });
    // The activity type that worker dies on.
    const CRASHING_ACTIVITY_TYPE = 'CRASH_THE_POLICY_WORKER';
    try {
      const crashing: PolicyJob = { kind: 'decide', request: { ...decision([]), activityType: CRASHING_ACTIVITY_TYPE } };
      await expect(pool.run(crashing)).rejects.toMatchObject({
        code: 'SANDBOX_UNAVAILABLE',
        message: 'the policy worker deciding this request stopped (it exited with code 70); nothing was recorded; send it again',
      });
      expect(await pool.run(job('a costly decision that allows'))).toEqual(answerInFull(job('a costly decision that allows')));
    } finally {
      await pool.close();
    }
  });

  it('holds at most its queue bound of jobs waiting, refuses more, and fails those waiting when it closes', async () => {
    const pool = new PolicyPool({ size: 1, maxQueued: 1 });
    const costly = job('a costly decision that allows');
    const running = pool.run(costly);
    const waiting = pool.run(costly);
    await expect(pool.run(costly)).rejects.toMatchObject({
      code: 'SANDBOX_UNAVAILABLE',
      message: '1 costly policy decisions are already waiting for a policy worker; try again shortly',
    });
    const closing = pool.close();
    await expect(waiting).rejects.toMatchObject({
      code: 'SANDBOX_UNAVAILABLE',
      message: 'the service is shutting down; the policies were not evaluated',
    });
    await expect(running).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    await closing;
    await expect(pool.run(costly)).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
  });
});

describe('where the service decides', () => {
  let t: TestService;
  let dave: { userId: string; key: TestKey };
  beforeEach(async () => {
    t = await startTestService();
    dave = await t.addUser({ name: 'dave' });
  });
  afterEach(async () => {
    await t.close();
  });

  async function addPolicy(id: string, condition: string): Promise<void> {
    await t.store.transaction((tx) =>
      tx.policies.insert({
        id,
        organizationId: t.info.organizationId,
        name: id,
        effect: 'EFFECT_ALLOW',
        condition,
        consensus: '',
        time: '',
        notes: '',
        now: t.clock.now(),
      }),
    );
  }

  function request(workers: ReturnType<typeof recordingPolicyWorkers>, logged: string[]) {
    const key = t.store.read.apiKeys.listByUser(dave.userId)[0]!;
    return {
      store: t.store.read,
      organization: t.store.read.organizations.get(t.info.organizationId)!,
      activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
      params: {},
      resources: {},
      approvers: [{ userId: dave.userId, credential: { id: key.id, user_id: dave.userId, type: key.credentialType, public_key: key.publicKey } }],
      now: t.clock.now(),
      log: (line: string) => logged.push(line),
      policyWorkers: workers,
    };
  }

  it('an ordinary decision on the event loop; a costly one on a policy worker, whose log lines reach the service log', async () => {
    await addPolicy('wallets', "activity.resource == 'WALLET'");
    const workers = recordingPolicyWorkers();
    const logged: string[] = [];
    expect(await authorize(request(workers, logged))).toMatchObject({ decision: 'allow', by: 'policy' });
    expect(await refusedBeforeDecoding(request(workers, logged))).toBeUndefined();
    expect(workers.jobs).toEqual([]);

    await t.store.transaction((tx) => tx.policies.delete(t.info.organizationId, 'wallets'));
    await addPolicy('costly', COSTLY);
    for (let index = 0; index < 10; index += 1) await addPolicy(`costly-${index}`, `${COSTLY_FALSE} || ${index} == 99`);
    expect(await authorize(request(workers, logged))).toMatchObject({ decision: 'allow', by: 'policy' });
    expect(workers.jobs.map((job) => job.kind)).toEqual(['decide']);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.every((line) => /^policy costly-\d \(costly-\d\): condition could not be evaluated: TooCostly/.test(line))).toBe(true);
    expect(eligibilitySearch(request(workers, logged), 'no-such-user')).toBeUndefined();
  });

  it('a costly proposal over HTTP is decided on the service’s own policy worker', async () => {
    await addPolicy('costly', COSTLY);
    const proposed = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'w', accounts: [] }, { key: dave.key });
    expect(proposed.body.activity?.status, JSON.stringify(proposed.body)).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});
