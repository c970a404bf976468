import { describe, expect, it } from 'vitest';
import { describeActivity, type OrganizationLookup } from '../../../src/shared/describe';
import { diffPolicyText } from '../../../src/shared/describe/policy-diff';
import { piecesInText, policyGlosses, readPolicyExpression, UNKNOWN_ID_NOTE } from '../../../src/shared/describe/policy-reading';
import { UNKNOWN_TOKEN_SOURCE } from '../../../src/shared/clear-signing/amounts';

const BEA = '5b1d2f1e-0c47-4a53-9c0e-2f1b8f6c7a10';
const ROOT = '0f4e8a52-1b9c-4d0e-8a3f-6c2d1e7b9a44';
const OPS = 'a3c5e7f9-2b4d-4f6a-8c1e-3d5f7a9b1c2e';
const GONE = '11111111-2222-4333-8444-555555555555';
const TREASURY = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const ACME = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';

const lookup: OrganizationLookup = {
  users: [
    { userId: BEA, userName: 'Bea', userTags: [OPS], apiKeys: [], authenticators: [], oauthProviders: [] },
    { userId: ROOT, userName: 'Root', userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] },
  ],
  tags: [{ tagId: OPS, tagName: 'ops' }],
  wallets: [{ walletId: TREASURY, walletName: 'Treasury', exported: false }],
  declaredTokens: [{ family: 'ethereum', chainId: 1, address: ACME, symbol: 'ACME', decimals: 2 }],
};

const SIGN = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'";

describe('a policy in words', () => {
  it('names the users and tags its ids stand for, and leaves the rest as written', () => {
    const text = `approvers.any(user, user.id == '${BEA}') || approvers.filter(user, user.tags.contains('${OPS}')).count() >= 2`;
    const pieces = readPolicyExpression(text, 'consensus', lookup);
    expect(pieces).toEqual([
      { text: 'approvers.any(user, user.id == ' },
      { text: `'${BEA}'`, name: 'Bea', kind: 'user' },
      { text: ') || approvers.filter(user, user.tags.contains(' },
      { text: `'${OPS}'`, name: 'ops', kind: 'tag' },
      { text: ')).count() >= 2' },
    ]);
    expect(pieces.map((piece) => piece.text).join('')).toBe(text);
    expect(piecesInText(pieces)).toBe(
      'approvers.any(user, user.id == «user Bea») || approvers.filter(user, user.tags.contains(«tag ops»)).count() >= 2',
    );
  });

  it('leaves an unknown id as the id, with a note; also where an id is expected but not shaped like one', () => {
    const pieces = readPolicyExpression(`wallet.id in ['${GONE}', 'w-1'] || wallet.id == '${TREASURY}'`, 'condition', lookup);
    expect(pieces.filter((piece) => piece.note !== undefined || piece.name !== undefined)).toEqual([
      { text: `'${GONE}'`, note: UNKNOWN_ID_NOTE },
      { text: "'w-1'", note: UNKNOWN_ID_NOTE },
      { text: `'${TREASURY}'`, name: 'Treasury', kind: 'wallet' },
    ]);
  });

  it('reads an ERC-20 amount in the units of the contract the condition names, beside its base units', () => {
    const condition = `${SIGN} && eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] <= 1000000000`;
    const amount = readPolicyExpression(condition, 'condition', lookup).find((piece) => piece.units !== undefined);
    expect(amount).toEqual({ text: '1000000000', units: '1,000 USDC', note: 'known token list' });
  });

  it('reads a declared token, a value in ETH and a SOL transfer in SOL', () => {
    const declared = readPolicyExpression(`eth.tx.to == '${ACME.toLowerCase()}' && 250000 < eth.tx.contract_call_args['value']`, 'condition', lookup);
    expect(declared.find((piece) => piece.units !== undefined)).toEqual({ text: '250000', units: '2,500 ACME', note: 'declared by an operator' });
    const ether = readPolicyExpression('eth.tx.value > 1500000000000000000', 'condition', lookup);
    expect(ether.at(-1)).toEqual({ text: '1500000000000000000', units: '1.5 ETH' });
    const sol = readPolicyExpression('solana.tx.transfers.all(t, t.amount <= 2000000000)', 'condition', lookup);
    expect(sol.find((piece) => piece.units !== undefined)).toEqual({ text: '2000000000', units: '2 SOL' });
  });

  it('keeps base units and says why when the token is unknown, unnamed or differs by chain', () => {
    const unknown = readPolicyExpression(
      `eth.tx.to == '0x0000000000000000000000000000000000000001' && eth.tx.contract_call_args['amount'] < 5`,
      'condition',
      lookup,
    );
    expect(unknown.at(-1)).toEqual({ text: '5', note: UNKNOWN_TOKEN_SOURCE });
    const unnamed = readPolicyExpression("eth.tx.contract_call_args['amount'] < 5", 'condition', lookup);
    expect(unnamed.at(-1)).toEqual({ text: '5', note: 'base units: the condition names no token contract (eth.tx.to)' });
    // Only the `&&` around the comparison counts: a contract named under `||` says nothing about it.
    const elsewhere = readPolicyExpression(`eth.tx.to == '${USDC}' || eth.tx.contract_call_args['amount'] < 5`, 'condition', lookup);
    expect(elsewhere.at(-1)?.note).toBe('base units: the condition names no token contract (eth.tx.to)');
    // WETH's OP-stack address is WETH on two chains with the same decimals; a chain id narrows a listing.
    const sepolia = readPolicyExpression(
      `eth.tx.chain_id == 1 && eth.tx.to == '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' && eth.tx.contract_call_args['amount'] < 5`,
      'condition',
      lookup,
    );
    expect(sepolia.at(-1)).toEqual({ text: '5', note: UNKNOWN_TOKEN_SOURCE });
  });

  it('still names ids in an expression that does not check, and reads no amount from it', () => {
    const pieces = readPolicyExpression(`approvers.any(user, user.idd == '${BEA}') && eth.tx.value < 5`, 'consensus', lookup);
    expect(pieces.filter((piece) => piece.name !== undefined || piece.units !== undefined)).toEqual([
      { text: `'${BEA}'`, name: 'Bea', kind: 'user' },
    ]);
  });

  it('is what an approval of a new policy shows, with its notes, when main passes the reader', () => {
    const described = describeActivity(
      {
        type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
        intent: {
          createPolicyIntentV3: {
            policyName: 'Bea alone',
            effect: 'EFFECT_ALLOW',
            condition: '',
            consensus: `approvers.any(user, user.id == '${BEA}')`,
            notes: 'for emergencies',
          },
        },
      },
      lookup,
      { readPolicy: (text, kind) => piecesInText(readPolicyExpression(text, kind, lookup)) },
    );
    expect(described.changes.find((change) => change.label === 'Consensus')?.after).toEqual([
      { text: 'approvers.any(user, user.id == «user Bea»)', code: true },
    ]);
    expect(described.changes.find((change) => change.label === 'Notes')?.after).toEqual([{ text: 'for emergencies' }]);
  });
});

