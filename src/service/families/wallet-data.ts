/**
 * Wallet data (docs/sandbox.md#wallet-data): balances, supported assets and transaction history of a wallet account,
 * read from the node the chain is configured with (`--rpc`). The hosted service reads an indexer; the Sandbox has only
 * the node's JSON-RPC, so it reports the chain's native asset and the ERC-20 tokens it was started with (`--token`), and
 * reads history from the node's recent blocks (Ethereum) or the address's newest signatures (Solana).
 */
import { parseSystemInstruction, SYSTEM_PROGRAM_ADDRESS, SystemInstruction } from '@solana-program/system';
import {
  createSolanaRpc,
  decompileTransactionMessage,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type Instruction,
  type Signature,
} from '@solana/kit';
import {
  decodeEventLog,
  erc20Abi,
  formatUnits,
  getAddress,
  isAddress,
  isAddressEqual,
  parseAbiItem,
  toEventSelector,
  type Block,
  type Hex,
  type Log,
  type PublicClient,
  type Transaction,
} from 'viem';
import type { z } from 'zod';
import type { queryOperations } from '../../shared/api/queries';
import { QkError } from '../../shared/errors';
import type { QueryContext } from '../activities/context';
import type { Family } from '../activities/context';
import { pageSize } from './activities';
import { ethereumChainId, NODE_TIMEOUT_MS, nodeClient, nodeFor, nodeReason, readFromNode, type RpcNodes } from './send-transactions';
import type { SentTransactionRecord } from '../store/sent-transactions';

/**
 * How many of the node's most recent blocks list_eth_transaction_history reads (**our choice**): a node has no index
 * by address, so each block is read; enough for a test chain, and it bounds the work one query asks of the node.
 */
export const HISTORY_BLOCKS = 1_000;

/** Blocks asked for in one JSON-RPC batch while reading history. */
const BLOCKS_PER_BATCH = 100;

const SOLANA_CAIP2 = /^solana:[1-9A-HJ-NP-Za-km-z]{1,44}$/;

/**
 * How many of an address's newest signatures list_sol_transaction_history pages through (**our choice**): the most a
 * node answers in one getSignaturesForAddress call, so one call reads them all, as HISTORY_BLOCKS bounds Ethereum's.
 */
const SOLANA_HISTORY_SIGNATURES = 1_000;

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export type Chain = { kind: 'eip155'; chainId: number } | { kind: 'solana' };

export type Asset = { caip19: string; symbol: string; name: string; decimals: number };

/** CAIP-2 chain id → the ERC-20 contracts the Sandbox reports balances of on that chain (`--token CAIP2=ADDRESS`). */
export type SandboxTokens = Readonly<Record<string, readonly Hex[]>>;

/**
 * The tokens as given (`--token`, `tokens`), checked before the service starts: each on an EVM chain the Sandbox has a
 * node for, each a contract address given once; addresses come back checksummed.
 */
export function checkTokens(tokens: Readonly<Record<string, readonly string[]>>, rpc: RpcNodes): SandboxTokens {
  const checked: Record<string, Hex[]> = {};
  for (const [caip2, addresses] of Object.entries(tokens)) {
    if (!/^eip155:[1-9]\d{0,15}$/.test(caip2)) {
      throw new QkError('CONFIG_INVALID', `--token ${caip2}: tokens are ERC-20 contracts of an EVM chain, eip155:<chain id>`, { caip2 });
    }
    if (rpc[caip2] === undefined) {
      throw new QkError('CONFIG_INVALID', `--token ${caip2}: the Sandbox reads token balances from the chain's node; add --rpc ${caip2}=URL`, {
        caip2,
      });
    }
    const seen = new Set<Hex>();
    for (const address of addresses) {
      if (!isAddress(address, { strict: false }))
        throw new QkError('CONFIG_INVALID', `--token ${caip2}=${address}: not an Ethereum address`, { caip2 });
      const token = getAddress(address);
      if (seen.has(token)) throw new QkError('CONFIG_INVALID', `--token ${caip2}=${address} is given twice`, { caip2 });
      seen.add(token);
    }
    checked[caip2] = [...seen];
  }
  return checked;
}

