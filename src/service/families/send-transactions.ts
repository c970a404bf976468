/**
 * Sending transactions (docs/sandbox.md#sending-transactions): eth_send_transaction signs like sign_transaction, with
 * the nonce, gas limit and fees the request omits filled from the node its chain is configured with (`--rpc`), then
 * broadcasts; sol_send_transaction signs the given Solana transaction and broadcasts it as it is;
 * get_send_transaction_status asks that node whether the transaction was included.
 */
import { createSolanaRpc, type Base64EncodedWireTransaction, type Signature } from '@solana/kit';
import {
  createPublicClient,
  getAddress,
  http,
  isAddress,
  serializeTransaction,
  type Chain,
  type Hex,
  type PublicClient,
  type SignedAuthorizationList,
  type Tokens,
  type TransactionSerializable,
  type TransactionSerializableEIP1559,
  type Transport,
} from 'viem';
import type { z } from 'zod';
import type { activityOperations } from '../../shared/api/activities';
import { decodeEthereumTransaction, serializeSignedTransaction } from '../../shared/chains/ethereum';
import { hexToBytes } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import type { ActivityContext, Family } from '../activities/context';
import type { Repositories } from '../store';
import type { SentTransactionRecord } from '../store/sent-transactions';
import { ethereumAbiLookup } from './contracts';
import { revertChainOf, type RevertChainEntry } from './revert-chain';
import { memoized, prepareTransaction, resolveSigner, type PreparedTransaction, type Signer } from './signing';

/** CAIP-2 chain id → the JSON-RPC URL of the node the Sandbox sends that chain's transactions to. */
export type RpcNodes = Readonly<Record<string, string>>;

/** How long one JSON-RPC call to a node may take: execution holds the store's write lock meanwhile. */
export const NODE_TIMEOUT_MS = 10_000;

/**
 * The most an Ethereum transaction may cost in fees (gas × maxFeePerGas, in wei) when the node filled its gas limit
 * or fee: 0.1 of the chain's native unit unless the Sandbox is started with another (`--max-node-fee`).
 */
export const DEFAULT_MAX_NODE_FEE_WEI = 10n ** 17n;

/** A maxFeePerGas the node filled reserves at most this many times its recent base fee, on top of the tip. */
const BASE_FEE_MULTIPLE = 2n;

/** The blocks whose base fees are the node's recent base fee (the highest of them, and of the next block's). */
const RECENT_BLOCKS = 5;

/** The gas limit and fees of a transaction about to be signed. */
interface Fees {
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** What eth_send_transaction's request left out and the node filled in, as decimal strings (the intent's names). */
export interface FilledByNode {
  nonce?: string;
  gasLimit?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
}

type EthSendParams = z.output<(typeof activityOperations)['eth_send_transaction']['parameters']>;
type SolSendParams = z.output<(typeof activityOperations)['sol_send_transaction']['parameters']>;

export interface PreparedSend {
  signer: Signer;
  from: Hex;
  nodeUrl: string;
  /** The transaction as requested: what policies read; the omitted nonce and fees are filled at execution. */
  requested: TransactionSerializableEIP1559;
  policy: Record<string, unknown>;
  /**
   * For an EIP-7702 transaction: its authorizations, signed once the nonce is known (an authorization by the sender
   * itself must name the nonce after the transaction's).
   */
  authorize?: (nonce: number) => Promise<SignedAuthorizationList>;
}

export function nodeFor(rpc: RpcNodes, caip2: string): string {
  const url = rpc[caip2];
  if (url === undefined) {
    throw new QkError('REQUEST_INVALID', `parameters.caip2: no node is configured for ${caip2}; start the Sandbox with --rpc ${caip2}=URL`, {
      caip2,
    });
  }
  return url;
}

export function ethereumChainId(caip2: string): number {
  const match = /^eip155:([1-9]\d{0,15})$/.exec(caip2);
  if (match === null) throw new QkError('REQUEST_INVALID', `parameters.caip2: expected eip155:<chain id>, got ${caip2}`, { caip2 });
  return Number(match[1]);
}