describe('an update, token by token', () => {
  const side = (text: string) => ({ text, glosses: policyGlosses(text, 'condition', lookup) });

  it('marks only the changed literal, with digits grouped and the units of both', () => {
    const before = `${SIGN} && eth.tx.to == '${USDC}' && eth.tx.contract_call_args['amount'] <= 1000000000`;
    const after = before.replace('1000000000', '2000000000');
    const pieces = diffPolicyText(side(before), side(after), { groupDigits: true });
    expect(pieces.filter((piece) => piece.change !== 'same')).toEqual([
      { text: '1,000,000,000', units: '1,000 USDC', note: 'known token list', change: 'removed' },
      { text: '2,000,000,000', units: '2,000 USDC', note: 'known token list', change: 'added' },
    ]);
    expect(
      pieces
        .filter((piece) => piece.change !== 'added')
        .map((piece) => piece.text)
        .join(''),
    ).toBe(before.replace('1000000000', '1,000,000,000'));
  });

  it('keeps names on ids it did not change and shows a swapped id by name', () => {
    const before = `approvers.any(user, user.id == '${BEA}')`;
    const after = `approvers.any(user, user.id == '${ROOT}')`;
    const changed = diffPolicyText(
      { text: before, glosses: policyGlosses(before, 'consensus', lookup) },
      { text: after, glosses: policyGlosses(after, 'consensus', lookup) },
      { groupDigits: true },
    ).filter((piece) => piece.change !== 'same');
    expect(changed).toEqual([
      { text: `'${BEA}'`, name: 'Bea', kind: 'user', change: 'removed' },
      { text: `'${ROOT}'`, name: 'Root', kind: 'user', change: 'added' },
    ]);
  });

  it('diffs notes word by word without grouping their digits', () => {
    const pieces = diffPolicyText(
      { text: 'up to 1000 USDC a day', glosses: [] },
      { text: 'up to 2000 USDC a week', glosses: [] },
      { groupDigits: false },
    );
    expect(pieces).toEqual([
      { text: 'up to ', change: 'same' },
      { text: '1000', change: 'removed' },
      { text: '2000', change: 'added' },
      { text: ' USDC a ', change: 'same' },
      { text: 'day', change: 'removed' },
      { text: 'week', change: 'added' },
    ]);
  });
});