type Pagination = { limit?: string | undefined; before?: string | undefined; after?: string | undefined } | undefined;

type HistoryResponse = z.input<(typeof queryOperations)['list_eth_transaction_history']['response']>;
type HistoryItem = HistoryResponse['transactions'][number];
type Transfer = HistoryItem['transfers'][number];

function chainOf(caip2: string): Chain {
  if (caip2.startsWith('eip155:')) return { kind: 'eip155', chainId: ethereumChainId(caip2) };
  if (SOLANA_CAIP2.test(caip2)) return { kind: 'solana' };
  throw new QkError('REQUEST_INVALID', `caip2: expected eip155:<chain id> or solana:<genesis hash prefix or cluster name>, got ${caip2}`, { caip2 });
}

/**
 * The chain's native asset, the one asset the Sandbox reports (**our choice**: it knows no token lists). Every EVM
 * chain's is called ETH, 18 decimals: the Sandbox's nodes are local test chains.
 */
export function nativeAsset(caip2: string, chain: Chain): Asset {
  return chain.kind === 'eip155'
    ? { caip19: `${caip2}/slip44:60`, symbol: 'ETH', name: 'Ether', decimals: 18 }
    : { caip19: `${caip2}/slip44:501`, symbol: 'SOL', name: 'Solana', decimals: 9 };
}

/** Turnkey reads wallet data of wallet accounts only: the address must be one of the organization's. */
function requireWalletAccount(ctx: QueryContext, address: string, chain: Chain): string {
  if (chain.kind === 'eip155' && !isAddress(address, { strict: false })) {
    throw new QkError('REQUEST_INVALID', `address: ${address} is not an Ethereum address`);
  }
  const spellings = chain.kind === 'eip155' ? [...new Set([address, getAddress(address), address.toLowerCase()])] : [address];
  const account = spellings.map((spelling) => ctx.store.walletAccounts.findByAddress(ctx.organizationId, spelling)).find(Boolean);
  if (account === undefined) {
    throw new QkError(
      'REQUEST_INVALID',
      `address: ${address} is not a wallet account address of organization ${ctx.organizationId} (private key addresses are not supported)`,
      { address },
    );
  }
  return account.address;
}

async function nativeBalance(caip2: string, chain: Chain, nodeUrl: string, address: string): Promise<bigint> {
  if (chain.kind === 'eip155') return readFromNode(caip2, nodeClient(nodeUrl).getBalance({ address: getAddress(address) }));
  const { value } = await askSolanaNode(caip2, 'getBalance', createSolanaRpc(nodeUrl).getBalance(address as Address, { commitment: 'confirmed' }));
  return value;
}

/** One call to a Solana node, bounded in time; a node that fails to answer is the query's failure, naming the chain and the method. */
async function askSolanaNode<T>(caip2: string, method: string, request: { send(options: { abortSignal: AbortSignal }): Promise<T> }): Promise<T> {
  try {
    return await request.send({ abortSignal: AbortSignal.timeout(NODE_TIMEOUT_MS) });
  } catch (error) {
    // fetch's own message ("fetch failed") says nothing; its cause says why (ECONNREFUSED, a refused port).
    const { cause } = error as { cause?: { code?: unknown; message?: unknown } };
    const why = [cause?.code, cause?.message].find((detail): detail is string => typeof detail === 'string' && detail !== '');
    throw new QkError(
      'NETWORK_ERROR',
      `the node for ${caip2} did not answer ${method}: ${nodeReason(error)}${why === undefined ? '' : ` (${why})`}`,
      {
        caip2,
      },
    );
  }
}

/** A history item's `turnkey` details, for a transaction the organization sent through the Sandbox; none for another. */
function sendDetails(ctx: QueryContext, sent: SentTransactionRecord | undefined) {
  if (sent === undefined) return {};
  const activity = ctx.store.activities.get(ctx.organizationId, sent.activityId);
  return {
    turnkey: {
      sponsored: false,
      ...(activity === undefined ? {} : { activityFingerprint: activity.fingerprint }),
      submittedAt: new Date(sent.createdAt).toISOString(),
    },
  };
}

