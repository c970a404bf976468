/**
 * The rehearsal over an organization's own history, read from a real Sandbox through the API client (issue 35 item
 * 7): the root user alone (a one-member root quorum) creates two operators, their tag, a wallet, the USD Coin ABI and
 * two policies (one operator up to 1,000 USDC, both above), then hands the root quorum to the operators, two of two.
 * Operator A transfers 500 USDC alone, then 250,000 USDC with Operator B's vote. Replayed vote by vote with the rules
 * and root quorum of each day, every recorded outcome is reproduced; raising the one-operator limit to 500,000 USDC
 * shows the 250,000 USDC transfer needing one approval instead of two; and no line names anything by id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, getAddress, parseAbi, serializeTransaction } from 'viem';
import { ApiClient } from '../../src/main/client/api-client';
import { reportText } from '../../src/main/cli/rehearse-command';
import { readRehearsalHistory } from '../../src/main/policies/history';
import { policyReadingOf, readPolicyNames } from '../../src/main/policies/policy-words';
import { rehearse, type RehearsalHistory } from '../../src/main/policies/rehearsal';
import type { DraftEntry } from '../../src/shared/ipc/policy-draft';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp';
import { newKey, startTestService, type TestKey, type TestService } from '../support/service';

const USDC = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const PAYEE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
const ERC20 = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);
const ERC20_JSON = JSON.stringify([
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
]);
/** USDC has 6 decimals. */
const usdc = (units: bigint) => units * 1_000_000n;
const TRANSFER = `activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer'`;
const amountAtMost = (units: bigint) => `${TRANSFER} && eth.tx.contract_call_args['amount'] <= ${usdc(units)}`;

function usdcTransfer(nonce: number, units: bigint): string {
  const data = encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [PAYEE, usdc(units)] });
  return serializeTransaction({ type: 'eip1559', chainId: 1, nonce, to: USDC, data, gas: 60_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n });
}

let service: TestService;
let history: RehearsalHistory;
/** Every id the organization's history holds: none may appear in a line of the report. */
const ids = new Set<string>();
let oneOperatorPolicyId: string;
let root: ApiClient;

function clientOf(key: TestKey): ApiClient {
  const { baseUrl, organizationId } = service.info;
  return new ApiClient({
    profile: { baseUrl, organizationId, apiKeyName: 'test' },
    stamper: { stamp: (_name, body) => stampBody(body, signerFromPrivateKey(key.curve, key.privateKey)) },
    now: service.clock.now,
  });
}

/** The result of a step that completes at once, a minute after the previous one. */
async function completed<T>(outcome: Promise<{ state: string } & ({ result: T } | object)>): Promise<T> {
  const settled = await outcome;
  service.clock.advance(60_000);
  if (settled.state !== 'completed' || !('result' in settled)) throw new Error(`setup step is ${settled.state}`);
  return settled.result;
}

