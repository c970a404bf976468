/**
 * Simulation of a signing request's transaction against a real Anvil node: a token transfer's balance changes (the
 * signer's ETH with its fee, the token in its declared units, both named), an approval, reverts with Error(string),
 * Panic(uint256) and a custom error of an uploaded ABI, a refusal, no node set, a node on another chain, and hostile
 * nodes (silent, huge, not JSON-RPC) that end as "not simulated" with the reason.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeErrorResult, encodeFunctionData, getAddress, parseAbi, parseEther, serializeTransaction, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmartContractInterface } from '../../src/shared/api';
import type { AppSettings, DeclaredToken } from '../../src/shared/ipc/contract';
import type { OrganizationSnapshot } from '../../src/main/signing/organization';
import type { SigningRequest } from '../../src/main/signing/signing-request';
import { simulateTransaction } from '../../src/main/simulation/run-transaction';
import { Simulations } from '../../src/main/simulation/simulation';
import { simulationInLines } from '../../src/main/simulation/reading';
import { RECIPIENT, SIGNER, TOKEN_ABI, startSimulationChain, type SimulationChain } from '../support/simulation-chain';

const CHAIN_ID = 31337;
const VAULT = '0x000000000000000000000000000000000000beef';
const PANICKING = '0x000000000000000000000000000000000000dead';
const VAULT_ABI = parseAbi(['error InsufficientBalance(uint256 available, uint256 required)', 'function withdraw(uint256 amount)']);

let chain: SimulationChain;
beforeAll(async () => {
  chain = await startSimulationChain();
  await chain.revertingContract(VAULT, encodeErrorResult({ abi: VAULT_ABI, errorName: 'InsufficientBalance', args: [5n, 7n] }));
  await chain.revertingContract(PANICKING, encodeErrorResult({ abi: parseAbi(['error Panic(uint256)']), errorName: 'Panic', args: [0x11n] }));
}, 60_000);
afterAll(() => chain?.stop());

function transaction({ to, data = '0x', value = 0n, chainId = CHAIN_ID }: { to: Hex; data?: Hex; value?: bigint; chainId?: number }): string {
  return serializeTransaction({
    chainId,
    type: 'eip1559',
    nonce: 0,
    to,
    data,
    value,
    gas: 200_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
}

function signingRequest(unsignedTransaction: string, signWith: string = SIGNER.address): SigningRequest {
  return { operation: 'sign_transaction', signWith, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' };
}

/** The organization: the signer is Treasury's account, the recipient Payroll's; the vault's ABI is uploaded. */
const snapshot = {
  viewer: { userId: 'u', username: 'root', organizationId: 'o', organizationName: 'Acme' },
  wallets: [
    { walletId: 'w1', walletName: 'Treasury' },
    { walletId: 'w2', walletName: 'Payroll' },
  ],
  accounts: [
    { walletId: 'w1', address: SIGNER.address, path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
    { walletId: 'w2', address: RECIPIENT, path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
  ],
  privateKeys: [],
  contracts: [
    {
      smartContractInterfaceId: 'c1',
      smartContractAddress: VAULT,
      smartContractInterface: JSON.stringify(VAULT_ABI),
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label: 'Acme vault',
      notes: `Network: eip155:${CHAIN_ID}`,
    } as unknown as SmartContractInterface,
  ],
  policies: [],
  users: [],
  tags: [],
  rootQuorum: undefined,
} as unknown as OrganizationSnapshot;

/** Simulations in this thread (a worker under tsx takes seconds to start), or on the worker thread the app uses. */
function simulations(nodeUrls: AppSettings['nodeUrls'], tokens: DeclaredToken[] = [], thread: 'this' | 'worker' = 'this'): Simulations {
  return new Simulations({
    settings: { get: async () => ({ nodeUrls }) as AppSettings },
    tokens: { list: async () => tokens },
    ...(thread === 'this' ? { simulate: simulateTransaction } : {}),
  });
}

const declared = (): DeclaredToken[] => [{ family: 'ethereum', chainId: CHAIN_ID, address: chain.token, symbol: 'ACME', decimals: 18 }];

describe('simulating a transaction against the node', () => {
  it('shows a token transfer’s balance changes, named and in the token’s units, on a worker thread', async () => {
    const data = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [RECIPIENT, parseEther('5')] });
    const view = await simulations({ [`eip155:${CHAIN_ID}`]: chain.anvil.url }, declared(), 'worker').forRequest(
      signingRequest(transaction({ to: chain.token, data })),
      snapshot,
    );
    expect(view.status).toBe('simulated');
    if (view.status !== 'simulated') return;
    expect(view.block.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(view.node).toBe(chain.anvil.url);
    const texts = view.lines.map((line) => `${line.kind}: ${line.text}`);
    const treasury = `Treasury / m/44'/60'/0'/0/0 (${SIGNER.address})`;
    expect(texts[0]).toMatch(new RegExp(`^balance: ${escape(treasury)}: −0\\.\\d+ ETH \\(network fee included\\)$`));
    expect(texts).toContain(`balance: ${treasury}: −5 ACME`);
    expect(texts).toContain(`balance: Payroll / m/44'/60'/0'/0/0 (${getAddress(RECIPIENT)}): +5 ACME`);
    expect(texts).toHaveLength(3);
  });

  it('reads an unknown token in raw units with its address, and a native transfer in ETH', async () => {
    const data = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [RECIPIENT, 1234n] });
    const token = await simulations({ [`eip155:${CHAIN_ID}`]: chain.anvil.url }).forRequest(
      signingRequest(transaction({ to: chain.token, data })),
      snapshot,
    );
    expect(token.status === 'simulated' && token.lines.map((line) => line.text)).toContain(
      `Payroll / m/44'/60'/0'/0/0 (${getAddress(RECIPIENT)}): +1,234 raw units of the unknown token ${getAddress(chain.token)}`,
    );
    const ether = await simulations({ [`eip155:${CHAIN_ID}`]: chain.anvil.url }).forRequest(
      signingRequest(transaction({ to: RECIPIENT, value: parseEther('1.5') })),
      snapshot,
    );
    expect(ether.status === 'simulated' && ether.lines.map((line) => line.text)).toContain(
      `Payroll / m/44'/60'/0'/0/0 (${getAddress(RECIPIENT)}): +1.5 ETH`,
    );
  });

  it('names the allowance an approval grants', async () => {
    const data = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'approve', args: [RECIPIENT, 2n ** 256n - 1n] });
    const view = await simulations({ [`eip155:${CHAIN_ID}`]: chain.anvil.url }, declared()).forRequest(
      signingRequest(transaction({ to: chain.token, data })),
      snapshot,
    );
    expect(view.status === 'simulated' && view.lines.filter((line) => line.kind === 'approval').map((line) => line.text)).toEqual([
      `Treasury / m/44'/60'/0'/0/0 (${SIGNER.address}) lets Payroll / m/44'/60'/0'/0/0 (${getAddress(RECIPIENT)}) spend an unlimited amount of ACME`,
    ]);
  });

  it('gives a revert’s reason: Error(string), Panic(uint256), a custom error of the uploaded ABI', async () => {
    const run = (to: Hex, data: Hex) =>
      simulations({ [`eip155:${CHAIN_ID}`]: chain.anvil.url }, declared()).forRequest(signingRequest(transaction({ to, data })), snapshot);
    const revertOf = async (to: Hex, data: Hex) => {
      const view = await run(to, data);
      return view.status === 'simulated' ? view.lines.filter((line) => line.kind === 'revert').map((line) => line.text) : view.reason;
    };
    const overdraw = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [RECIPIENT, 10n ** 30n] });
    expect(await revertOf(chain.token, overdraw)).toEqual(['It would revert: “ds-math-sub-underflow”; nothing but the network fee would change.']);
    expect(await revertOf(PANICKING, '0x')).toEqual([
      'It would revert: panic 0x11 (Arithmetic operation resulted in underflow or overflow.); nothing but the network fee would change.',
    ]);
    const withdraw = encodeFunctionData({ abi: VAULT_ABI, functionName: 'withdraw', args: [7n] });
    expect(await revertOf(VAULT, withdraw)).toEqual(['It would revert: InsufficientBalance(5, 7); nothing but the network fee would change.']);
    // No token moves in a reverted transfer: the only balance line is the signer's fee.
    const reverted = await run(chain.token, overdraw);
    expect(reverted.status === 'simulated' && reverted.lines.filter((line) => line.kind === 'balance')).toHaveLength(1);
  });

  it('says the network would refuse a transaction its signer cannot pay for', async () => {
    const poor = '0x00000000000000000000000000000000000000aa';
    const view = await simulations({ [`eip155:${CHAIN_ID}`]: chain.anvil.url }).forRequest(
      signingRequest(transaction({ to: RECIPIENT, value: parseEther('1') }), poor),
      snapshot,
    );
    expect(view.status === 'simulated' && view.lines).toEqual([
      {
        kind: 'refused',
        text: expect.stringMatching(/^The network would refuse it: sender doesn't have enough funds to send tx\. The upfront cost is: \d+/),
      },
    ]);
  });

  it('is not simulated without a node for the chain, nor with a node on another chain, and says why', async () => {
    const request = signingRequest(transaction({ to: RECIPIENT, value: 1n }));
    expect(await simulations(undefined).forRequest(request, snapshot)).toEqual({
      status: 'not-simulated',
      reason: `no node set for Anvil (eip155:${CHAIN_ID}) in Settings`,
    });
    const mainnet = signingRequest(transaction({ to: RECIPIENT, value: 1n, chainId: 1 }));
    expect(await simulations({ 'eip155:1': chain.anvil.url }).forRequest(mainnet, snapshot)).toEqual({
      status: 'not-simulated',
      reason: `the node set for eip155:1 serves chain id ${CHAIN_ID}`,
    });
    const payload = {
      operation: 'sign_raw_payload',
      signWith: SIGNER.address,
      payload: 'hi',
      encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
      hashFunction: 'HASH_FUNCTION_KECCAK256',
    };
    expect(await simulations({}).forRequest(payload as SigningRequest, snapshot)).toEqual({
      status: 'not-simulated',
      reason: 'it signs payloads, not a transaction',
    });
  });

  it('restates the lines for main’s confirmation under the block they ran on', async () => {
    const view = await simulations({ [`eip155:${CHAIN_ID}`]: chain.anvil.url }).forRequest(
      signingRequest(transaction({ to: RECIPIENT, value: 1n })),
      snapshot,
    );
    if (view.status !== 'simulated') throw new Error(view.reason);
    expect(simulationInLines(view)).toEqual([
      `What this would do (simulated at block ${view.block.number}, ${view.block.hash}, with the state ${view.node} gave):`,
      ...view.lines.map((line) => `  ${line.text}`),
    ]);
    expect(simulationInLines({ status: 'not-simulated', reason: 'no node set' })).toEqual(['What this would do: not simulated: no node set']);
  });
});