// ─── Ethereum history ─────────────────────────────────────────────────────────────────────────

/** A transaction of the history, before its receipt is read. */
interface Found {
  transaction: Transaction;
  block: Block;
}

/** The cursor of a history item: where it is on the chain, opaque to clients and short enough for `v1Pagination`. */
const ethCursorOf = (found: Found): string => `${found.transaction.blockNumber}:${found.transaction.transactionIndex}`;

/** The recent blocks, newest first, with their transactions. */
async function recentBlocks(caip2: string, client: PublicClient): Promise<Block[]> {
  const latest = await readFromNode(caip2, client.getBlockNumber());
  const oldest = latest >= BigInt(HISTORY_BLOCKS) ? latest - BigInt(HISTORY_BLOCKS) + 1n : 0n;
  const blocks: Block[] = [];
  for (let top = latest; top >= oldest; top -= BigInt(BLOCKS_PER_BATCH)) {
    const numbers: bigint[] = [];
    for (let number = top; number >= oldest && number > top - BigInt(BLOCKS_PER_BATCH); number--) numbers.push(number);
    blocks.push(
      ...(await readFromNode(caip2, Promise.all(numbers.map((blockNumber) => client.getBlock({ blockNumber, includeTransactions: true }))))),
    );
  }
  return blocks;
}

/** The transactions of `blocks` the address sent or received, or that moved a token to or from it (ERC-20 Transfer). */
async function transactionsOf(caip2: string, client: PublicClient, blocks: Block[], address: Hex): Promise<Found[]> {
  const byHash = new Map<string, Found>();
  const byNumber = new Map(blocks.map((block) => [block.number, block]));
  for (const block of blocks) {
    for (const transaction of block.transactions as Transaction[]) {
      const involved = isAddressEqual(transaction.from, address) || (transaction.to != null && isAddressEqual(transaction.to, address));
      if (involved) byHash.set(transaction.hash, { transaction, block });
    }
  }
  if (blocks.length > 0) {
    const range = { fromBlock: blocks[blocks.length - 1]!.number!, toBlock: blocks[0]!.number! };
    const [sent, received] = await readFromNode(
      caip2,
      Promise.all([
        client.getLogs({ event: TRANSFER_EVENT, args: { from: address }, ...range }),
        client.getLogs({ event: TRANSFER_EVENT, args: { to: address }, ...range }),
      ]),
    );
    for (const log of [...sent, ...received]) {
      if (byHash.has(log.transactionHash)) continue;
      const block = byNumber.get(log.blockNumber);
      const transaction = (block?.transactions as Transaction[] | undefined)?.find((candidate) => candidate.hash === log.transactionHash);
      if (block !== undefined && transaction !== undefined) byHash.set(transaction.hash, { transaction, block });
    }
  }
  return [...byHash.values()].sort((a, b) =>
    a.transaction.blockNumber === b.transaction.blockNumber
      ? b.transaction.transactionIndex! - a.transaction.transactionIndex!
      : Number(b.transaction.blockNumber! - a.transaction.blockNumber!),
  );
}

