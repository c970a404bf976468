/**
 * Signing cards against a real local service: a non-root operator proposes an ERC-20 transfer above the limit of a
 * one-approver policy; the second operator's card shows the decoded call, the contract's label, the policy that
 * matched and "needs 1 more approver tagged ops"; their approval completes it and the signature recovers to the
 * wallet's address. Contract uploads are checked before they are submitted; the dry run gives every policy's verdict.
 */
import { encodeFunctionData, getAddress, maxUint256, recoverTransactionAddress, serializeTransaction } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { Readings } from '../../src/main/activities/readings';
import { Approvals } from '../../src/main/approvals/approvals';
import { ContractInterfaces, checkContractInterface } from '../../src/main/contracts/contracts';
import { Signing } from '../../src/main/signing/signing';
import { readOrganization } from '../../src/main/signing/organization';
import type { SigningRequest } from '../../src/main/signing/signing-request';
import type { AppSettings } from '../../src/shared/ipc/contract';
import { rejection } from '../support/assertions';
import { startTestBed, type TestBed } from './helpers';
import { ERC20, ERC20_JSON } from '../support/erc20';

const USDC = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const RECIPIENT = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
/** 1,000 USDC (6 decimals): transfers above it need two operators. */
const LIMIT = 1_000_000_000n;

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

function signingOf(bed: TestBed, index: number, warnAbove: AppSettings['warnAbove'] = {}): Signing {
  const operator = bed.operators[index]!;
  const approvals = new Approvals({ client: operator.client, stamper: operator.stamper, credential: { apiKeyName: 'operator' }, now: bed.clock.now });
  return new Signing({
    client: operator.client,
    settings: { get: async () => ({ warnAbove }) },
    tokens: { list: async () => [] },
    now: bed.clock.now,
    stampToFile: (path, body, file) => approvals.stampToFile(path, body, file),
  });
}

function erc20Call(data: `0x${string}`): string {
  return serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 7,
    to: USDC,
    value: 0n,
    data,
    gas: 60_000n,
    maxFeePerGas: 20_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
}

