/**
 * Broadcasting and nonces (docs/sandbox.md#broadcasting-and-nonces): eth_send_raw_transaction hands a transaction
 * signed elsewhere to the chain's node (`--rpc`); eth_undelegate_7702 signs and sends an EIP-7702 authorization to
 * the zero address, which clears the account's delegation; get_nonces reads the account's nonce from the node;
 * get_gas_usage reports Gas Station spend, which in the Sandbox (no Gas Station) is always none.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  bytesToHex,
  getAddress,
  isAddress,
  keccak256,
  parseTransaction,
  serializeTransaction,
  zeroAddress,
  type Hex,
  type SignedAuthorizationList,
  type TransactionSerializable,
  type TransactionSerializableEIP1559,
} from 'viem';
import type { z } from 'zod';
import type { activityOperations } from '../../shared/api/activities';
import { decodeAuthorization, decodeEthereumTransaction, ethereumHex } from '../../shared/chains/ethereum';
import { QkError } from '../../shared/errors';
import type { ActivityContext, Family } from '../activities/context';
import type { Repositories } from '../store';
import { ethereumAbiLookup } from './contracts';
import {
  DEFAULT_MAX_NODE_FEE_WEI,
  ethereumChainId,
  nodeClient,
  nodeFor,
  nodeReason,
  optionalFields,
  readFromNode,
  sendAndRecord,
  signAndBroadcastEthereum,
  wei,
  type FilledByNode,
  type PreparedSend,
  type RpcNodes,
} from './send-transactions';
import { memoized, resolveSigner } from './signing';

type RawSendParams = z.output<(typeof activityOperations)['eth_send_raw_transaction']['parameters']>;
type UndelegateParams = z.output<(typeof activityOperations)['eth_undelegate_7702']['parameters']>;

/**
 * The gas an undelegation uses when the request gives none (**our choice** of Turnkey's "fixed undelegation gas
 * limit"): EIP-7702's intrinsic cost of a call with one authorization, 21,000 + 25,000. Once the authorization has
 * cleared the delegation, the call to the account itself runs no code.
 */
export const UNDELEGATION_GAS_LIMIT = 46_000n;

/** Gas Station's rolling window, reported by get_gas_usage: 30 days, the longest Turnkey offers. */
const GAS_USAGE_WINDOW_MINUTES = 30 * 24 * 60;

interface PreparedRawSend {
  nodeUrl: string;
  serialized: Hex;
  policy: Record<string, unknown>;
}

/**
 * Decodes the signed transaction as sign_transaction decodes an unsigned one (the same `eth.tx` for policies, plus
 * `from`, the address that signed it) and checks that it is for the chain the request names.
 */
function prepareRawSend(rpc: RpcNodes, store: Repositories, organizationId: string, params: RawSendParams): PreparedRawSend {
  const chainId = ethereumChainId(params.caip2);
  const what = 'parameters.signedTransaction';
  const serialized = ethereumHex(params.signedTransaction, what);
  let parsed: ReturnType<typeof parseTransaction>;
  try {
    parsed = parseTransaction(serialized);
  } catch (error) {
    throw new QkError('ENCODING_INVALID', `${what} is not a signed Ethereum transaction: ${nodeReason(error)}`);
  }
  const { r, s, v, yParity, ...fields } = parsed as typeof parsed & { v?: bigint; yParity?: number };
  if (r === undefined || s === undefined)
    throw new QkError('ENCODING_INVALID', `${what} carries no signature; sign it first, or use eth_send_transaction`);
  if (fields.chainId === undefined) {
    throw new QkError(
      'REQUEST_INVALID',
      `${what} has no chain id (a pre-EIP-155 transaction); the Sandbox broadcasts only transactions bound to ${params.caip2}`,
    );
  }
  if (fields.chainId !== chainId) {
    throw new QkError('REQUEST_INVALID', `${what} is for chain ${fields.chainId}, but parameters.caip2 is ${params.caip2}`, { caip2: params.caip2 });
  }
  // decodeEthereumTransaction reads the unsigned serialization, whose hash the sender signed.
  const decoded = decodeEthereumTransaction(serializeTransaction(fields as TransactionSerializable), ethereumAbiLookup(store, organizationId));
  const recovery = yParity ?? (v === undefined ? undefined : Number((v - 35n) % 2n === 0n ? 0 : 1));
  if (recovery === undefined) throw new QkError('ENCODING_INVALID', `${what} carries no recovery id (yParity or v)`);
  if (serializeTransaction(fields as TransactionSerializable, { r, s, yParity: recovery, v }) !== serialized) {
    throw new QkError('ENCODING_INVALID', `${what} is not in canonical RLP form (it does not serialize back to the same bytes)`);
  }
  const from = signerOf(decoded.signingHash, r, s, recovery, what);
  const nodeUrl = nodeFor(rpc, params.caip2);
  return { nodeUrl, serialized, policy: { eth: { tx: { ...decoded.policy, from } } } };
}