/** The page `paginationOptions` asks for, newest first, as list_activities pages: `before` toward older items, `after` toward newer. */
function page<T>(found: T[], cursorOf: (item: T) => string, pagination: Pagination) {
  const limit = pageSize(pagination?.limit);
  const indexOf = (cursor: string | undefined, what: string): number | undefined => {
    if (cursor === undefined) return undefined;
    const index = found.findIndex((item) => cursorOf(item) === cursor);
    if (index === -1) {
      throw new QkError('REQUEST_INVALID', `paginationOptions.${what}: ${cursor} is not a cursor of this address's history`, {
        issues: [{ path: `paginationOptions.${what}`, message: 'unknown cursor' }],
      });
    }
    return index;
  };
  const before = indexOf(pagination?.before, 'before');
  const after = indexOf(pagination?.after, 'after');
  const oldestEnd = after ?? found.length;
  const newestStart = before === undefined ? 0 : before + 1;
  // `after` alone gives the newer items nearest its cursor; otherwise the page starts at the newest candidate.
  const first = after !== undefined && before === undefined ? Math.max(newestStart, oldestEnd - limit) : newestStart;
  const last = Math.min(oldestEnd, first + limit) - 1;
  const items = found.slice(first, last + 1);
  const bounds = items.length === 0 ? {} : { startCursor: cursorOf(items[0]!), endCursor: cursorOf(items[items.length - 1]!) };
  return { items, pageInfo: { hasNextPage: items.length > 0 && last < found.length - 1, hasPreviousPage: items.length > 0 && first > 0, ...bounds } };
}

/** A token's metadata from its contract; undefined when it does not answer as an ERC-20 does. */
export async function tokenAsset(client: PublicClient, caip2: string, token: Hex): Promise<Asset | undefined> {
  const read = <F extends 'symbol' | 'name' | 'decimals'>(functionName: F) => client.readContract({ address: token, abi: erc20Abi, functionName });
  try {
    const [symbol, name, decimals] = await Promise.all([read('symbol'), read('name'), read('decimals')]);
    return { caip19: `${caip2}/erc20:${token.toLowerCase()}`, symbol, name, decimals };
  } catch {
    return undefined;
  }
}

function transfer(direction: 'IN' | 'OUT', amount: bigint, counterparty: Hex, asset: Asset | undefined): Transfer {
  return {
    direction,
    amount: String(amount),
    counterparty: getAddress(counterparty),
    ...(asset === undefined ? {} : { asset, display: { crypto: formatUnits(amount, asset.decimals) } }),
  };
}

const TRANSFER_TOPIC = toEventSelector(TRANSFER_EVENT);

/** Native value moved by the transaction and the ERC-20 Transfer events of its receipt, as seen from `address`. */
async function transfersOf(client: PublicClient, caip2: string, found: Found, logs: Log[], address: Hex, native: Asset): Promise<Transfer[]> {
  const { transaction } = found;
  const transfers: Transfer[] = [];
  if (transaction.value > 0n) {
    if (isAddressEqual(transaction.from, address) && transaction.to != null)
      transfers.push(transfer('OUT', transaction.value, transaction.to, native));
    if (transaction.to != null && isAddressEqual(transaction.to, address))
      transfers.push(transfer('IN', transaction.value, transaction.from, native));
  }
  for (const log of logs) {
    if (log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) continue;
    const { args } = decodeEventLog({ abi: [TRANSFER_EVENT], data: log.data, topics: log.topics });
    if (!isAddressEqual(args.from, address) && !isAddressEqual(args.to, address)) continue;
    const asset = await tokenAsset(client, caip2, log.address);
    if (isAddressEqual(args.from, address)) transfers.push(transfer('OUT', args.value, args.to, asset));
    if (isAddressEqual(args.to, address)) transfers.push(transfer('IN', args.value, args.from, asset));
  }
  return transfers;
}

