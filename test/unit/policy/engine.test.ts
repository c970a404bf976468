import { describe, expect, it } from 'vitest';
import { conditionContextOf, decide, policyFieldHolds, type DecisionRequest, type EnginePolicy } from '../../../src/shared/policy';

const BEA = {
  user: { id: 'user-bea', tags: ['ops'] },
  credential: { id: 'key-bea', user_id: 'user-bea', type: 'CREDENTIAL_TYPE_API_KEY_P256', public_key: 'pub-bea' },
};

function allow(id: string, condition: string, consensus = 'true'): EnginePolicy {
  return { id, name: id, effect: 'EFFECT_ALLOW', condition, consensus, time: '' };
}

function walletRename(policies: EnginePolicy[], wallets: unknown[] = [], log?: (line: string) => void): DecisionRequest {
  const params = { walletId: 'wallet-1', walletName: 'Treasury 2' };
  return {
    policies,
    activityType: 'ACTIVITY_TYPE_UPDATE_WALLET',
    params,
    condition: conditionContextOf('ACTIVITY_TYPE_UPDATE_WALLET', params, { wallet: { id: 'wallet-1', label: 'Treasury' }, wallets }, undefined),
    approvers: [BEA],
    rootQuorum: { userIds: ['user-root'], threshold: 1 },
    now: Date.UTC(2026, 0, 5),
    ...(log === undefined ? {} : { log }),
  };
}

describe('the decision engine', () => {
  it('a policy reading a keyword the request lacks is OUTCOME_ERROR, logged with the keyword and where it is read', () => {
    const lines: string[] = [];
    const decision = decide(walletRename([allow('limit', "activity.resource == 'WALLET' && eth.tx.value < 10")], [], (line) => lines.push(line)));
    expect(decision).toMatchObject({ decision: 'deny', reason: 'implicit', evaluations: [{ policyId: 'limit', outcome: 'OUTCOME_ERROR' }] });
    expect(lines).toEqual([
      "policy limit (limit): condition could not be evaluated: MissingField: 'eth' is not available for this request (at 1:34)",
    ]);
    expect(policyFieldHolds('eth.tx.value < 10', 'condition', {})).toMatchObject({
      message: "MissingField: 'eth' is not available for this request (at 1:1)",
    });
  });

  it('engine errors at the last click: a keyword read after an operand that decides is never read', () => {
    const signingOnly = allow('usdc', "activity.resource == 'PRIVATE_KEY' && eth.tx.value < 10");
    const walletsOrSmall = allow('wallets', "activity.resource == 'WALLET' || eth.tx.value < 10");
    expect(decide(walletRename([signingOnly, walletsOrSmall])).evaluations).toEqual([
      { policyId: 'usdc', outcome: 'OUTCOME_NOT_APPLICABLE' },
      { policyId: 'wallets', outcome: 'OUTCOME_ALLOW' },
    ]);
  });

  it('a keyword read only inside an any() over an empty list is never read, so the policy still holds', () => {
    const decision = decide(walletRename([allow('empty-any', "activity.resource == 'WALLET' && !wallets.any(w, eth.tx.value > 0)")]));
    expect(decision).toMatchObject({ decision: 'allow', by: 'policy', evaluations: [{ policyId: 'empty-any', outcome: 'OUTCOME_ALLOW' }] });
    // Over a non-empty list the predicate runs and fails.
    expect(decide(walletRename([allow('any', '!wallets.any(w, eth.tx.value > 0)')], [{ id: 'w' }])).evaluations).toEqual([
      { policyId: 'any', outcome: 'OUTCOME_ERROR' },
    ]);
  });

  it('deciding the same request again, with policies edited, answers from the edited policies', () => {
    const request = walletRename([allow('wallets', "activity.resource == 'WALLET'", 'approvers.count() >= 1')]);
    expect(decide(request).decision).toBe('allow');
    const stricter = { ...request, policies: [allow('wallets', "activity.resource == 'WALLET'", 'approvers.count() >= 2')] };
    expect(decide(stricter).decision).toBe('consensus-needed');
    const elsewhere = { ...request, policies: [allow('wallets', "activity.resource == 'USER'", 'approvers.count() >= 1')] };
    expect(decide(elsewhere).decision).toBe('deny');
  });
});
