/**
 * A Solana JSON-RPC test node over one real SVM: LiteSVM (`litesvm`) executes every transaction in-process, and this
 * file answers JSON-RPC on loopback from what it executed. No Solana validator can be installed where the tests run,
 * so this is what the Sandbox's Solana paths are tested against.
 *
 * What it models: each landed transaction gets a slot of its own (its block), whose block hash is the blockhash the
 * SVM moves to after it and whose time is the wall clock, in whole seconds. Balances, fees and failures are LiteSVM's:
 * the fee is what the transaction's accounts lost in total, since instructions cannot create or destroy lamports.
 * A transaction is listed under every static account key of its message. A block is `confirmed` until 32 slots
 * followed it (`advanceSlots`), then `finalized`, as a validator's roots trail its tip. `sendTransaction` simulates
 * first, as a validator's preflight does; with `skipPreflight` a transaction that fails yet pays its fee lands, failed.
 *
 * What it leaves out: every method but the ones below; address lookup tables (refused); `jsonParsed` and other
 * encodings (base64 only); a transaction's inner instructions, token balances and rewards; blocks' transaction lists;
 * forks, so `processed` never differs from `confirmed`; and the SVM's blockhash window: LiteSVM accepts only the
 * latest blockhash, so a transaction must be built after the previous one landed.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type Signature,
  type Transaction,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';

/** Slots after which a block counts as finalized (a validator's 32-vote lockout depth). */
const FINALITY_DEPTH = 32n;

/** The most signatures one getSignaturesForAddress answers, as a validator's limit. */
const MAX_SIGNATURES = 1_000;

interface Block {
  blockhash: string;
  previousBlockhash: string;
  parentSlot: bigint;
  blockTime: number;
}

interface Landed {
  signature: Signature;
  slot: bigint;
  wire: string;
  version: 'legacy' | 0 | 1;
  accounts: readonly Address[];
  err: unknown;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  logs: string[];
  computeUnits: bigint;
}