async function ethereumHistory(ctx: QueryContext, caip2: string, nodeUrl: string, address: Hex, pagination: Pagination): Promise<HistoryResponse> {
  const client = nodeClient(nodeUrl, BLOCKS_PER_BATCH);
  const found = await transactionsOf(caip2, client, await recentBlocks(caip2, client), address);
  const { items, pageInfo } = page(found, ethCursorOf, pagination);
  // Nodes without a finalized block (older ones) answer an error: then nothing counts as finalized.
  const finalized = await client.getBlock({ blockTag: 'finalized' }).then(
    (block) => block.number,
    () => undefined,
  );
  const sends = ctx.store.sentTransactions.findByTxHashes(
    ctx.organizationId,
    caip2,
    items.map((item) => item.transaction.hash),
  );
  const native = nativeAsset(caip2, { kind: 'eip155', chainId: ethereumChainId(caip2) });
  const transactions: HistoryItem[] = [];
  for (const item of items) {
    const { transaction, block } = item;
    const receipt = await readFromNode(caip2, client.getTransactionReceipt({ hash: transaction.hash }));
    const sent = sends.get(transaction.hash);
    transactions.push({
      transactionHash: transaction.hash,
      block: { number: String(block.number), hash: block.hash!, timestamp: new Date(Number(block.timestamp) * 1000).toISOString() },
      status: finalized !== undefined && finalized !== null && block.number! <= finalized ? 'FINALIZED' : 'CONFIRMED',
      // **our choice**: Turnkey names its own sends TURNKEY; every other transaction is EXTERNAL here.
      origin: sent === undefined ? 'EXTERNAL' : 'TURNKEY',
      from: getAddress(transaction.from),
      ...(transaction.to == null ? {} : { to: getAddress(transaction.to) }),
      fee: { amount: String(receipt.gasUsed * receipt.effectiveGasPrice), caip19: native.caip19 },
      transfers: await transfersOf(client, caip2, item, receipt.logs, address, native),
      ...sendDetails(ctx, sent),
    });
  }
  return { transactions, pageInfo };
}

// ─── Solana history ───────────────────────────────────────────────────────────────────────────

type SignatureEntry = { signature: Signature; slot: bigint; confirmationStatus?: string | null };

/** A Solana history item's cursor: its slot and the start of its signature, short enough for `v1Pagination`. */
const solanaCursorOf = (entry: SignatureEntry): string => `${entry.slot}:${entry.signature.slice(0, 16)}`;

/** What getTransaction answers in base64, as far as the history reads it. */
export interface SolanaTransaction {
  blockTime?: bigint | null;
  transaction: readonly [string, 'base64'];
  meta: {
    err: unknown;
    fee: bigint;
    loadedAddresses?: { writable: readonly Address[]; readonly: readonly Address[] };
  } | null;
}

/**
 * The transaction's message, decoded with @solana/kit. Accounts a v0 message loads from lookup tables are the ones the
 * node reports loading (`meta.loadedAddresses`), put back at the table indexes the message names.
 */
export function decodeSolanaTransaction(
  signature: string,
  answered: SolanaTransaction,
): { feePayer: Address; signers: { address: Address; writable: boolean }[]; instructions: readonly Instruction[] } {
  const { messageBytes } = getTransactionDecoder().decode(getBase64Encoder().encode(answered.transaction[0]));
  const compiled = getCompiledTransactionMessageDecoder().decode(messageBytes);
  const lookups = 'addressTableLookups' in compiled ? (compiled.addressTableLookups ?? []) : [];
  const loaded = { writable: [...(answered.meta?.loadedAddresses?.writable ?? [])], readonly: [...(answered.meta?.loadedAddresses?.readonly ?? [])] };
  const addressesByLookupTableAddress: Record<Address, Address[]> = {};
  for (const kind of ['writable', 'readonly'] as const) {
    for (const lookup of lookups) {
      const table = (addressesByLookupTableAddress[lookup.lookupTableAddress] ??= []);
      for (const index of kind === 'writable' ? lookup.writableIndexes : lookup.readonlyIndexes) {
        const next = loaded[kind].shift();
        if (next === undefined) {
          throw new QkError('NETWORK_ERROR', `the node's getTransaction for ${signature} reports fewer loaded addresses than its message looks up`);
        }
        table[index] = next;
      }
    }
  }
  const { numSignerAccounts, numReadonlySignerAccounts } = compiled.header;
  return {
    feePayer: compiled.staticAccounts[0]!,
    signers: compiled.staticAccounts
      .slice(0, numSignerAccounts)
      .map((signer, index) => ({ address: signer, writable: index < numSignerAccounts - numReadonlySignerAccounts })),
    instructions: decompileTransactionMessage(compiled, { addressesByLookupTableAddress }).instructions,
  };
}