/** Root sets up: a wallet, the ops tag on the two other operators, the USDC ABI, and the two transfer policies. */
async function organization(bed: TestBed): Promise<{ address: string; opsTagId: string }> {
  const root = bed.operators[0]!.client;
  const wallet = await root.submit('create_wallet', {
    walletName: 'Treasury',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  if (wallet.state !== 'completed') throw new Error('wallet not created');
  const tag = await root.submit('create_user_tag', { userTagName: 'ops', userIds: bed.operators.slice(1).map((operator) => operator.userId) });
  if (tag.state !== 'completed') throw new Error('tag not created');
  const opsTagId = tag.result.userTagId;
  const upload = await new ContractInterfaces(root).create({
    type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
    address: USDC,
    label: 'USD Coin',
    definition: ERC20_JSON,
    chainId: 1,
  });
  expect(upload.state).toBe('completed');
  const ops = `user.tags.contains('${opsTagId}')`;
  for (const [policyName, condition, consensus] of [
    [
      'ops transfer up to 1000 USDC',
      `eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] <= ${LIMIT}`,
      `approvers.any(user, ${ops})`,
    ],
    [
      'two ops above 1000 USDC',
      `eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] > ${LIMIT}`,
      `approvers.filter(user, ${ops}).count() >= 2`,
    ],
  ] as const) {
    const created = await root.submit('create_policy', { policyName, effect: 'EFFECT_ALLOW', condition, consensus, notes: '' });
    expect(created.state).toBe('completed');
  }
  return { address: wallet.result.addresses[0]!, opsTagId };
}

describe('signing cards', () => {
  it('shows the second approver the decoded transfer, the matched policy and what consensus needs; their vote signs it', async () => {
    bed = await startTestBed(3);
    const { address } = await organization(bed);
    const request: SigningRequest = {
      operation: 'sign_transaction',
      signWith: address,
      unsignedTransaction: erc20Call(encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [RECIPIENT, 2_500_000_000n] })),
      type: 'TRANSACTION_TYPE_ETHEREUM',
    };

    const preview = await signingOf(bed, 1).preview(request);
    expect(preview.standing.outcome).toBe('NEEDS_CONSENSUS');
    const submitted = await signingOf(bed, 1).submit(request);
    expect(submitted.state).toBe('consensus-needed');

    const card = await signingOf(bed, 2).card(submitted.activity.id);
    const { description, standing } = card;
    // The card's lines come worded from the shared reader: the call with its arguments nested, the amount's source beside it.
    const fact = (label: string) => card.facts.find((line) => line.label === label);
    expect(fact('Network')?.value).toEqual([{ text: 'Ethereum (chain id 1)' }]);
    expect(fact('Signer')?.value[0]?.text).toContain('Treasury');
    expect(fact('To')?.value).toEqual([{ text: 'USD Coin · contract', id: USDC }]);
    expect(fact('Nonce')?.value).toEqual([{ text: '7' }]);
    expect(description.warnings.map((warning) => warning.kind)).toContain('NEW_RECIPIENT');
    const call = fact('Call');
    expect(call?.value).toEqual([{ text: 'transfer(address,uint256)', code: true }]);
    expect(call?.children?.find((fact) => fact.label === 'amount')?.value).toEqual([
      { text: '2,500 USDC' },
      { text: 'raw 2500000000', note: true },
      { text: 'known token list', note: true },
    ]);
    expect(preview.facts.map((fact) => fact.label)).toEqual(card.facts.map((fact) => fact.label));
    expect(standing.outcome).toBe('NEEDS_CONSENSUS');
    expect(standing.matchedPolicies).toEqual([
      expect.objectContaining({ policyName: 'two ops above 1000 USDC', effect: 'EFFECT_ALLOW', outcome: 'NEEDS_CONSENSUS' }),
    ]);
    expect(standing.consensusNeeds).toMatch(/^needs 1 more approver tagged ops/);
    expect(standing.viewerCanApprove).toBe(true);

    // The proposer has voted: their own card says so.
    expect((await signingOf(bed, 1).card(submitted.activity.id)).standing.viewerCanApprove).toBe(false);

    const approvals = new Approvals({
      client: bed.operators[2]!.client,
      stamper: bed.operators[2]!.stamper,
      credential: { apiKeyName: 'operator' },
      now: bed.clock.now,
    });
    await approvals.approve(submitted.activity.fingerprint);
    const done = await signingOf(bed, 2).result(submitted.activity.id);
    expect(done.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    if (done.result?.kind !== 'signed-transaction') throw new Error('no signed transaction');
    expect(await recoverTransactionAddress({ serializedTransaction: `0x${done.result.signedTransaction.replace(/^0x/, '')}` as never })).toBe(
      getAddress(address),
    );
  });

  it("reads the waiting request's list row as its card: same title, summary and warnings, and the policies' verdict", async () => {
    bed = await startTestBed(3);
    const { address } = await organization(bed);
    const submitted = await signingOf(bed, 1).submit({
      operation: 'sign_transaction',
      signWith: address,
      unsignedTransaction: erc20Call(encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [RECIPIENT, 2_500_000_000n] })),
      type: 'TRANSACTION_TYPE_ETHEREUM',
    });
    const viewer = bed.operators[2]!;
    const testBed = bed;
    const readings = new Readings({
      keychain: { listEncryptionKeys: async () => [] },
      tokens: { list: async () => [] },
      now: bed.clock.now,
      profileName: 'Operator 2',
      organization: () => readOrganization(viewer.client),
      signing: (snapshot) => signingOf(testBed, 2).readings(snapshot),
    });
    const { activities } = await viewer.client.query('list_activities', {});
    const [row] = await readings.of(activities.filter((activity) => activity.id === submitted.activity.id));
    const card = await signingOf(bed, 2).card(submitted.activity.id);

    expect(row?.kind).toBe('signing');
    expect(row?.title).toBe(card.description.title);
    expect(row?.summary).toBe(card.description.summary);
    // The history main holds: the recipient is new, which a reading without it could not say.
    expect(row?.warnings).toEqual(card.description.warnings.map((warning) => warning.message));
    expect(card.description.warnings.map((warning) => warning.kind)).toContain('NEW_RECIPIENT');
    expect(row?.verdict).toEqual(card.standing);
    // The wallet that created it is no signing activity: read without a verdict.
    const [creation] = await readings.of(activities.filter((activity) => activity.type === 'ACTIVITY_TYPE_CREATE_WALLET'));
    expect(creation).toMatchObject({ kind: 'activity', title: 'Create a wallet' });
    expect(creation?.verdict).toBeUndefined();
  });

  it('flags an unlimited approval and a value above the Settings threshold, and says when no policy allows', async () => {
    bed = await startTestBed(2);
    const { address } = await organization(bed);
    const approve: SigningRequest = {
      operation: 'sign_transaction',
      signWith: address,
      unsignedTransaction: erc20Call(encodeFunctionData({ abi: ERC20, functionName: 'approve', args: [RECIPIENT, maxUint256] })),
      type: 'TRANSACTION_TYPE_ETHEREUM',
    };
    const card = await signingOf(bed, 1).preview(approve);
    expect(card.description.warnings.map((warning) => warning.kind)).toContain('UNLIMITED_APPROVAL');
    expect(card.standing.outcome).toBe('NO_POLICY');
    expect(card.standing.consensusNeeds).toBe('no policy allows it: needs 1 more root quorum approval');

    const payment: SigningRequest = {
      operation: 'sign_transaction',
      signWith: address,
      unsignedTransaction: serializeTransaction({
        type: 'eip1559',
        chainId: 11155111,
        nonce: 0,
        to: RECIPIENT,
        value: 2n * 10n ** 18n,
        gas: 21_000n,
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
      }),
      type: 'TRANSACTION_TYPE_ETHEREUM',
    };
    const flagged = await signingOf(bed, 1, { ETH: '1.5' }).preview(payment);
    expect(flagged.facts.find((line) => line.label === 'Network')?.value[0]?.text).toMatch(/^Sepolia/);
    expect(flagged.description.warnings.map((warning) => warning.kind)).toContain('VALUE_ABOVE_THRESHOLD');
    const calm = await signingOf(bed, 1, { ETH: '2' }).preview(payment);
    expect(calm.description.warnings.map((warning) => warning.kind)).not.toContain('VALUE_ABOVE_THRESHOLD');
  });

  it('dry-runs a request against every policy without submitting it', async () => {
    bed = await startTestBed(2);
    const { address } = await organization(bed);
    const small: SigningRequest = {
      operation: 'sign_transaction',
      signWith: address,
      unsignedTransaction: erc20Call(encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [RECIPIENT, 5_000_000n] })),
      type: 'TRANSACTION_TYPE_ETHEREUM',
    };
    const dryRun = await signingOf(bed, 1).dryRun(small);
    expect(dryRun.policies.map((policy) => [policy.policyName, policy.verdict])).toEqual([
      ['ops transfer up to 1000 USDC', 'allow'],
      ['two ops above 1000 USDC', 'not applicable'],
    ]);
    expect([dryRun.standing.outcome, dryRun.standing.decidedBy]).toEqual(['ALLOW', 'policy']);
    const pending = await bed.operators[0]!.client.query('list_activities', { filterByType: ['ACTIVITY_TYPE_SIGN_TRANSACTION_V2'] });
    expect(pending.activities).toEqual([]);
  });

  it('dry-runs a request against a draft: the card, each policy as drafted, and who must still approve', async () => {
    bed = await startTestBed(3);
    const { address } = await organization(bed);
    const root = bed.operators[0]!.client;
    const { policies } = await root.query('list_policies', {});
    const policyId = (name: string) => policies.find((policy) => policy.policyName === name)!.policyId;
    const small: SigningRequest = {
      operation: 'sign_transaction',
      signWith: address,
      unsignedTransaction: erc20Call(encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [RECIPIENT, 5_000_000n] })),
      type: 'TRANSACTION_TYPE_ETHEREUM',
    };
    const limited = policies.find((policy) => policy.policyName === 'ops transfer up to 1000 USDC')!;
    const ops = limited.consensus.replace(/^approvers\.any\(user, (.*)\)$/, '$1');
    const draft = [
      { ...limited, policyName: 'ops transfer up to 1 USDC', condition: limited.condition.replace(`<= ${LIMIT}`, '<= 1000000') },
      {
        policyName: 'two ops for any USDC transfer',
        effect: 'EFFECT_ALLOW' as const,
        condition: `eth.tx.to == '${USDC}'`,
        consensus: `approvers.filter(user, ${ops}).count() >= 2`,
      },
      { policyId: policyId('two ops above 1000 USDC'), deleted: true as const },
    ];
    const viewer = signingOf(bed, 1);
    const dryRun = await viewer.dryRun(small, draft);
    expect(dryRun.description.summary).toMatch(/^Transfer 5 USDC to /);
    expect(dryRun.policies.map((policy) => [policy.policyName, policy.verdict])).toEqual([
      ['ops transfer up to 1 USDC', 'not applicable'],
      ['two ops for any USDC transfer', 'needs consensus'],
    ]);
    // The viewer's own approval counts; one more ops user completes it, as the approval card would say.
    const { users } = await root.query('list_users', {});
    const otherOpsId = bed.operators[2]!.userId;
    const otherOps = users.find((user) => user.userId === otherOpsId)!.userName;
    expect(dryRun.standing.outcome).toBe('NEEDS_CONSENSUS');
    expect(dryRun.standing.consensusNeeds).toBe('needs 1 more approver tagged ops (policy "two ops for any USDC transfer")');
    expect(dryRun.standing.stillToVote.map((voter) => voter.userName)).toContain(otherOps);
    // The saved policies are untouched and still allow it.
    expect((await viewer.dryRun(small)).standing.outcome).toBe('ALLOW');
    expect((await root.query('list_policies', {})).policies).toEqual(policies);
    const unknown = await rejection(viewer.dryRun(small, [{ policyId: 'no-such-policy', deleted: true }]));
    expect(unknown.message).toBe('draft [0].policyId: no current policy no-such-policy to delete');
  });

  it('refuses a card for an activity that signs nothing, and a signer the organization does not have', async () => {
    bed = await startTestBed(1);
    const { address } = await organization(bed);
    const { activities } = await bed.operators[0]!.client.query('list_activities', { filterByType: ['ACTIVITY_TYPE_CREATE_WALLET'] });
    const notSigning = await rejection(signingOf(bed, 0).card(activities[0]!.id));
    expect(notSigning.message).toMatch(/signs nothing/);
    const stranger = await rejection(
      signingOf(bed, 0).preview({
        operation: 'sign_raw_payload',
        signWith: RECIPIENT,
        payload: 'hi',
        encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
        hashFunction: 'HASH_FUNCTION_KECCAK256',
      }),
    );
    expect(stranger.message).toMatch(/is not a wallet account address, private key address or private key id/);
    const garbled = await rejection(
      signingOf(bed, 0).preview({ operation: 'sign_transaction', signWith: address, unsignedTransaction: 'zz', type: 'TRANSACTION_TYPE_ETHEREUM' }),
    );
    expect(garbled.code).toBe('ENCODING_INVALID');
  });
});

