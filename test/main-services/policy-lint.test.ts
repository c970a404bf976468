/** The policy linter as main serves it: its inputs read from a real local service. */
import { afterEach, expect, it } from 'vitest';
import { lintDraftPolicy } from '../../src/main/policies/lint';
import { Policies } from '../../src/main/policies/policies';
import { ContractInterfaces } from '../../src/main/signing/contracts';
import { startTestBed, type TestBed } from './helpers';

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const TOKEN = '0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7';
const ERC20 = [
  { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] },
];
const NEVER = "activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2' && solana.tx.transfers.count() > 0";

it("reads the root quorum, users, uploaded ABIs and a deny's history, and finds the operator's cases", async () => {
  bed = await startTestBed(2);
  const [first] = bed.operators;
  const client = first!.client;
  const upload = await new ContractInterfaces(client).create({ type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', address: TOKEN, label: 'USDC', definition: JSON.stringify(ERC20) });
  expect(upload.state).toBe('completed');
  const saved = await new Policies(client).create({ name: 'never', effect: 'EFFECT_DENY', condition: NEVER });
  if (saved.state !== 'completed') throw new Error(`expected completed, got ${saved.state}`);
  await bed.setRootQuorum(2, bed.operators.map((operator) => operator.userId));

  const anyOne = `approvers.filter(user, user.id == '${first!.userId}').count() >= 1`;
  const [weak] = await lintDraftPolicy(client, { name: 'any 1', effect: 'EFFECT_ALLOW', condition: '', consensus: anyOne, time: '' });
  expect(weak).toMatchObject({ rule: 'weak-allow', field: 'consensus' });
  expect(weak!.message).toMatch(/alone approves, while the root quorum needs 2 of /);

  const typo = await lintDraftPolicy(client, { name: 'limit', effect: 'EFFECT_DENY', condition: "eth.tx.contract_call_args['amout'] > 5", consensus: '', time: '' });
  expect(typo).toEqual([expect.objectContaining({ rule: 'unknown-interface-name', suggestion: 'amount' })]);

  const { policyId } = saved.result;
  const [never] = await lintDraftPolicy(client, { policyId, name: 'never', effect: 'EFFECT_DENY', condition: NEVER, consensus: '', time: '' });
  expect(never).toMatchObject({ rule: 'deny-never-matches' });
  expect(never!.message).toMatch(/None of the \d+ most recent recorded activities was denied by it\.$/);
});