export function wei(value: string | undefined, what: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new QkError('REQUEST_INVALID', `${what}: expected a decimal integer, got ${value}`);
  const parsed = BigInt(value);
  if (parsed >= 2n ** 256n) throw new QkError('REQUEST_INVALID', `${what}: must be below 2^256`);
  return parsed;
}

function callData(data: string | undefined): Hex | undefined {
  if (data === undefined || data === '') return undefined;
  const hex = data.startsWith('0x') ? data : `0x${data}`;
  if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new QkError('REQUEST_INVALID', 'parameters.calls[0].data: expected hex bytes');
  return hex as Hex;
}

function prepareEthSend(rpc: RpcNodes, store: Repositories, organizationId: string, params: EthSendParams): PreparedSend {
  const chainId = ethereumChainId(params.caip2);
  if (params.sponsor === true) {
    throw new QkError('REQUEST_INVALID', 'parameters.sponsor: the Sandbox has no Gas Station; send with sponsor false, paid by the sender');
  }
  if (params.calls.length !== 1) {
    throw new QkError(
      'REQUEST_INVALID',
      `parameters.calls: the Sandbox sends exactly one call (batches need Gas Station), got ${params.calls.length}`,
    );
  }
  const call = params.calls[0]!;
  if (!isAddress(call.to, { strict: false })) throw new QkError('REQUEST_INVALID', `parameters.calls[0].to: ${call.to} is not an Ethereum address`);
  if (!isAddress(params.from, { strict: false })) throw new QkError('REQUEST_INVALID', `parameters.from: ${params.from} is not an Ethereum address`);
  const signer = resolveSigner(store, organizationId, params.from);
  if (signer.curve !== 'CURVE_SECP256K1') throw new QkError('REQUEST_INVALID', `parameters.from: ${params.from} is not a secp256k1 key`);
  const nodeUrl = nodeFor(rpc, params.caip2);
  const requested: TransactionSerializableEIP1559 = {
    type: 'eip1559',
    chainId,
    to: getAddress(call.to),
    value: wei(call.value, 'parameters.calls[0].value') ?? 0n,
    ...optionalFields({
      data: callData(call.data),
      nonce: params.nonce === undefined ? undefined : Number(params.nonce),
      gas: wei(params.gasLimit, 'parameters.gasLimit'),
      maxFeePerGas: wei(params.maxFeePerGas, 'parameters.maxFeePerGas'),
      maxPriorityFeePerGas: wei(params.maxPriorityFeePerGas, 'parameters.maxPriorityFeePerGas'),
    }),
  };
  if (requested.nonce !== undefined && !Number.isSafeInteger(requested.nonce)) throw new QkError('REQUEST_INVALID', 'parameters.nonce: too large');
  const decoded = decodeEthereumTransaction(serializeTransaction(requested), ethereumAbiLookup(store, organizationId));
  const from = getAddress(params.from);
  return { signer, from, nodeUrl, requested, policy: { eth: { tx: { ...decoded.policy, from } } } };
}

export function optionalFields<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** A client of the node at `url`; with `batchSize`, concurrent calls go as JSON-RPC batches of that many. */
export function nodeClient(url: string, batchSize?: number): PublicClient {
  const batch = batchSize === undefined ? {} : { batch: { batchSize } };
  // PublicClient's own defaults as type arguments: inferred ones make a client type the checker compares with
  // PublicClient action by action, the costliest line of the typecheck.
  return createPublicClient<Transport, Chain | undefined, undefined, undefined, Tokens | undefined>({
    transport: http(url, { timeout: NODE_TIMEOUT_MS, retryCount: 0, ...batch }),
  });
}

/** The node's own words (viem's `details`) or viem's short reason, without its request dump. */
export function nodeReason(error: unknown): string {
  const { details, shortMessage, message } = error as { details?: unknown; shortMessage?: unknown; message?: unknown };
  for (const reason of [details, shortMessage]) if (typeof reason === 'string' && reason !== '') return reason;
  return String(message ?? error).split('\n')[0]!;
}

/** A node read a query depends on: a node that fails to answer is the query's failure, naming the chain. */
export async function readFromNode<T>(caip2: string, read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    throw new QkError('NETWORK_ERROR', `the node for ${caip2} did not answer: ${nodeReason(error)}`, { caip2 });
  }
}