describe('contract interface checks', () => {
  it('reads an ABI through viem and names the entry that is wrong', () => {
    expect(checkContractInterface({ type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', address: USDC, definition: ERC20_JSON })).toBe('2 functions');
    expect(() => checkContractInterface({ type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', address: USDC, definition: '{' })).toThrow(
      /definition: is not JSON/,
    );
    expect(() =>
      checkContractInterface({
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        address: USDC,
        definition: JSON.stringify([{ type: 'function', name: 'f', inputs: [{ name: 'x', type: 'uint257' }] }]),
      }),
    ).toThrow(/ABI entry 0 \(function f\) is not valid/);
    expect(() => checkContractInterface({ type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', address: 'USDC', definition: ERC20_JSON })).toThrow(
      /is not an Ethereum address/,
    );
  });

  it('reads an Anchor IDL through Codama and refuses one without instructions', () => {
    const idl = {
      address: 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS',
      metadata: { name: 'counter', version: '0.1.0', spec: '0.1.0' },
      instructions: [
        {
          name: 'increment',
          discriminator: [11, 18, 104, 9, 104, 174, 59, 33],
          accounts: [{ name: 'counter', writable: true }],
          args: [{ name: 'by', type: 'u64' }],
        },
      ],
    };
    expect(checkContractInterface({ type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', address: idl.address, definition: JSON.stringify(idl) })).toBe(
      '1 instruction (counter)',
    );
    expect(() =>
      checkContractInterface({
        type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
        address: idl.address,
        definition: JSON.stringify({ instructions: 'none' }),
      }),
    ).toThrow(/an Anchor IDL is a JSON object with an "instructions" list/);
    expect(() => checkContractInterface({ type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', address: '0xabc', definition: JSON.stringify(idl) })).toThrow(
      /is not a Solana program id/,
    );
    const undecodable = { ...idl, instructions: [{ ...idl.instructions[0], args: [{ name: 'by', type: { defined: { name: 'Missing' } } }] }] };
    expect(() =>
      checkContractInterface({ type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', address: idl.address, definition: JSON.stringify(undecodable) }),
    ).toThrow(/definition: the IDL uploaded for program .* cannot be read/);
  });
});