beforeAll(async () => {
  service = await startTestService();
  root = clientOf(service.rootKey);
  const [keyA, keyB] = [newKey('p256'), newKey('p256')];
  const { userIds } = await completed(
    root.submit('create_users', {
      users: [
        ['Operator A', keyA],
        ['Operator B', keyB],
      ].map(([name, key]) => ({
        userName: name as string,
        apiKeys: [{ apiKeyName: name as string, publicKey: (key as TestKey).publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      })),
    }),
  );
  const { userTagId } = await completed(root.submit('create_user_tag', { userTagName: 'operators', userIds }));
  const { walletId, addresses } = await completed(
    root.submit('create_wallet', {
      walletName: 'Treasury',
      // More accounts than the service's default page: the history reads them all, the transfers sign with the last.
      accounts: Array.from({ length: 12 }, (_, index) => ({
        curve: 'CURVE_SECP256K1' as const,
        pathFormat: 'PATH_FORMAT_BIP32' as const,
        path: `m/44'/60'/0'/0/${index}`,
        addressFormat: 'ADDRESS_FORMAT_ETHEREUM' as const,
      })),
    }),
  );
  await completed(
    root.submit('create_smart_contract_interface', {
      smartContractAddress: USDC,
      smartContractInterface: ERC20_JSON,
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label: 'USD Coin',
    }),
  );
  const operators = `approvers.filter(user, user.tags.contains('${userTagId}'))`;
  ({ policyId: oneOperatorPolicyId } = await completed(
    root.submit('create_policy', {
      policyName: 'USDC up to 1,000: one operator',
      effect: 'EFFECT_ALLOW',
      condition: amountAtMost(1_000n),
      consensus: `${operators}.count() >= 1`,
      notes: '',
    }),
  ));
  await completed(
    root.submit('create_policy', {
      policyName: 'USDC above 1,000: both operators',
      effect: 'EFFECT_ALLOW',
      condition: `${TRANSFER} && eth.tx.contract_call_args['amount'] > ${usdc(1_000n)}`,
      consensus: `${operators}.count() >= 2`,
      notes: '',
    }),
  );
  await completed(root.submit('update_root_quorum', { threshold: 2, userIds }));

  const [operatorA, operatorB] = [clientOf(keyA), clientOf(keyB)];
  const sign = (nonce: number, units: bigint) =>
    operatorA.submit('sign_transaction', {
      signWith: addresses.at(-1)!,
      unsignedTransaction: usdcTransfer(nonce, units),
      type: 'TRANSACTION_TYPE_ETHEREUM',
    });
  await completed(sign(0, 500n));
  const waiting = await sign(1, 250_000n);
  expect(waiting.state).toBe('consensus-needed');
  service.clock.advance(60_000);
  await completed(operatorB.submit('approve_activity', { fingerprint: waiting.activity.fingerprint }));

  history = await readRehearsalHistory(root, {});
  for (const id of [service.info.organizationId, service.info.rootUserId, ...userIds, userTagId, walletId]) ids.add(id);
  for (const activity of history.activities) ids.add(activity.id);
  for (const policy of history.policies) ids.add(policy.policyId);
});

afterAll(async () => {
  await service?.close();
});

describe("rehearsing a loosening over the organization's own history", () => {
  it("reproduces every recorded outcome: the root user's setup under the one-member quorum of the day, and both transfers", () => {
    expect(history.activities).toHaveLength(9);
    const report = rehearse(history, []);
    expect(report.unreproduced).toEqual([]);
    expect(report.replayed).toBe(9);
    expect(report.changes).toEqual([]);
  });

  it('reports the 250,000 USDC transfer as needing one approval instead of two when the one-operator limit is raised', () => {
    const current = history.policies.find((policy) => policy.policyId === oneOperatorPolicyId)!;
    const draft: DraftEntry[] = [
      {
        policyId: current.policyId,
        policyName: current.policyName,
        effect: current.effect,
        condition: amountAtMost(500_000n),
        consensus: current.consensus,
      },
    ];
    const report = rehearse(history, draft);
    expect(report.unreproduced).toEqual([]);
    expect(report.changes).toHaveLength(1);
    const [change] = report.changes;
    expect(change).toMatchObject({ before: 'allowed', after: 'allowed', approvalsBefore: 2, approvalsAfter: 1 });
    expect(change!.words).toBe("needed 2 approvals, would now need 1 (the proposer's vote alone)");
    expect(change!.reading).toContain('250,000 USDC');
    expect(change!.policies.map((policy) => [policy.policyName, policy.before, policy.after])).toEqual([
      ['USDC up to 1,000: one operator', 'OUTCOME_NOT_APPLICABLE', 'OUTCOME_ALLOW'],
    ]);
    expect(report.totals).toMatchObject({ fewerApprovals: 1, unchanged: 8 });

    const text = reportText(report);
    expect(text).toContain("needed 2 approvals, would now need 1 (the proposer's vote alone); by USDC up to 1,000: one operator");
    for (const id of ids) expect(text).not.toContain(id);
  });

  it("reads the editor's consensus field with the tag named: what `policies.read` answers the window", async () => {
    const policy = history.policies.find((candidate) => candidate.policyId === oneOperatorPolicyId)!;
    const names = await readPolicyNames(root, { list: () => Promise.resolve([]) });
    const reading = policyReadingOf({ condition: policy.condition, consensus: policy.consensus, time: '' }, names);
    expect(reading.consensus.filter((piece) => piece.name !== undefined).map(({ kind, name }) => [kind, name])).toEqual([['tag', 'operators']]);
  });
});