export interface SolanaTestNode {
  url: string;
  svm: LiteSVM;
  /** Gives an account lamports outside any transaction (LiteSVM's airdrop): not in any account's history. */
  fund(address: Address, lamports: bigint): void;
  /** Moves the tip on by empty slots, so earlier blocks finalize. */
  advanceSlots(slots: bigint): void;
  close(): Promise<void>;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** JSON for the wire: bigints as numbers, as a node writes u64s. */
const toJson = (value: unknown): string => JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? Number(item) : item));

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSolanaNode(): Promise<SolanaTestNode> {
  const svm = new LiteSVM();
  const landed = new Map<string, Landed>();
  const signaturesByAccount = new Map<string, Signature[]>();
  const blocks = new Map<bigint, Block>();
  const slotNow = (): bigint => svm.getClock().slot;

  function setSlot(slot: bigint): void {
    svm.warpToSlot(slot);
    const clock = svm.getClock();
    clock.unixTimestamp = BigInt(Math.floor(Date.now() / 1000));
    svm.setClock(clock);
  }
  setSlot(slotNow() + 1n);

  const commitmentOf = (slot: bigint): 'confirmed' | 'finalized' => (slot + FINALITY_DEPTH <= slotNow() ? 'finalized' : 'confirmed');
  const visible = (slot: bigint, commitment: unknown): boolean => commitment !== 'finalized' || commitmentOf(slot) === 'finalized';
  const balanceOf = (account: Address): bigint => svm.getBalance(account) ?? 0n;

  function sendTransaction(wireBase64: string, config: { encoding?: string; skipPreflight?: boolean } = {}): Signature {
    if (config.encoding !== 'base64') throw new RpcError(-32602, 'the test node takes base64 transactions only (encoding: base64)');
    const transaction: Transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wireBase64));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if ('addressTableLookups' in message && (message.addressTableLookups?.length ?? 0) > 0) {
      throw new RpcError(-32602, 'the test node does not load address lookup tables');
    }
    const accounts = message.staticAccounts;
    const signatureBytes = Object.values(transaction.signatures)[0];
    if (signatureBytes == null) throw new RpcError(-32602, 'the transaction carries no fee payer signature');
    const signature = getBase58Decoder().decode(signatureBytes) as Signature;
    if (landed.has(signature)) throw new RpcError(-32002, 'Transaction simulation failed: This transaction has already been processed');
    if (config.skipPreflight !== true) {
      const simulated = svm.simulateTransaction(transaction);
      if (simulated instanceof FailedTransactionMetadata) {
        throw new RpcError(-32002, `Transaction simulation failed: ${String(simulated.err())}; logs: ${simulated.meta().logs().join(' | ')}`);
      }
    }
    const slot = slotNow();
    const preBalances = accounts.map(balanceOf);
    const result = svm.sendTransaction(transaction);
    const postBalances = accounts.map(balanceOf);
    const fee = preBalances.reduce((sum, balance) => sum + balance, 0n) - postBalances.reduce((sum, balance) => sum + balance, 0n);
    const failed = result instanceof FailedTransactionMetadata;
    // A transaction that failed before paying its fee (a stale blockhash, a bad signature) never lands.
    if (failed && fee === 0n) throw new RpcError(-32002, `Transaction failed before execution: ${String(result.err())}`);
    const meta = failed ? result.meta() : result;
    landed.set(signature, {
      signature,
      slot,
      wire: wireBase64,
      version: message.version,
      accounts,
      err: failed ? { LiteSVM: String(result.err()) } : null,
      fee,
      preBalances,
      postBalances,
      logs: meta.logs(),
      computeUnits: meta.computeUnitsConsumed(),
    });
    for (const account of new Set(accounts)) signaturesByAccount.set(account, [...(signaturesByAccount.get(account) ?? []), signature]);
    const previousBlockhash = svm.latestBlockhash();
    svm.expireBlockhash();
    blocks.set(slot, { blockhash: svm.latestBlockhash(), previousBlockhash, parentSlot: slot - 1n, blockTime: Number(svm.getClock().unixTimestamp) });
    setSlot(slot + 1n);
    return signature;
  }

  function getSignaturesForAddress(account: string, config: { limit?: number; before?: string; until?: string; commitment?: string } = {}) {
    const limit = config.limit ?? MAX_SIGNATURES;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES) throw new RpcError(-32602, 'Invalid limit; max 1000');
    const newestFirst = [...(signaturesByAccount.get(account) ?? [])].reverse();
    let start = 0;
    if (config.before !== undefined) {
      start = newestFirst.indexOf(config.before as Signature) + 1;
      if (start === 0) return [];
    }
    const untilIndex = config.until === undefined ? -1 : newestFirst.indexOf(config.until as Signature);
    const end = untilIndex === -1 ? newestFirst.length : untilIndex;
    return newestFirst
      .slice(start, end)
      .map((signature) => landed.get(signature)!)
      .filter((transaction) => visible(transaction.slot, config.commitment))
      .slice(0, limit)
      .map((transaction) => ({
        signature: transaction.signature,
        slot: transaction.slot,
        err: transaction.err,
        memo: null,
        blockTime: blocks.get(transaction.slot)!.blockTime,
        confirmationStatus: commitmentOf(transaction.slot),
      }));
  }

  function getTransaction(signature: string, config: { encoding?: string; maxSupportedTransactionVersion?: number; commitment?: string } = {}) {
    if (config.encoding !== 'base64') throw new RpcError(-32602, 'the test node answers base64 transactions only (encoding: base64)');
    const transaction = landed.get(signature);
    if (transaction === undefined || !visible(transaction.slot, config.commitment)) return null;
    if (transaction.version !== 'legacy' && (config.maxSupportedTransactionVersion ?? -1) < transaction.version) {
      throw new RpcError(
        -32015,
        `Transaction version (${transaction.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${transaction.version}`,
      );
    }
    return {
      slot: transaction.slot,
      blockTime: blocks.get(transaction.slot)!.blockTime,
      version: transaction.version,
      transaction: [transaction.wire, 'base64'],
      meta: {
        err: transaction.err,
        status: transaction.err === null ? { Ok: null } : { Err: transaction.err },
        fee: transaction.fee,
        preBalances: transaction.preBalances,
        postBalances: transaction.postBalances,
        logMessages: transaction.logs,
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: transaction.computeUnits,
      },
    };
  }

  function getBlock(slot: number, config: { transactionDetails?: string; rewards?: boolean; commitment?: string } = {}) {
    if (config.transactionDetails !== 'none' || config.rewards !== false) {
      throw new RpcError(-32602, 'the test node serves blocks without transactions or rewards only (transactionDetails: none, rewards: false)');
    }
    const block = blocks.get(BigInt(slot));
    if (block === undefined || !visible(BigInt(slot), config.commitment)) {
      throw new RpcError(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
    }
    return { ...block, blockHeight: BigInt(slot) };
  }

  function answer(method: string, params: unknown[]): unknown {
    const context = { context: { slot: slotNow(), apiVersion: 'litesvm' } };
    switch (method) {
      case 'getLatestBlockhash':
        return { ...context, value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: slotNow() + 150n } };
      case 'getBalance':
        return { ...context, value: balanceOf(params[0] as Address) };
      case 'sendTransaction':
        return sendTransaction(params[0] as string, params[1] as never);
      case 'getSignatureStatuses':
        return {
          ...context,
          value: (params[0] as string[]).map((signature) => {
            const transaction = landed.get(signature);
            if (transaction === undefined) return null;
            const confirmationStatus = commitmentOf(transaction.slot);
            return {
              slot: transaction.slot,
              confirmations: confirmationStatus === 'finalized' ? null : slotNow() - transaction.slot,
              err: transaction.err,
              status: transaction.err === null ? { Ok: null } : { Err: transaction.err },
              confirmationStatus,
            };
          }),
        };
      case 'getSignaturesForAddress':
        return getSignaturesForAddress(params[0] as string, params[1] as never);
      case 'getTransaction':
        return getTransaction(params[0] as string, params[1] as never);
      case 'getBlock':
        return getBlock(params[0] as number, params[1] as never);
      default:
        throw new RpcError(-32601, `Method not found: the test node does not serve ${method}`);
    }
  }

  const server: Server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      let id: unknown = null;
      let reply: object;
      try {
        const call = JSON.parse(body) as { id?: unknown; method: string; params?: unknown[] };
        id = call.id ?? null;
        reply = { jsonrpc: '2.0', id, result: answer(call.method, call.params ?? []) };
      } catch (error) {
        reply = {
          jsonrpc: '2.0',
          id,
          error: error instanceof RpcError ? { code: error.code, message: error.message } : { code: -32603, message: String(error) },
        };
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(toJson(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    svm,
    fund(address, lamports) {
      const result = svm.airdrop(address, lamports as never);
      if (result instanceof FailedTransactionMetadata || result === null)
        throw new Error(`LiteSVM refused the airdrop to ${address}: ${String(result)}`);
    },
    advanceSlots(slots) {
      setSlot(slotNow() + slots);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