describe('a hostile node', () => {
  let server: Server;
  let url: string;
  let behaviour: 'silent' | 'huge' | 'not-rpc';
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (behaviour === 'silent') return;
      if (behaviour === 'not-rpc') return void response.end('<html>hello</html>');
      response.writeHead(200, { 'content-type': 'application/json' });
      // Streams past the cap without declaring a length.
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const more = () => {
        while (sent < 64 && response.write(chunk)) sent += 1;
        if (sent < 64) response.once('drain', more);
        else response.end();
      };
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const job = () => ({ nodeUrl: url, chainId: CHAIN_ID, from: SIGNER.address, unsignedTransaction: transaction({ to: RECIPIENT, value: 1n }) });

  it('is given up on when it does not answer in time', async () => {
    behaviour = 'silent';
    await expect(simulateTransaction({ ...job(), limits: { callTimeoutMs: 300, maxAnswerBytes: 1024 * 1024, maxCalls: 10 } })).rejects.toThrow(
      'the node did not answer eth_chainId within 0.3 s',
    );
  });

  it('is cut off once its answer passes the byte cap', async () => {
    behaviour = 'huge';
    await expect(simulateTransaction({ ...job(), limits: { callTimeoutMs: 5000, maxAnswerBytes: 256 * 1024, maxCalls: 10 } })).rejects.toThrow(
      `the node's answer to eth_chainId is larger than ${256 * 1024} bytes`,
    );
  });

  it('is refused when it does not answer JSON-RPC, and the card says so', async () => {
    behaviour = 'not-rpc';
    const view = await simulations({ [`eip155:${CHAIN_ID}`]: url }).forRequest(signingRequest(job().unsignedTransaction), snapshot);
    expect(view).toEqual({ status: 'not-simulated', reason: 'the node answered eth_chainId with something that is not JSON' });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