/**
 * Fills what the request left out as Turnkey does (pending nonce, the node's fee estimate, estimated gas), recording
 * each value the node gave in `filledByNode`; refuses fees beyond the bounds (`checkNodeFees`) before anything is
 * signed; then signs and broadcasts.
 */
export async function signAndBroadcastEthereum(
  ctx: ActivityContext,
  prepared: PreparedSend,
  maxNodeFeeWei: bigint,
  filledByNode: FilledByNode,
): Promise<{ txHash: string }> {
  const client = nodeClient(prepared.nodeUrl);
  const nodeChainId = await client.getChainId();
  if (nodeChainId !== prepared.requested.chainId) {
    throw new Error(`the node at ${prepared.nodeUrl} serves chain ${nodeChainId}, not ${prepared.requested.chainId}`);
  }
  const { requested, from } = prepared;
  const estimatedFees =
    requested.maxFeePerGas !== undefined && requested.maxPriorityFeePerGas !== undefined ? undefined : await client.estimateFeesPerGas();
  const fees: Fees = {
    maxFeePerGas: requested.maxFeePerGas ?? estimatedFees!.maxFeePerGas,
    maxPriorityFeePerGas: requested.maxPriorityFeePerGas ?? estimatedFees!.maxPriorityFeePerGas,
    gas:
      requested.gas ??
      (await client.estimateGas({ account: from, to: requested.to!, value: requested.value, ...optionalFields({ data: requested.data }) })),
  };
  const nonce = requested.nonce ?? (await client.getTransactionCount({ address: from, blockTag: 'pending' }));
  Object.assign(
    filledByNode,
    optionalFields({
      nonce: requested.nonce === undefined ? String(nonce) : undefined,
      gasLimit: requested.gas === undefined ? String(fees.gas) : undefined,
      maxFeePerGas: requested.maxFeePerGas === undefined ? String(fees.maxFeePerGas) : undefined,
      maxPriorityFeePerGas: requested.maxPriorityFeePerGas === undefined ? String(fees.maxPriorityFeePerGas) : undefined,
    }),
  );
  await checkNodeFees(client, fees, filledByNode, maxNodeFeeWei);
  const filled: TransactionSerializable =
    prepared.authorize === undefined
      ? { ...requested, ...fees, nonce }
      : { ...requested, ...fees, nonce, type: 'eip7702', authorizationList: await prepared.authorize(nonce) };
  const decoded = decodeEthereumTransaction(serializeTransaction(filled));
  const signed = serializeSignedTransaction(
    decoded.fields,
    await ctx.enclave.sign(prepared.signer.source, { kind: 'digest', digest: decoded.signingHash }),
  );
  return { txHash: await client.sendRawTransaction({ serializedTransaction: `0x${signed}` }) };
}

/**
 * A node proposes the gas and fees a request leaves out, and a wrong or hostile one could propose any: a filled
 * maxFeePerGas may reserve at most BASE_FEE_MULTIPLE times the node's recent base fee on top of the tip, and a
 * transaction whose gas limit or fee the node filled may cost at most `maxNodeFeeWei` (gas × maxFeePerGas).
 * Fees the request gave itself are the requester's and are not bounded.
 */
async function checkNodeFees(client: PublicClient, fees: Fees, filledByNode: FilledByNode, maxNodeFeeWei: bigint): Promise<void> {
  const { gas, maxFeePerGas, maxPriorityFeePerGas } = fees;
  if (filledByNode.maxFeePerGas !== undefined) {
    const history = await client.getFeeHistory({ blockCount: RECENT_BLOCKS, rewardPercentiles: [] });
    const recentBaseFee = history.baseFeePerGas.reduce((highest, fee) => (fee > highest ? fee : highest), 0n);
    const bound = BASE_FEE_MULTIPLE * recentBaseFee + maxPriorityFeePerGas;
    if (maxFeePerGas > bound) {
      throw new Error(
        `refused before signing: the node proposed maxFeePerGas ${maxFeePerGas} wei, more than ${BASE_FEE_MULTIPLE} × its recent base fee ${recentBaseFee} wei + the tip ${maxPriorityFeePerGas} wei = ${bound} wei; give maxFeePerGas in the request to pay more`,
      );
    }
  }
  if (filledByNode.gasLimit !== undefined || filledByNode.maxFeePerGas !== undefined) {
    const fee = gas * maxFeePerGas;
    if (fee > maxNodeFeeWei) {
      throw new Error(
        `refused before signing: with the gas limit and fee the node filled in (${gas} gas × maxFeePerGas ${maxFeePerGas} wei) the fee could reach ${fee} wei, more than the Sandbox's bound of ${maxNodeFeeWei} wei (--max-node-fee); give gasLimit and maxFeePerGas in the request to pay more`,
      );
    }
  }
}