/** The address whose key made (r, s, recovery) over the signing hash. */
function signerOf(signingHash: Uint8Array, r: Hex, s: Hex, recovery: number, what: string): Hex {
  try {
    const signature = new secp256k1.Signature(BigInt(r), BigInt(s), recovery);
    const publicKey = signature.recoverPublicKey(signingHash).toBytes(false);
    return getAddress(`0x${keccak256(publicKey.slice(1)).slice(-40)}`);
  } catch (error) {
    throw new QkError('ENCODING_INVALID', `${what}: its signature does not recover a signer: ${nodeReason(error)}`);
  }
}

async function broadcastRaw(ctx: ActivityContext, caip2: string, prepared: PreparedRawSend): Promise<{ transactionHash: string }> {
  let transactionHash: string;
  try {
    transactionHash = await nodeClient(prepared.nodeUrl).sendRawTransaction({ serializedTransaction: prepared.serialized });
  } catch (error) {
    // Turnkey's result has only the hash: a refusal is the activity's failure, with the node's reason.
    throw new QkError('FAILED_PRECONDITION', `the node at ${caip2} refused the transaction: ${nodeReason(error)}`, { caip2 });
  }
  // Recorded as a send of this activity, so the transaction history names it as Turnkey's (origin TURNKEY).
  ctx.store.sentTransactions.insert({
    id: ctx.newId(),
    organizationId: ctx.organizationId,
    activityId: ctx.activityId,
    caip2,
    outcome: { txHash: transactionHash },
    createdAt: ctx.now,
  });
  return { transactionHash };
}

/**
 * An undelegation is an EIP-7702 transaction from the account to itself whose one authorization, signed by the same
 * account, delegates to the zero address. Policies read it as `eth.tx` (type TYPE_4, to = from) and the
 * authorization as `eth.eip_7702_authorization`, as sign_transaction and sign_raw_payload name them.
 */
function prepareUndelegation(rpc: RpcNodes, store: Repositories, organizationId: string, params: UndelegateParams): PreparedSend {
  const chainId = ethereumChainId(params.caip2);
  if (!isAddress(params.from, { strict: false })) throw new QkError('REQUEST_INVALID', `parameters.from: ${params.from} is not an Ethereum address`);
  const signer = resolveSigner(store, organizationId, params.from);
  if (signer.curve !== 'CURVE_SECP256K1') throw new QkError('REQUEST_INVALID', `parameters.from: ${params.from} is not a secp256k1 key`);
  const nodeUrl = nodeFor(rpc, params.caip2);
  const from = getAddress(params.from);
  const requested: TransactionSerializableEIP1559 = {
    type: 'eip1559',
    chainId,
    to: from,
    value: 0n,
    gas: wei(params.gasLimit, 'parameters.gasLimit') ?? UNDELEGATION_GAS_LIMIT,
    ...optionalFields({
      nonce: params.nonce === undefined ? undefined : Number(params.nonce),
      maxFeePerGas: wei(params.maxFeePerGas, 'parameters.maxFeePerGas'),
      maxPriorityFeePerGas: wei(params.maxPriorityFeePerGas, 'parameters.maxPriorityFeePerGas'),
    }),
  };
  if (requested.nonce !== undefined && !Number.isSafeInteger(requested.nonce)) throw new QkError('REQUEST_INVALID', 'parameters.nonce: too large');
  const policyTx = optionalFields({
    type: 'TYPE_4',
    from,
    to: from,
    value: 0n,
    data: '0x',
    chain_id: BigInt(chainId),
    gas: requested.gas,
    nonce: requested.nonce === undefined ? undefined : BigInt(requested.nonce),
    max_fee_per_gas: requested.maxFeePerGas,
    max_priority_fee_per_gas: requested.maxPriorityFeePerGas,
  });
  return {
    signer,
    from,
    nodeUrl,
    requested,
    policy: { eth: { tx: policyTx, eip_7702_authorization: { address: zeroAddress, chain_id: BigInt(chainId) } } },
  };
}

