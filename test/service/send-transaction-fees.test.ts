/**
 * Issue 36, finding 10: eth_send_transaction fills the gas and fees a request leaves out from the chain's node, and
 * a hostile node could have it sign any. A fake JSON-RPC node on loopback proposes them here: what it fills is bounded
 * (a multiple of its own recent base fee; a cap on the whole fee) and shown in the activity's result.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseTransaction, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';

const CHAIN = 'eip155:31337';
const RECIPIENT = '0x000000000000000000000000000000000000bEEF';
const GWEI = 10n ** 9n;

/** What the fake node answers; each test sets the parts it needs. */
interface NodeBehaviour {
  /** The base fee of the latest block (what the fee estimate starts from). */
  latestBaseFee: bigint;
  /** The base fees eth_feeHistory reports for the recent blocks. */
  recentBaseFee: bigint;
  priorityFee: bigint;
  gas: bigint;
}

const HONEST: NodeBehaviour = { latestBaseFee: GWEI, recentBaseFee: GWEI, priorityFee: GWEI, gas: 21_000n };

let behaviour: NodeBehaviour = HONEST;
/** The raw transactions the node was asked to broadcast. */
const broadcast: Hex[] = [];
let node: Server;
let nodeUrl: string;
let t: TestService;
let sender: string;

const hex = (value: bigint) => `0x${value.toString(16)}`;

function answer(method: string, params: unknown[]): unknown {
  switch (method) {
    case 'eth_chainId':
      return '0x7a69';
    case 'eth_getBlockByNumber':
      return {
        number: '0x10',
        hash: `0x${'11'.repeat(32)}`,
        parentHash: `0x${'10'.repeat(32)}`,
        timestamp: '0x6553f100',
        gasLimit: hex(30_000_000n),
        gasUsed: '0x0',
        baseFeePerGas: hex(behaviour.latestBaseFee),
        transactions: [],
      };
    case 'eth_feeHistory':
      return { oldestBlock: '0xc', baseFeePerGas: Array(6).fill(hex(behaviour.recentBaseFee)), gasUsedRatio: Array(5).fill(0.5) };
    case 'eth_maxPriorityFeePerGas':
      return hex(behaviour.priorityFee);
    case 'eth_getTransactionCount':
      return '0x0';
    case 'eth_estimateGas':
      return hex(behaviour.gas);
    case 'eth_sendRawTransaction':
      broadcast.push(params[0] as Hex);
      return `0x${'22'.repeat(32)}`;
    case 'eth_getTransactionReceipt':
      return null;
    default:
      throw new Error(`the fake node does not answer ${method}`);
  }
}

function startNode(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      let reply: object;
      try {
        reply = { jsonrpc: '2.0', id, result: answer(method, params) };
      } catch (error) {
        reply = { jsonrpc: '2.0', id, error: { code: -32601, message: (error as Error).message } };
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(reply));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function senderOf(service: TestService): Promise<string> {
  const account = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' };
  const wallet = await service.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'sender', accounts: [account] });
  return wallet.body.activity.result.createWalletResult.addresses[0];
}

/** Sends 1,000 wei with what `fees` gives; answers the activity's result and the send's status. */
async function send(service: TestService, from: string, fees: Record<string, string> = {}) {
  service.clock.advance(1);
  const sent = await service.submit('eth_send_transaction', 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2', {
    from,
    caip2: CHAIN,
    calls: [{ to: RECIPIENT, value: '1000' }],
    ...fees,
  });
  expect(sent.body.activity?.status, JSON.stringify(sent.body)).toBe('ACTIVITY_STATUS_COMPLETED');
  const result = sent.body.activity.result.ethSendTransactionResultV2;
  const status = await service.query('get_send_transaction_status', { sendTransactionStatusId: result.sendTransactionStatusId });
  return { result, status: status.body };
}

beforeAll(async () => {
  node = await startNode();
  nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  t = await startTestService({ rpc: { [CHAIN]: nodeUrl } });
  sender = await senderOf(t);
});
afterEach(() => {
  behaviour = HONEST;
  broadcast.length = 0;
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => node?.close(resolve));
});

describe('issue 36 finding 10: eth_send_transaction bounds the fees the node fills in', () => {
  it("refuses a hostile node's 30M gas at 2.2·10^15 wei before signing, and the activity shows what it filled", async () => {
    behaviour = { ...HONEST, priorityFee: 2_200_000n * GWEI, gas: 30_000_000n };
    const { result, status } = await send(t, sender);
    expect(result.filledByNode).toEqual({
      nonce: '0',
      gasLimit: '30000000',
      maxFeePerGas: String(2_200_000n * GWEI + (GWEI * 12n) / 10n),
      maxPriorityFeePerGas: String(2_200_000n * GWEI),
    });
    expect(status.txStatus).toBe('FAILED');
    expect(status.txError).toMatch(
      /^refused before signing: .*30000000 gas × maxFeePerGas 2200001200000000 wei.* more than the Sandbox's bound of 100000000000000000 wei/,
    );
    expect(broadcast).toEqual([]);
  });

  it('refuses a filled maxFeePerGas above twice the recent base fee plus the tip', async () => {
    // The latest block claims a base fee a thousand times the recent ones: the estimate follows it.
    behaviour = { ...HONEST, latestBaseFee: 1000n * GWEI };
    const { status } = await send(t, sender);
    expect(status.txError).toMatch(
      /^refused before signing: the node proposed maxFeePerGas 1201000000000 wei, more than 2 × its recent base fee 1000000000 wei \+ the tip 1000000000 wei = 3000000000 wei/,
    );
    expect(broadcast).toEqual([]);
  });

  it('signs and broadcasts what an honest node fills in, with the filled values in the activity', async () => {
    const { result, status } = await send(t, sender);
    expect(status).toMatchObject({ eth: { txHash: `0x${'22'.repeat(32)}` } });
    expect(status.txError).toBeUndefined();
    expect(broadcast).toHaveLength(1);
    const signed = parseTransaction(broadcast[0]!);
    expect(result.filledByNode).toEqual({
      nonce: '0',
      gasLimit: String(signed.gas),
      maxFeePerGas: String(signed.maxFeePerGas),
      maxPriorityFeePerGas: String(signed.maxPriorityFeePerGas),
    });
    expect(signed.gas).toBe(21_000n);
  });

  it('does not bound gas and fees the request gives itself', async () => {
    behaviour = { ...HONEST, priorityFee: 2_200_000n * GWEI, gas: 30_000_000n };
    const fees = { nonce: '0', gasLimit: '30000000', maxFeePerGas: '2200000000000000', maxPriorityFeePerGas: '2200000000000000' };
    const { result, status } = await send(t, sender, fees);
    expect(status).toMatchObject({ eth: { txHash: `0x${'22'.repeat(32)}` } });
    expect(result.filledByNode).toBeUndefined();
    expect(parseTransaction(broadcast[0]!)).toMatchObject({ gas: 30_000_000n, maxFeePerGas: 2_200_000n * GWEI });
  });

  it('takes its cap from maxNodeFeeWei (--max-node-fee)', async () => {
    const strict = await startTestService({ rpc: { [CHAIN]: nodeUrl }, maxNodeFeeWei: 10n ** 13n });
    try {
      const { status } = await send(strict, await senderOf(strict));
      expect(status.txError).toMatch(/more than the Sandbox's bound of 10000000000000 wei/);
      expect(broadcast).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});
