import { describe, expect, it } from 'vitest';
import {
  checkPolicyExpression,
  decide,
  explain,
  explainDecision,
  explainPolicyField,
  type EnginePolicy,
  type PolicyContext,
  type PolicyExpressionKind,
} from '../../../src/shared/policy';

const alice = { id: 'u-alice', tags: ['t-security'], alias: 'Alice' };
const bob = { id: 'u-bob', tags: ['t-ops'], alias: 'Bob' };
const carol = { id: 'u-carol', tags: ['t-ops'], alias: 'Carol' };

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const transfer: PolicyContext = {
  activity: { type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', kind: 'SIGN_TRANSACTION', resource: 'PRIVATE_KEY', action: 'SIGN', params: {} },
  eth: {
    tx: {
      to: USDC,
      value: 2_000_000_000_000_000_000n,
      chain_id: 1n,
      function_name: 'transfer',
      contract_call_args: { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount: 2_500_000_000n },
    },
  },
};

/** The explanation with each read's span left out (the parts' spans are checked where they matter). */
function explained(text: string, kind: PolicyExpressionKind, context: PolicyContext) {
  const checked = checkPolicyExpression(text, kind);
  if (!checked.ok) throw checked.error;
  const explanation = explain(checked.ast, text, context);
  return {
    ...explanation,
    parts: explanation.parts.map((part) => ({ ...part, reads: part.reads.map(({ expression, value }) => ({ expression, value })) })),
  };
}

describe('explain: the sub-expression that decided, with the values it read', () => {
  it('names the false operand of an && and the request value it compared', () => {
    const why = explained(`eth.tx.to == '${USDC}' && eth.tx.contract_call_args['amount'] <= 1000000000`, 'condition', transfer);
    expect(why.outcome).toBe('false');
    expect(why.parts).toEqual([
      {
        span: { offset: 61, line: 1, column: 62, length: 49 },
        text: "eth.tx.contract_call_args['amount'] <= 1000000000",
        outcome: 'false',
        reads: [{ expression: "eth.tx.contract_call_args['amount']", value: '2500000000' }],
      },
    ]);
  });

  it('reads what a consensus counted', () => {
    const why = explained("approvers.filter(user, user.tags.contains('t-ops')).count() >= 2", 'consensus', { approvers: [alice, bob] });
    expect(why.outcome).toBe('false');
    expect(why.parts.map(({ text, reads }) => ({ text, reads }))).toEqual([
      {
        text: "approvers.filter(user, user.tags.contains('t-ops')).count() >= 2",
        reads: [{ expression: "approvers.filter(user, user.tags.contains('t-ops')).count()", value: '1' }],
      },
    ]);
  });

  it('names the element that made all() false, and what the predicate read of it', () => {
    const why = explained("approvers.all(user, user.tags.contains('t-ops'))", 'consensus', { approvers: [bob, alice, carol] });
    expect(why.outcome).toBe('false');
    expect(why.parts).toHaveLength(1);
    expect(why.parts[0]!.text).toBe("user.tags.contains('t-ops')");
    expect(why.parts[0]!.reads).toEqual([
      { expression: 'user', value: 'user = item 2 of 3 in approvers' },
      { expression: 'user.tags', value: "['t-security']" },
    ]);
  });

  it('passes through ! and lists every operand of a true &&', () => {
    const why = explained("!(eth.tx.chain_id == 5) && eth.tx.function_name in ['transfer', 'approve']", 'condition', transfer);
    expect(why.outcome).toBe('true');
    expect(why.parts.map((part) => [part.text, part.outcome, part.reads])).toEqual([
      ['(eth.tx.chain_id == 5)', 'false', [{ expression: 'eth.tx.chain_id', value: '1' }]],
      ["eth.tx.function_name in ['transfer', 'approve']", 'true', [{ expression: 'eth.tx.function_name', value: "'transfer'" }]],
    ]);
  });

  it('gives the first true operand of a true ||', () => {
    const why = explained("eth.tx.chain_id == 1 || eth.tx.to == '0x0000000000000000000000000000000000000000'", 'condition', transfer);
    expect(why.parts.map((part) => part.text)).toEqual(['eth.tx.chain_id == 1']);
  });

  it('explains an error by the comparison around it, with why in words (no engine message) and what could be read', () => {
    const why = explained(`eth.tx.to == '${USDC}' && eth.tx.contract_call_args['amout'] <= 1000000000`, 'condition', transfer);
    expect(why.outcome).toBe('error');
    expect(why.parts).toHaveLength(1);
    const [part] = why.parts;
    expect(part!.text).toBe("eth.tx.contract_call_args['amout'] <= 1000000000");
    expect(part!.outcome).toBe('error');
    expect(part!.error).toBe('it reads eth.tx.contract_call_args.amout, which this request lacks');
    expect(part!.reads).toEqual([
      {
        expression: "eth.tx.contract_call_args['amout']",
        value: 'cannot be read (it reads eth.tx.contract_call_args.amout, which this request lacks)',
      },
    ]);
  });

  it('explains an empty field as nothing and one that does not parse by its parse error', () => {
    expect(explainPolicyField('  ', 'condition', transfer)).toBeUndefined();
    const broken = explainPolicyField('eth.tx.valu > 1', 'condition', transfer);
    expect(broken?.outcome).toBe('error');
    expect(broken?.parts[0]?.error).toMatch(/no field 'valu'/);
  });
});

describe('explainDecision: the second pass over the policies that decided', () => {
  const policy = (id: string, effect: EnginePolicy['effect'], condition: string, consensus: string): EnginePolicy => ({
    id,
    name: id,
    effect,
    condition,
    consensus,
    time: '',
  });
  const request = (policies: EnginePolicy[], approvers: (typeof alice)[]) => ({
    policies,
    activityType: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
    params: {},
    condition: transfer,
    approvers: approvers.map((user) => ({
      user,
      credential: { id: `c-${user.id}`, user_id: user.id, type: 'CREDENTIAL_TYPE_API_KEY_P256', public_key: '02' },
    })),
    rootQuorum: { userIds: ['u-root'], threshold: 1 },
    now: Date.UTC(2026, 0, 1),
  });
  const limit = policy('up to 1000', 'EFFECT_ALLOW', "eth.tx.contract_call_args['amount'] <= 1000000000", '');
  const twoOps = policy(
    'two ops above',
    'EFFECT_ALLOW',
    "eth.tx.contract_call_args['amount'] > 1000000000",
    "approvers.filter(user, user.tags.contains('t-ops')).count() >= 2",
  );

  it('a wait for votes is explained by the unmet consensus of the waiting policy', () => {
    const input = request([limit, twoOps], [bob]);
    const authorization = decide(input);
    expect(authorization.decision).toBe('consensus-needed');
    const why = explainDecision(input, authorization);
    expect(why.map(({ policyId, field, explanation }) => [policyId, field, explanation.outcome, explanation.parts[0]?.reads])).toEqual([
      [
        'two ops above',
        'consensus',
        'false',
        [{ expression: "approvers.filter(user, user.tags.contains('t-ops')).count()", span: expect.objectContaining({ offset: 0 }), value: '1' }],
      ],
    ]);
  });

  it('a denial for want of an allow is explained by each allow that did not apply', () => {
    const input = request([limit], [bob]);
    const authorization = decide(input);
    expect(authorization).toMatchObject({ decision: 'deny', reason: 'implicit' });
    const [why] = explainDecision(input, authorization);
    expect(why).toMatchObject({ policyId: 'up to 1000', field: 'condition', explanation: { outcome: 'false' } });
    expect(why!.explanation.parts[0]!.reads).toEqual([
      { expression: "eth.tx.contract_call_args['amount']", span: expect.objectContaining({ offset: 0, length: 35 }), value: '2500000000' },
    ]);
  });

  it('an explicit deny is explained by its matching condition; an allow is not explained', () => {
    const deny = policy('no mainnet', 'EFFECT_DENY', 'eth.tx.chain_id == 1', '');
    const input = request([deny, twoOps], [bob, carol]);
    const authorization = decide(input);
    expect(authorization).toMatchObject({ decision: 'deny', reason: 'explicit' });
    expect(explainDecision(input, authorization).map((why) => [why.policyId, why.field, why.explanation.outcome])).toEqual([
      ['no mainnet', 'condition', 'true'],
    ]);
    const allowed = request([twoOps], [bob, carol]);
    expect(explainDecision(allowed, decide(allowed))).toEqual([]);
  });

  it('an allow that errs is explained by its failing field', () => {
    const typo = policy('typo', 'EFFECT_ALLOW', "eth.tx.contract_call_args['amout'] <= 1000000000", '');
    const input = request([typo], [bob]);
    const [why] = explainDecision(input, decide(input));
    expect(why).toMatchObject({ policyId: 'typo', field: 'condition', explanation: { outcome: 'error' } });
  });
});