/** The zero-address authorization, signed by the account for the nonce after the transaction's own. */
function undelegationAuthorizer(ctx: ActivityContext, prepared: PreparedSend): (nonce: number) => Promise<SignedAuthorizationList> {
  return async (nonce) => {
    const authorization = { address: zeroAddress, chainId: prepared.requested.chainId, nonce: nonce + 1 };
    const { digest } = decodeAuthorization(JSON.stringify(authorization), 'the undelegation authorization');
    const signature = await ctx.enclave.sign(prepared.signer.source, { kind: 'digest', digest });
    return [{ ...authorization, r: bytesToHex(signature.r), s: bytesToHex(signature.s), yParity: signature.recovery }];
  };
}

export function broadcastingFamily(rpc: RpcNodes, maxNodeFeeWei: bigint = DEFAULT_MAX_NODE_FEE_WEI): Family {
  const preparedRawSend = memoized((store, organizationId, params: RawSendParams) => prepareRawSend(rpc, store, organizationId, params));
  const preparedUndelegation = memoized((store, organizationId, params: UndelegateParams) => prepareUndelegation(rpc, store, organizationId, params));
  return {
    activities: {
      eth_send_raw_transaction: {
        validate: (store, organizationId, params) => void preparedRawSend(store, organizationId, params),
        policyResources: (store, organizationId, params) => preparedRawSend(store, organizationId, params).policy,
        execute: (ctx, params) => broadcastRaw(ctx, params.caip2, preparedRawSend(ctx.store, ctx.organizationId, params)),
      },
      eth_undelegate_7702: {
        validate: (store, organizationId, params) => void preparedUndelegation(store, organizationId, params),
        policyResources(store, organizationId, params) {
          const prepared = preparedUndelegation(store, organizationId, params);
          return { ...prepared.signer.resources, ...prepared.policy };
        },
        async execute(ctx, params) {
          const prepared = preparedUndelegation(ctx.store, ctx.organizationId, params);
          const withAuthorization: PreparedSend = { ...prepared, authorize: undelegationAuthorizer(ctx, prepared) };
          const filledByNode: FilledByNode = {};
          const sent = await sendAndRecord(ctx, params.caip2, () => signAndBroadcastEthereum(ctx, withAuthorization, maxNodeFeeWei, filledByNode));
          // Not in Turnkey's result, as for eth_send_transaction: what the node chose.
          return Object.keys(filledByNode).length === 0 ? sent : { ...sent, filledByNode };
        },
      },
    },
    queries: {
      async get_nonces(ctx, request) {
        ethereumChainId(request.caip2);
        if (!isAddress(request.address, { strict: false })) {
          throw new QkError('REQUEST_INVALID', `address: ${request.address} is not an Ethereum address`);
        }
        if (request.gasStationNonce === true) {
          throw new QkError('REQUEST_INVALID', 'gasStationNonce: the Sandbox has no Gas Station, so no gas station nonce; ask for nonce only');
        }
        if (request.nonce !== true) throw new QkError('REQUEST_INVALID', 'nonce: ask for nonce: true, the one nonce the Sandbox reports');
        const client = nodeClient(nodeFor(rpc, request.caip2));
        // The pending count: the nonce the account's next transaction takes, as eth_send_transaction fills it.
        const nonce = await readFromNode(request.caip2, client.getTransactionCount({ address: getAddress(request.address), blockTag: 'pending' }));
        return { nonce: String(nonce) };
      },
      // Gas Station spend only: the Sandbox sponsors nothing, so nothing is used and nothing may be.
      get_gas_usage: () => ({ windowDurationMinutes: GAS_USAGE_WINDOW_MINUTES, windowLimitUsd: '0', usageUsd: '0' }),
    },
  };
}
