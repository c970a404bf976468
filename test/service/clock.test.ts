/**
 * The Sandbox's clock (docs/sandbox.md#the-clock): moved forward through POST /sandbox/v1/clock only when the service
 * was started with clock control, by a root quorum member; an approval after 24 h of Sandbox time opens a new window.
 */
import { Turnkey } from '@turnkey/sdk-server';
import { afterEach, describe, expect, it } from 'vitest';
import { copySeedFixture, type SeedCopy } from '../support/seed';
import { refusal, startTestService, type TestKey, type TestService } from '../support/service';

const DAY_MS = 24 * 60 * 60 * 1000;
const copies: SeedCopy[] = [];
const services: TestService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
  for (const copy of copies.splice(0)) copy.remove();
});

/** The two-of-two fixture: Alice and Bob must both approve. */
async function seeded(clockControl: boolean) {
  const copy = copySeedFixture('two-of-two.yaml');
  copies.push(copy);
  const t = await startTestService({ seed: { file: copy, rootKeyFile: 'alice.key.json' }, clockControl });
  services.push(t);
  return { t, alice: copy.key('alice.key.json'), bob: copy.key('bob.key.json'), carol: copy.key('carol.key.json') };
}

const moveClock = (t: TestService, change: Record<string, string>, key?: TestKey) =>
  t.post('/sandbox/v1/clock', { organizationId: t.info.organizationId, ...change }, key === undefined ? {} : { key });

describe('the clock route', () => {
  it('reads the time, but refuses to move it unless the service was started with clock control', async () => {
    const { t } = await seeded(false);
    const read = await moveClock(t, {});
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ nowMs: String(t.clock.now()), aheadMs: '0', controllable: false });
    const refused = await moveClock(t, { advanceMs: String(DAY_MS) });
    expect(refusal(refused)).toEqual([400, 'FAILED_PRECONDITION']);
    expect(refused.body.message).toContain('--clock-control');
    expect((await moveClock(t, {})).body.aheadMs).toBe('0');
  });

  it('moves forward by or to a time, never back, and only for a root quorum member of the root organization', async () => {
    const { t, carol } = await seeded(true);
    const advanced = await moveClock(t, { advanceMs: '5000' });
    expect(advanced.body).toEqual({ nowMs: String(t.clock.now() + 5000), aheadMs: '5000', controllable: true });
    const set = await moveClock(t, { setMs: String(t.clock.now() + DAY_MS) });
    expect(set.body.aheadMs).toBe(String(DAY_MS));
    const back = await moveClock(t, { setMs: String(t.clock.now()) });
    expect(refusal(back)).toEqual([400, 'REQUEST_INVALID']);
    expect(back.body.message).toMatch(/only moves forward/);
    expect(refusal(await moveClock(t, { advanceMs: '1', setMs: '1' }))).toEqual([400, 'REQUEST_INVALID']);
    expect(refusal(await moveClock(t, { advanceMs: '-5' }))).toEqual([400, 'REQUEST_INVALID']);
    // Carol is root of a sub-organization only.
    const byCarol = await t.post('/sandbox/v1/clock', { organizationId: '5e5e5e5e-0000-4000-8000-000000000001', advanceMs: '1' }, { key: carol });
    expect(refusal(byCarol)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    expect(refusal(await t.post('/sandbox/v1/clock', { organizationId: t.info.organizationId }, { unstamped: true }))).toEqual([
      401,
      'SIGNATURE_MISSING',
    ]);
    expect((await moveClock(t, {})).body.aheadMs).toBe(String(DAY_MS));
  });
});

describe('the consensus window on Sandbox time', () => {
  it("an approval after 24 h of Sandbox time opens a new window: Alice's proposal no longer counts until she approves again", async () => {
    const { t, alice, bob } = await seeded(true);
    const client = (key: TestKey) =>
      new Turnkey({
        apiBaseUrl: t.info.baseUrl,
        apiPublicKey: key.publicKey,
        apiPrivateKey: key.privateKey,
        defaultOrganizationId: t.info.organizationId,
        activityPoller: { intervalMs: 20, numRetries: 1 },
      }).apiClient();
    const proposed = await client(alice).createPolicy({ policyName: 'after a day', effect: 'EFFECT_ALLOW', notes: '' });
    expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');

    expect((await moveClock(t, { advanceMs: String(DAY_MS + 1) })).status).toBe(200);
    // The SDK stamps timestampMs by the wall clock, which the Sandbox's move does not make stale.
    const byBob = await client(bob).approveActivity({ fingerprint: proposed.activity.fingerprint });
    expect(byBob.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const byAlice = await client(alice).approveActivity({ fingerprint: proposed.activity.fingerprint });
    expect(byAlice.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(byAlice.activity.votes.map((vote) => vote.userId)).toEqual([t.info.rootUserId, '66666666-7777-4888-8999-aaaaaaaaaaaa', t.info.rootUserId]);
  });

  it('without the move, the same approval completes it in the first window', async () => {
    const { t, bob } = await seeded(true);
    const proposed = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'within a day',
      effect: 'EFFECT_ALLOW',
      notes: '',
    });
    expect((await moveClock(t, { advanceMs: String(DAY_MS - 60_000) })).status).toBe(200);
    const approved = await t.submit(
      'approve_activity',
      'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      { fingerprint: proposed.body.activity.fingerprint },
      { key: bob },
    );
    expect(approved.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});