/** The System program's SOL transfers among the instructions, as seen from `address`. */
export function solanaTransfers(instructions: readonly Instruction[], address: string, native: Asset): Transfer[] {
  const transfers: Transfer[] = [];
  for (const instruction of instructions) {
    if (instruction.programAddress !== SYSTEM_PROGRAM_ADDRESS || instruction.data === undefined) continue;
    let parsed;
    try {
      parsed = parseSystemInstruction({ ...instruction, data: instruction.data });
    } catch {
      // Data the System program's decoder does not know moves nothing the history could name.
      continue;
    }
    if (parsed.instructionType !== SystemInstruction.TransferSol && parsed.instructionType !== SystemInstruction.TransferSolWithSeed) continue;
    const { source, destination } = parsed.accounts;
    const amount = parsed.data.amount;
    const solanaTransfer = (direction: 'IN' | 'OUT', counterparty: string): Transfer => ({
      direction,
      amount: String(amount),
      counterparty,
      asset: native,
      display: { crypto: formatUnits(amount, native.decimals) },
    });
    if (source.address === address) transfers.push(solanaTransfer('OUT', destination.address));
    if (destination.address === address) transfers.push(solanaTransfer('IN', source.address));
  }
  return transfers;
}

type SolanaHistoryItem = z.input<(typeof queryOperations)['list_sol_transaction_history']['response']>['transactions'][number];

async function solanaHistory(ctx: QueryContext, caip2: string, nodeUrl: string, address: Address, pagination: Pagination) {
  const rpc = createSolanaRpc(nodeUrl);
  const signatures = await askSolanaNode(
    caip2,
    'getSignaturesForAddress',
    rpc.getSignaturesForAddress(address, { limit: SOLANA_HISTORY_SIGNATURES, commitment: 'confirmed' }),
  );
  const { items, pageInfo } = page<SignatureEntry>([...signatures], solanaCursorOf, pagination);
  const sends = ctx.store.sentTransactions.findByTxHashes(
    ctx.organizationId,
    caip2,
    items.map((item) => item.signature),
  );
  const native = nativeAsset(caip2, { kind: 'solana' });
  const blocks = new Map<bigint, Promise<{ blockhash: string; blockTime: bigint | null }>>();
  const blockOf = (slot: bigint) => {
    let block = blocks.get(slot);
    if (block === undefined) {
      block = askSolanaNode(
        caip2,
        'getBlock',
        rpc.getBlock(slot, { transactionDetails: 'none', rewards: false, commitment: 'confirmed', maxSupportedTransactionVersion: 0 }),
      ).then((answered) => {
        if (answered === null)
          throw new QkError(
            'NETWORK_ERROR',
            `the node for ${caip2} has no block at slot ${slot}, where getSignaturesForAddress placed a transaction`,
            { caip2 },
          );
        return answered;
      });
      blocks.set(slot, block);
    }
    return block;
  };
  const transactions = await Promise.all(
    items.map(async (item): Promise<SolanaHistoryItem> => {
      const [answered, block] = await Promise.all([
        askSolanaNode(
          caip2,
          'getTransaction',
          rpc.getTransaction(item.signature, { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }),
        ),
        blockOf(item.slot),
      ]);
      if (answered === null || answered.meta === null) {
        throw new QkError('NETWORK_ERROR', `the node for ${caip2} has no transaction ${item.signature}, which getSignaturesForAddress listed`, {
          caip2,
        });
      }
      const { feePayer, signers, instructions } = decodeSolanaTransaction(item.signature, answered);
      const blockTime = block.blockTime ?? answered.blockTime;
      if (blockTime === null || blockTime === undefined) {
        throw new QkError('NETWORK_ERROR', `the node for ${caip2} gives no time for slot ${item.slot} (getBlock, getTransaction)`, { caip2 });
      }
      const sent = sends.get(item.signature);
      return {
        signature: item.signature,
        block: { number: String(item.slot), hash: block.blockhash, timestamp: new Date(Number(blockTime) * 1000).toISOString() },
        status: item.confirmationStatus === 'finalized' ? 'FINALIZED' : 'CONFIRMED',
        // **our choice**, as on Ethereum: Turnkey names its own sends TURNKEY; every other transaction is EXTERNAL here.
        origin: sent === undefined ? 'EXTERNAL' : 'TURNKEY',
        feePayer,
        signers,
        fee: { amount: String(answered.meta.fee), caip19: native.caip19 },
        // A failed transaction paid its fee and moved nothing else.
        transfers: answered.meta.err === null ? solanaTransfers(instructions, address, native) : [],
        ...sendDetails(ctx, sent),
      };
    }),
  );
  return { transactions, pageInfo };
}

