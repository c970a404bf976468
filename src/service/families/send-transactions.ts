/**
 * Sending transactions (docs/sandbox.md#sending-transactions): eth_send_transaction signs like sign_transaction, with
 * the nonce, gas limit and fees the request omits filled from the node its chain is configured with (`--rpc`), then
 * broadcasts; get_send_transaction_status asks that node whether the transaction was included.
 */
import { createPublicClient, getAddress, http, isAddress, serializeTransaction, type Hex, type PublicClient, type TransactionSerializableEIP1559 } from 'viem';
import type { z } from 'zod';
import type { activityOperations } from '../../shared/api/activities';
import { decodeEthereumTransaction, serializeSignedTransaction } from '../../shared/chains/ethereum';
import { QkError } from '../../shared/errors';
import type { ActivityContext, Family } from '../activities/context';
import { signDigest } from '../enclave/signing';
import type { Repositories } from '../store';
import { ethereumAbiLookup } from './contracts';
import { memoized, resolveSigner, type Signer } from './signing';

/** CAIP-2 chain id → the JSON-RPC URL of the node the Sandbox sends that chain's transactions to. */
export type RpcNodes = Readonly<Record<string, string>>;

/** How long one JSON-RPC call to a node may take: execution holds the store's write lock meanwhile. */
const NODE_TIMEOUT_MS = 10_000;

type EthSendParams = z.output<(typeof activityOperations)['eth_send_transaction']['parameters']>;

interface PreparedSend {
  signer: Signer;
  from: Hex;
  nodeUrl: string;
  /** The transaction as requested: what policies read; the omitted nonce and fees are filled at execution. */
  requested: TransactionSerializableEIP1559;
  policy: Record<string, unknown>;
}

function nodeFor(rpc: RpcNodes, caip2: string): string {
  const url = rpc[caip2];
  if (url === undefined) {
    throw new QkError('REQUEST_INVALID', `parameters.caip2: no node is configured for ${caip2}; start the Sandbox with --rpc ${caip2}=URL`, { caip2 });
  }
  return url;
}

function ethereumChainId(caip2: string): number {
  const match = /^eip155:([1-9]\d{0,15})$/.exec(caip2);
  if (match === null) throw new QkError('REQUEST_INVALID', `parameters.caip2: expected eip155:<chain id>, got ${caip2}`, { caip2 });
  return Number(match[1]);
}

function wei(value: string | undefined, what: string): bigint | undefined {
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
    throw new QkError('REQUEST_INVALID', `parameters.calls: the Sandbox sends exactly one call (batches need Gas Station), got ${params.calls.length}`);
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

function optionalFields<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function nodeClient(url: string): PublicClient {
  return createPublicClient({ transport: http(url, { timeout: NODE_TIMEOUT_MS, retryCount: 0 }) });
}

/** The node's own words (viem's `details`) or viem's short reason, without its request dump. */
function nodeReason(error: unknown): string {
  const { details, shortMessage, message } = error as { details?: unknown; shortMessage?: unknown; message?: unknown };
  for (const reason of [details, shortMessage]) if (typeof reason === 'string' && reason !== '') return reason;
  return String(message ?? error).split('\n')[0]!;
}

/** Fills what the request left out as Turnkey does (pending nonce, the node's fee estimate, estimated gas), signs and broadcasts. */
async function signAndBroadcast(ctx: ActivityContext, prepared: PreparedSend): Promise<{ txHash: string }> {
  const client = nodeClient(prepared.nodeUrl);
  const nodeChainId = await client.getChainId();
  if (nodeChainId !== prepared.requested.chainId) {
    throw new Error(`the node at ${prepared.nodeUrl} serves chain ${nodeChainId}, not ${prepared.requested.chainId}`);
  }
  const { requested, from } = prepared;
  const fees =
    requested.maxFeePerGas !== undefined && requested.maxPriorityFeePerGas !== undefined
      ? { maxFeePerGas: requested.maxFeePerGas, maxPriorityFeePerGas: requested.maxPriorityFeePerGas }
      : { ...(await client.estimateFeesPerGas()), ...optionalFields({ maxFeePerGas: requested.maxFeePerGas, maxPriorityFeePerGas: requested.maxPriorityFeePerGas }) };
  const filled: TransactionSerializableEIP1559 = {
    ...requested,
    ...fees,
    nonce: requested.nonce ?? (await client.getTransactionCount({ address: from, blockTag: 'pending' })),
    gas: requested.gas ?? (await client.estimateGas({ account: from, to: requested.to!, value: requested.value, ...optionalFields({ data: requested.data }) })),
  };
  const decoded = decodeEthereumTransaction(serializeTransaction(filled));
  const signed = await ctx.enclave.withSigningKey(prepared.signer.source, (key) => serializeSignedTransaction(decoded.fields, signDigest(key, decoded.signingHash)));
  return { txHash: await client.sendRawTransaction({ serializedTransaction: `0x${signed}` }) };
}

export function sendTransactionsFamily(rpc: RpcNodes): Family {
  const preparedEthSend = memoized((store, organizationId, params: EthSendParams) => prepareEthSend(rpc, store, organizationId, params));
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
          // The node's refusal (funds, nonce, a wrong chain) is the transaction's status, as Turnkey reports it.
          const outcome = await signAndBroadcast(ctx, prepared).catch((error: unknown) => ({ error: nodeReason(error) }));
          const id = ctx.newId();
          ctx.store.sentTransactions.insert({ id, organizationId: ctx.organizationId, activityId: ctx.activityId, caip2: params.caip2, outcome, createdAt: ctx.now });
          return { sendTransactionStatusId: id };
        },
      },
    },
    queries: {
      async get_send_transaction_status(ctx, request) {
        const sent = ctx.store.sentTransactions.get(ctx.organizationId, request.sendTransactionStatusId);
        if (sent === undefined) {
          throw new QkError('NOT_FOUND', `no sent transaction ${request.sendTransactionStatusId} in organization ${ctx.organizationId}`);
        }
        if ('error' in sent.outcome) return { txStatus: 'FAILED', txError: sent.outcome.error, error: { message: sent.outcome.error } };
        const eth = { txHash: sent.outcome.txHash };
        const url = rpc[sent.caip2];
        // Configured at the send; a restart without that --rpc can no longer tell.
        if (url === undefined) return { txStatus: 'BROADCASTED', eth };
        const receipt = await nodeClient(url)
          .getTransactionReceipt({ hash: sent.outcome.txHash as Hex })
          .catch(() => undefined);
        if (receipt === undefined) return { txStatus: 'BROADCASTED', eth };
        if (receipt.status === 'reverted') {
          const message = `reverted in block ${receipt.blockNumber}`;
          return { txStatus: 'FAILED', eth, txError: message, error: { message } };
        }
        return { txStatus: 'INCLUDED', eth };
      },
    },
  };
}