interface PreparedSolSend {
  transaction: PreparedTransaction;
  nodeUrl: string;
}

function prepareSolSend(rpc: RpcNodes, store: Repositories, organizationId: string, params: SolSendParams): PreparedSolSend {
  if (!/^solana:[1-9A-HJ-NP-Za-km-z]{1,44}$/.test(params.caip2)) {
    throw new QkError('REQUEST_INVALID', `parameters.caip2: expected solana:<genesis hash prefix or cluster name>, got ${params.caip2}`, {
      caip2: params.caip2,
    });
  }
  if (params.sponsor === true) {
    throw new QkError('REQUEST_INVALID', 'parameters.sponsor: the Sandbox has no Gas Station; send with sponsor false, paid by the fee payer');
  }
  if (params.recentBlockhash !== undefined) {
    throw new QkError(
      'REQUEST_INVALID',
      'parameters.recentBlockhash: the Sandbox sends the transaction as it is; put the blockhash in the transaction',
    );
  }
  const [signWith, ...others] = params.signWiths;
  if (signWith === undefined || others.length > 0) {
    throw new QkError('REQUEST_INVALID', `parameters.signWiths: the Sandbox signs with exactly one signer, got ${params.signWiths.length}`);
  }
  const transaction = prepareTransaction(store, organizationId, {
    signWith,
    unsignedTransaction: params.unsignedTransaction,
    type: 'TRANSACTION_TYPE_SOLANA',
  });
  return { transaction, nodeUrl: nodeFor(rpc, params.caip2) };
}

async function signAndBroadcastSolana(ctx: ActivityContext, prepared: PreparedSolSend): Promise<{ txHash: string }> {
  const signed = await prepared.transaction.sign(ctx.enclave);
  const wire = Buffer.from(hexToBytes(signed, 'signed transaction')).toString('base64') as Base64EncodedWireTransaction;
  const signature = await createSolanaRpc(prepared.nodeUrl)
    .sendTransaction(wire, { encoding: 'base64' })
    .send({ abortSignal: AbortSignal.timeout(NODE_TIMEOUT_MS) });
  return { txHash: signature };
}

/** Turnkey's status values: INITIALIZED, BROADCASTING, INCLUDED, FAILED (execution broadcasts, so never the first). */
type SendStatus = { txStatus: string; txError?: string; error?: { message: string; revertChain?: RevertChainEntry[] } };

function failed(message: string, revertChain?: RevertChainEntry[]): SendStatus {
  return { txStatus: 'FAILED', txError: message, error: { message, ...(revertChain === undefined ? {} : { revertChain }) } };
}

async function ethereumStatus(url: string, txHash: string): Promise<SendStatus> {
  const client = nodeClient(url);
  const receipt = await client.getTransactionReceipt({ hash: txHash as Hex }).catch(() => undefined);
  if (receipt === undefined) return { txStatus: 'BROADCASTING' };
  if (receipt.status !== 'reverted') return { txStatus: 'INCLUDED' };
  const revertChain = await revertChainOf(client, receipt).catch(() => undefined);
  const reason = revertChain === undefined ? '' : `: ${revertChain[0]!.displayMessage}`;
  return failed(`reverted in block ${receipt.blockNumber}${reason}`, revertChain);
}