/**
 * The assets of the tokens the Sandbox knows on the chain, read from their contracts; a contract that does not answer
 * as an ERC-20 does is the query's failure, naming it, since a token left out silently would read as a zero balance.
 */
async function knownTokenAssets(caip2: string, client: PublicClient, tokens: readonly Hex[]): Promise<{ token: Hex; asset: Asset }[]> {
  return Promise.all(
    tokens.map(async (token) => {
      const asset = await tokenAsset(client, caip2, token);
      if (asset === undefined) {
        throw new QkError('FAILED_PRECONDITION', `--token ${caip2}=${token} does not answer symbol, name and decimals as an ERC-20 contract does`, {
          caip2,
        });
      }
      return { token, asset };
    }),
  );
}

function balanceOf(asset: Asset, balance: bigint) {
  return { ...asset, balance: String(balance), display: { crypto: formatUnits(balance, asset.decimals) } };
}

export function walletDataFamily(rpc: RpcNodes, tokens: SandboxTokens = {}): Family {
  return {
    queries: {
      async get_wallet_address_balances(ctx, request) {
        const chain = chainOf(request.caip2);
        const address = requireWalletAccount(ctx, request.address, chain);
        const nodeUrl = nodeFor(rpc, request.caip2);
        const native = await nativeBalance(request.caip2, chain, nodeUrl, address);
        const balances = [balanceOf(nativeAsset(request.caip2, chain), native)];
        if (chain.kind === 'eip155') {
          const client = nodeClient(nodeUrl);
          for (const { token, asset } of await knownTokenAssets(request.caip2, client, tokens[request.caip2] ?? [])) {
            const balance = await readFromNode(
              request.caip2,
              client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(address)] }),
            );
            balances.push(balanceOf(asset, balance));
          }
        }
        // Only non-zero balances, as Turnkey answers; no price feed, so no USD value.
        return { balances: balances.filter((balance) => balance.balance !== '0') };
      },
      async list_supported_assets(_ctx, request) {
        const chain = chainOf(request.caip2);
        const nodeUrl = nodeFor(rpc, request.caip2);
        const known = chain.kind === 'eip155' ? await knownTokenAssets(request.caip2, nodeClient(nodeUrl), tokens[request.caip2] ?? []) : [];
        // **our choice**: no token is called a stablecoin, since the Sandbox has no list that says which are.
        return { assets: [nativeAsset(request.caip2, chain), ...known.map(({ asset }) => asset)].map((asset) => ({ ...asset, stable: false })) };
      },
      async list_eth_transaction_history(ctx, request) {
        const chain = chainOf(request.caip2);
        if (chain.kind !== 'eip155') throw new QkError('REQUEST_INVALID', `caip2: expected eip155:<chain id>, got ${request.caip2}`);
        const address = getAddress(requireWalletAccount(ctx, request.address, chain));
        return ethereumHistory(ctx, request.caip2, nodeFor(rpc, request.caip2), address, request.paginationOptions);
      },
      async list_sol_transaction_history(ctx, request) {
        const chain = chainOf(request.caip2);
        if (chain.kind !== 'solana')
          throw new QkError('REQUEST_INVALID', `caip2: expected solana:<genesis hash prefix or cluster name>, got ${request.caip2}`);
        const address = requireWalletAccount(ctx, request.address, chain) as Address;
        return solanaHistory(ctx, request.caip2, nodeFor(rpc, request.caip2), address, request.paginationOptions);
      },
    },
  };
}
