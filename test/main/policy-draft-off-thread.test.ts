/**
 * Policy evaluation has no work bound: a draft's rehearsal and dry run run on a worker thread, so a costly draft
 * leaves main's event loop turning, and they answer what the same evaluation in main answers.
 */
import { describe, expect, it } from 'vitest';
import { rehearseOffThread, standingOffThread } from '../../src/main/policies/off-thread';
import { rehearse } from '../../src/main/policies/rehearsal';
import type { OrganizationSnapshot } from '../../src/main/signing/organization';
import { standingIn } from '../../src/main/signing/policy-standing';
import { BEA, fixturePolicy, mixedHistory } from '../support/rehearsal-history';

const DIGITS = '[0,1,2,3,4,5,6,7,8,9]';
/** Four comprehensions deep over ten digits: 23,332 steps, within the budget, evaluated for every activity. */
const COSTLY = `${DIGITS}.all(a, ${DIGITS}.all(b, ${DIGITS}.all(c, ${DIGITS}.all(d, true))))`;

/** How many times a 1 ms timer fired while `work` ran: none when it held the event loop throughout. */
async function timerTurnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  const timer = setInterval(() => (turns += 1), 1);
  try {
    const value = await work();
    return { value, turns };
  } finally {
    clearInterval(timer);
  }
}

describe('policy evaluation has no work bound: drafts are evaluated off main’s event loop', () => {
  it('rehearses a costly draft on a worker thread, with the report main would have computed', async () => {
    const history = mixedHistory({ activities: 20, limits: 2 });
    const draft = [fixturePolicy('costly', COSTLY, 'approvers.count() >= 1')].map(({ policyName, effect, condition, consensus, notes }) => ({
      policyName,
      effect,
      condition,
      consensus,
      notes,
    }));
    const { value, turns } = await timerTurnsDuring(() => rehearseOffThread(history, draft));
    expect(value).toEqual(rehearse(history, draft));
    expect(value.replayed).toBe(20);
    expect(turns).toBeGreaterThan(5);
  });

  it('reads a dry run’s standing on a worker thread, as main would', async () => {
    const history = mixedHistory({ activities: 0, limits: 1 });
    const snapshot: OrganizationSnapshot = {
      viewer: { userId: BEA, username: BEA, organizationId: 'org', organizationName: 'Org' },
      wallets: [...history.wallets],
      accounts: [...history.walletAccounts],
      privateKeys: [],
      contracts: [],
      policies: [...history.policies],
      users: [...history.users],
      tags: [],
      rootQuorum: { threshold: 1, userIds: ['user-root'] },
    };
    const request = {
      activityType: 'ACTIVITY_TYPE_UPDATE_WALLET',
      params: { walletId: 'wallet-1', walletName: 'Treasury 2' },
      resources: {},
      approverIds: [BEA],
      nowMs: Date.UTC(2026, 0, 5),
    };
    const policies = [...history.policies, fixturePolicy('costly', COSTLY, 'approvers.count() >= 2')];
    const { value } = await timerTurnsDuring(() => standingOffThread(snapshot, request, policies));
    expect(value).toEqual(standingIn(snapshot, request, policies));
    expect(value.evaluations.find((evaluation) => evaluation.policyId === 'costly')?.verdict).toBe('needs consensus');
  });
});