async function solanaStatus(url: string, signature: string): Promise<SendStatus> {
  const statuses = await createSolanaRpc(url)
    .getSignatureStatuses([signature as Signature])
    .send({ abortSignal: AbortSignal.timeout(NODE_TIMEOUT_MS) })
    .catch(() => undefined);
  const status = statuses?.value[0];
  if (status === undefined || status === null || status.confirmationStatus === 'processed') return { txStatus: 'BROADCASTING' };
  return status.err === null
    ? { txStatus: 'INCLUDED' }
    : failed(
        `failed in slot ${status.slot}: ${JSON.stringify(status.err, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}`,
      );
}

/**
 * What get_send_transaction_status answers for a send: its status as its chain's node reports it now. Also read by the
 * webhooks that report status changes (webhooks/send-statuses.ts).
 */
export async function sendStatusOf(rpc: RpcNodes, sent: SentTransactionRecord) {
  if ('error' in sent.outcome) return failed(sent.outcome.error);
  const { txHash } = sent.outcome;
  const solana = sent.caip2.startsWith('solana:');
  const identity = solana ? { solana: { signature: txHash } } : { eth: { txHash } };
  const url = rpc[sent.caip2];
  // Configured at the send; a restart without that --rpc can no longer tell.
  if (url === undefined) return { txStatus: 'BROADCASTING', ...identity };
  return { ...(solana ? await solanaStatus(url, txHash) : await ethereumStatus(url, txHash)), ...identity };
}

/** The node's refusal (funds, nonce, a wrong chain) is the transaction's status, as Turnkey reports it, not the activity's. */
export async function sendAndRecord(
  ctx: ActivityContext,
  caip2: string,
  send: () => Promise<{ txHash: string }>,
): Promise<{ sendTransactionStatusId: string }> {
  const outcome = await send().catch((error: unknown) => ({ error: nodeReason(error) }));
  const id = ctx.newId();
  ctx.store.sentTransactions.insert({ id, organizationId: ctx.organizationId, activityId: ctx.activityId, caip2, outcome, createdAt: ctx.now });
  return { sendTransactionStatusId: id };
}

export function sendTransactionsFamily(rpc: RpcNodes, maxNodeFeeWei: bigint = DEFAULT_MAX_NODE_FEE_WEI): Family {
  const preparedEthSend = memoized((store, organizationId, params: EthSendParams) => prepareEthSend(rpc, store, organizationId, params));
  const preparedSolSend = memoized((store, organizationId, params: SolSendParams) => prepareSolSend(rpc, store, organizationId, params));
  return {
    activities: {
      eth_send_transaction: {
        validate: (store, organizationId, params) => void preparedEthSend(store, organizationId, params),
        policyResources(store, organizationId, params) {
          const prepared = preparedEthSend(store, organizationId, params);
          return { ...prepared.signer.resources, ...prepared.policy };
        },
        async execute(ctx, params) {
          const prepared = preparedEthSend(ctx.store, ctx.organizationId, params);
          const filledByNode: FilledByNode = {};
          const sent = await sendAndRecord(ctx, params.caip2, () => signAndBroadcastEthereum(ctx, prepared, maxNodeFeeWei, filledByNode));
          // Not in Turnkey's result: what the node chose, so that the activity shows what was signed (or refused).
          return Object.keys(filledByNode).length === 0 ? sent : { ...sent, filledByNode };
        },
      },
      sol_send_transaction: {
        validate: (store, organizationId, params) => void preparedSolSend(store, organizationId, params),
        policyResources(store, organizationId, params) {
          const { transaction } = preparedSolSend(store, organizationId, params);
          return { ...transaction.signer.resources, ...transaction.policy };
        },
        async execute(ctx, params) {
          const prepared = preparedSolSend(ctx.store, ctx.organizationId, params);
          return sendAndRecord(ctx, params.caip2, () => signAndBroadcastSolana(ctx, prepared));
        },
      },
    },
    queries: {
      async get_send_transaction_status(ctx, request) {
        const sent = ctx.store.sentTransactions.get(ctx.organizationId, request.sendTransactionStatusId);
        if (sent === undefined) {
          throw new QkError('NOT_FOUND', `no sent transaction ${request.sendTransactionStatusId} in organization ${ctx.organizationId}`);
        }
        return sendStatusOf(rpc, sent);
      },
    },
  };
}
