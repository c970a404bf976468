/**
 * The policy editor's signing tools: completions come from the checker's schema (so every completion checks), and
 * every signing template is accepted by the checker and means what it says when the shared evaluator runs it.
 */
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { completionsAt } from '../../../src/renderer/src/policy/completions';
import {
  aboveNeedsTwoTemplate,
  allowlistBelowTemplate,
  contractFunctionTemplate,
  denyChainTemplate,
} from '../../../src/renderer/src/policy/signing-templates';
import { checkPolicyExpression, evaluatePolicyExpression, type PolicyContext, type PolicyStruct } from '../../../src/shared/policy';

const USDC = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');

function names(text: string, kind: 'condition' | 'consensus' = 'condition', caret = text.length): string[] {
  return completionsAt(text, caret, kind).completions.map((completion) => completion.insert);
}

describe('completions', () => {
  it('offers the chains’ transaction fields from the schema', () => {
    expect(names('eth.tx.')).toEqual(expect.arrayContaining(['to', 'value', 'chain_id', 'function_name', 'contract_call_args']));
    expect(names('eth.tx.fu')).toEqual(['function_name', 'function_signature']);
    expect(names('eth.')).toEqual(['tx', 'eip_712', 'eip_7702_authorization']);
    expect(names('eth.eip_712.domain.')).toEqual(['name', 'version', 'chain_id', 'verifying_contract']);
    expect(names('solana.tx.spl')).toEqual(['spl_transfers']);
    expect(names('bitcoin.tx.')).toEqual(expect.arrayContaining(['inputs', 'outputs', 'fee', 'locktime']));
    expect(names('so')).toEqual(['solana']);
  });

  it('knows lists, lambda variables and the roots of each kind, and offers nothing after an unknown name', () => {
    expect(names('approvers.', 'consensus')).toEqual(['count()', 'any(', 'all(', 'filter(', 'contains(']);
    expect(names('approvers.any(user, user.', 'consensus')).toEqual(['id', 'tags', 'email', 'alias']);
    expect(names('solana.tx.transfers.all(t, t.a')).toEqual(['amount']);
    expect(names('eth', 'consensus')).toEqual([]);
    expect(names('nothing.')).toEqual([]);
    expect(names("activity.type == 'x' && ")).toEqual([]);
    // Only what is before the caret counts.
    expect(names('eth.tx.to == eth.tx.value', 'condition', 'eth.tx.'.length)).toEqual(expect.arrayContaining(['to', 'value']));
  });

  it('completes to fields the checker types as the completion says', () => {
    const sample: Record<string, string> = { string: "''", int: '0', bool: 'true' };
    for (const { insert, detail } of completionsAt('eth.tx.', 'eth.tx.'.length, 'condition').completions) {
      const expression = detail === 'map' ? `eth.tx.${insert}['amount'] == 0` : `eth.tx.${insert} == ${sample[detail]}`;
      expect(checkPolicyExpression(expression, 'condition').ok, expression).toBe(true);
    }
    expect(checkPolicyExpression("eth.tx.value == ''", 'condition').ok).toBe(false);
  });
});

const signing = (tx: PolicyStruct): PolicyContext => ({
  activity: { type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', kind: 'SIGN_TRANSACTION', params: {} },
  eth: { tx },
});
const holds = (text: string, kind: 'condition' | 'consensus', context: PolicyContext) => {
  const result = evaluatePolicyExpression(text, kind, context);
  if (!result.ok) throw result.error;
  return result.value;
};
const approvers = (...tags: string[][]): PolicyContext => ({ approvers: tags.map((userTags, index) => ({ id: `u${index}`, tags: userTags })) });

const OPS = { id: 'ops', name: 'operations' };

describe('signing templates', () => {
  it('allowlist below an amount: checksummed recipients, the limit in wei, one tagged approver', () => {
    const draft = allowlistBelowTemplate([ALICE.toLowerCase()], '0.5', OPS);
    expect(draft.condition).toContain(`'${ALICE}'`);
    // The tag is picked by name: the expression holds its id, the notes its name.
    expect(draft.notes).toBe(
      'One approver tagged operations may sign transfers of less than 0.5 ETH to this address. ' +
        'The proposer’s own approval counts: one of them who proposes it is one of those approvals already.',
    );
    expect(holds(draft.condition, 'condition', signing({ to: ALICE, value: 499_999_999_999_999_999n }))).toBe(true);
    expect(holds(draft.condition, 'condition', signing({ to: ALICE, value: 500_000_000_000_000_000n }))).toBe(false);
    expect(holds(draft.condition, 'condition', signing({ to: USDC, value: 1n }))).toBe(false);
    expect(holds(draft.consensus, 'consensus', approvers(['ops']))).toBe(true);
    expect(holds(draft.consensus, 'consensus', approvers(['finance']))).toBe(false);
    expect(() => allowlistBelowTemplate(['0x123'], '1', OPS)).toThrow(/is not an Ethereum address/);
    expect(() => allowlistBelowTemplate([ALICE], 'lots', OPS)).toThrow(/give an amount in ETH/);
  });

  it('above an amount needs two of the tag', () => {
    const draft = aboveNeedsTwoTemplate('10', OPS);
    expect(holds(draft.condition, 'condition', signing({ to: ALICE, value: 10n ** 19n + 1n }))).toBe(true);
    expect(holds(draft.condition, 'condition', signing({ to: ALICE, value: 10n ** 19n }))).toBe(false);
    expect(holds(draft.consensus, 'consensus', approvers(['ops'], ['ops']))).toBe(true);
    expect(holds(draft.consensus, 'consensus', approvers(['ops'], ['finance']))).toBe(false);
  });

  it('only one function of one contract, and deny a chain', () => {
    const only = contractFunctionTemplate(USDC.toLowerCase(), 'transfer', OPS);
    expect(holds(only.condition, 'condition', signing({ to: USDC, function_name: 'transfer' }))).toBe(true);
    expect(holds(only.condition, 'condition', signing({ to: USDC, function_name: 'approve' }))).toBe(false);
    expect(() => contractFunctionTemplate(USDC, "x' || true || '", OPS)).toThrow(/is not a function name/);
    const deny = denyChainTemplate('56');
    expect(deny.effect).toBe('EFFECT_DENY');
    expect(holds(deny.condition, 'condition', signing({ chain_id: 56n }))).toBe(true);
    expect(holds(deny.condition, 'condition', signing({ chain_id: 1n }))).toBe(false);
    expect(() => denyChainTemplate('0x38')).toThrow(/give a chain id/);
  });
});
