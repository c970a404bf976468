/** The policy linter as main serves it: its inputs read from a real local service. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { lintCommand } from '../../src/main/cli/lint-command';
import type { SmartContractInterface } from '../../src/shared/api';
import { interfaceNames, lintDraftPolicy } from '../../src/main/policies/lint';
import { Policies } from '../../src/main/policies/policies';
import { ContractInterfaces } from '../../src/main/contracts/contracts';
import { VAULT_IDL, VAULT_PROGRAM } from '../support/vault-idl';
import { startTestBed, type TestBed } from './helpers';

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const TOKEN = '0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7';
const ERC20 = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
];
const NEVER = "activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2' && solana.tx.transfers.count() > 0";

it("reads the root quorum, users, uploaded ABIs and a deny's history, and finds the operator's cases", async () => {
  bed = await startTestBed(2);
  const [first] = bed.operators;
  const client = first!.client;
  const upload = await new ContractInterfaces(client).create({
    type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
    address: TOKEN,
    label: 'USDC',
    definition: JSON.stringify(ERC20),
    chainId: 1,
  });
  expect(upload.state).toBe('completed');
  const saved = await new Policies(client).create({ name: 'never', effect: 'EFFECT_DENY', condition: NEVER });
  if (saved.state !== 'completed') throw new Error(`expected completed, got ${saved.state}`);
  await bed.setRootQuorum(
    2,
    bed.operators.map((operator) => operator.userId),
  );

  const anyOne = `approvers.filter(user, user.id == '${first!.userId}').count() >= 1`;
  const [weak] = await lintDraftPolicy(client, { name: 'any 1', effect: 'EFFECT_ALLOW', condition: '', consensus: anyOne, time: '' });
  expect(weak).toMatchObject({ rule: 'weak-allow', field: 'consensus' });
  expect(weak!.message).toMatch(/alone approves, while the root quorum needs 2 of /);

  const typo = await lintDraftPolicy(client, {
    name: 'limit',
    effect: 'EFFECT_DENY',
    condition: "eth.tx.contract_call_args['amout'] > 5",
    consensus: '',
    time: '',
  });
  expect(typo).toEqual([expect.objectContaining({ rule: 'unknown-interface-name', suggestion: 'amount' })]);

  const { policyId } = saved.result;
  const [never] = await lintDraftPolicy(client, { policyId, name: 'never', effect: 'EFFECT_DENY', condition: NEVER, consensus: '', time: '' });
  expect(never).toMatchObject({ rule: 'deny-never-matches' });
  expect(never!.message).toMatch(/None of the \d+ most recent recorded activities was denied by it\.$/);

  // The CLI reads the rehearsal's draft file and prints the same findings, one line each; an error makes it exit 1.
  const work = await mkdtemp(join(tmpdir(), 'qk-lint-'));
  try {
    const draft = join(work, 'draft.json');
    await writeFile(
      draft,
      JSON.stringify([
        {
          policyName: 'limit',
          effect: 'EFFECT_ALLOW',
          condition: "eth.tx.to == '0x1234' && eth.tx.contract_call_args['amout'] > 5",
          consensus: 'approvers.count() >= 2',
        },
        { policyId, deleted: true },
        { policyName: 'fine', effect: 'EFFECT_ALLOW', condition: "activity.resource == 'WALLET'", consensus: 'approvers.count() >= 2' },
      ]),
    );
    const printed = await lintCommand(async () => client, { draft, json: undefined });
    expect(printed.errors).toBe(1);
    expect(printed.text.split('\n')).toEqual([
      'limit: 2 findings',
      "  condition 1:14 error (address-literal): '0x1234' is not an Ethereum address (0x and 40 hex digits), so eth.tx.to never equals it.",
      expect.stringMatching(
        /^ {2}condition 1:52 warning \(unknown-interface-name\): No uploaded ABI has an argument named 'amout' \(did you mean 'amount'\?\)/,
      ),
      'fine: no findings',
      '',
    ]);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});

it('names what decoding names: ABI inputs (by position when unnamed), IDL arguments and accounts as Codama reads them', () => {
  const uploaded = (type: string, address: string, definition: unknown) =>
    ({
      smartContractInterfaceId: 'i',
      organizationId: 'o',
      smartContractAddress: address,
      smartContractInterface: JSON.stringify(definition),
      type,
      label: 'x',
      notes: '',
    }) as unknown as SmartContractInterface;
  const abi = [
    {
      ...ERC20[0],
      inputs: [
        { name: '', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
    },
    { type: 'event', name: 'Transfer', inputs: [{ name: 'from', type: 'address' }] },
  ];
  expect(interfaceNames(uploaded('SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', TOKEN, abi))).toEqual([
    { chain: 'ethereum', label: 'x', arguments: ['0', 'amount'], accounts: [] },
  ]);
  const [idl] = interfaceNames(uploaded('SMART_CONTRACT_INTERFACE_TYPE_SOLANA', VAULT_PROGRAM.toBase58(), VAULT_IDL));
  expect(idl).toMatchObject({ chain: 'solana', accounts: ['vault', 'user'] });
  expect(idl!.arguments).toEqual(expect.arrayContaining(['amount', 'memo', 'recipient', 'hops', 'limit', 'route']));
  expect(interfaceNames(uploaded('SMART_CONTRACT_INTERFACE_TYPE_SOLANA', VAULT_PROGRAM.toBase58(), { not: 'an idl' }))).toEqual([]);
});
