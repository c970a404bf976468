/**
 * Signing (docs/service.md, "Signing"): sign_raw_payload, sign_raw_payloads and sign_transaction with a key of
 * the request's organization, named by `signWith` (a wallet account address, a private key's address or a private
 * key id). Everything the request says is decoded and checked before anything is recorded, so bad input is a 400;
 * the decoded transaction or typed data is what policies read (`eth.tx`, `eth.eip_712`, …).
 */
import { getAddress, isAddress } from 'viem';
import type { z } from 'zod';
import type { transactionType } from '../../shared/api/enums';
import { decodeEthereumTransaction, serializeSignedTransaction } from '../../shared/chains/ethereum';
import { prepareRawPayload, type HashFunction, type PayloadEncoding, type PreparedPayload } from '../../shared/chains/raw-payload';
import { bitcoinNetworkOfFormats, decodeBitcoinPsbt, type BitcoinNetworkName } from '../../shared/chains/bitcoin';
import { decodeSolanaTransaction } from '../../shared/chains/solana';
import { hexToBytes } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import type { PolicyStruct } from '../../shared/policy';
import type { Family } from '../activities/context';
import type { Enclave, SigningKeySource } from '../enclave';
import { addressFor } from '../enclave/addresses';
import { isCurve, type Curve } from '../enclave/derivation';
import { bitcoinInputsOwnedBy } from '../enclave/sign-bitcoin';
import type { Repositories } from '../store';
import { ethereumAbiLookup, solanaIdls } from './contracts';
import { privateKeyPolicyResource } from './private-keys';
import { walletPolicyResource } from './wallets';

/** The key `signWith` names, and the condition keywords it answers to (`wallet` + `wallet_account`, or `private_key`). */
export interface Signer {
  source: SigningKeySource;
  curve: Curve;
  resources: Record<string, PolicyStruct>;
  /** The address `signWith` named (as stored) and its format; absent when it named a private key id. */
  namedAddress?: { address: string; format: string };
  /** The formats of every address the key has. */
  addressFormats: string[];
}

function curveOf(curve: string, owner: string): Curve {
  if (!isCurve(curve)) throw new QkError('INTERNAL', `${owner} is stored with an unknown curve ${curve}`);
  return curve;
}

/** Spellings of `signWith` to look up: Ethereum addresses match whatever their letter case. */
function addressSpellings(signWith: string): string[] {
  if (!isAddress(signWith, { strict: false })) return [signWith];
  return [...new Set([signWith, getAddress(signWith), signWith.toLowerCase()])];
}

export function resolveSigner(store: Repositories, organizationId: string, signWith: string): Signer {
  const { walletAccounts, wallets, privateKeys } = store;
  for (const spelling of addressSpellings(signWith)) {
    const account = walletAccounts.findByAddress(organizationId, spelling);
    const wallet = account === undefined ? undefined : wallets.get(organizationId, account.walletId);
    if (account !== undefined && wallet !== undefined) {
      const curve = curveOf(account.curve, `wallet account ${account.address}`);
      return {
        source: {
          kind: 'walletAccount',
          walletId: wallet.id,
          sealedSecret: wallet.sealedSecret,
          curve,
          path: account.path,
          publicKey: account.publicKey,
        },
        curve,
        resources: { wallet: walletPolicyResource(wallet), wallet_account: { address: account.address } },
        namedAddress: { address: account.address, format: account.addressFormat },
        addressFormats: [account.addressFormat],
      };
    }
  }
  const key =
    privateKeys.get(organizationId, signWith) ??
    addressSpellings(signWith)
      .map((spelling) => privateKeys.findByAddress(organizationId, spelling))
      .find((found) => found !== undefined);
  if (key !== undefined) {
    const curve = curveOf(key.curve, `private key ${key.id}`);
    const named = key.id === signWith ? undefined : key.addresses.find((entry) => addressSpellings(signWith).includes(entry.address));
    return {
      source: { kind: 'privateKey', privateKeyId: key.id, sealedSecret: key.sealedSecret, curve, publicKey: key.publicKey },
      curve,
      resources: { private_key: privateKeyPolicyResource(key) },
      ...(named === undefined ? {} : { namedAddress: named }),
      addressFormats: key.addresses.map((entry) => entry.format),
    };
  }
  throw new QkError(
    'REQUEST_INVALID',
    `parameters.signWith: ${signWith} is not a wallet account address, private key address or private key id of organization ${organizationId}`,
    { signWith, organizationId },
  );
}

// ─── raw payloads ─────────────────────────────────────────────────────────────────────────────

interface RawParams {
  signWith: string;
  encoding: PayloadEncoding;
  hashFunction: HashFunction;
}

interface PreparedRaw {
  signer: Signer;
  payloads: PreparedPayload[];
}

function prepareRaw(
  store: Repositories,
  organizationId: string,
  params: RawParams,
  payloads: readonly { payload: string; what: string }[],
): PreparedRaw {
  const signer = resolvedSigner(store, organizationId, params);
  return {
    signer,
    payloads: payloads.map(({ payload, what }) =>
      prepareRawPayload({ payload, encoding: params.encoding, hashFunction: params.hashFunction, curve: signer.curve, what }),
    ),
  };
}

const singlePayload = (params: { payload: string }) => [{ payload: params.payload, what: 'parameters.payload' }];

function manyPayloads(params: { payloads: readonly string[] }) {
  if (params.payloads.length === 0) throw new QkError('REQUEST_INVALID', 'parameters.payloads: send at least one payload to sign');
  return params.payloads.map((payload, index) => ({ payload, what: `parameters.payloads[${index}]` }));
}

function rawPolicyResources(prepared: PreparedRaw, single: boolean): Record<string, unknown> {
  const structured = single ? prepared.payloads[0]?.policy : undefined;
  return { ...prepared.signer.resources, ...(structured === undefined ? {} : { eth: structured }) };
}

// ─── transactions ─────────────────────────────────────────────────────────────────────────────

type TransactionType = z.infer<typeof transactionType>;

interface TransactionParams {
  signWith: string;
  unsignedTransaction: string;
  type: TransactionType;
}

export interface PreparedTransaction {
  signer: Signer;
  /** The condition keywords of the decoded transaction (`eth`, `solana`, `bitcoin`). */
  policy: Record<string, unknown>;
  /** Signs on the enclave's workers and answers the signed transaction, hex. */
  sign: (enclave: Enclave) => Promise<string>;
}

function requireCurve(signer: Signer, curve: Curve, type: TransactionType, signWith: string): void {
  if (signer.curve !== curve) {
    throw new QkError('REQUEST_INVALID', `parameters.signWith: ${type} is signed by a ${curve} key; ${signWith} is a ${signer.curve} key`, {
      signWith,
      curve: signer.curve,
    });
  }
}

function prepareEthereum(store: Repositories, organizationId: string, params: TransactionParams, signer: Signer): PreparedTransaction {
  requireCurve(signer, 'CURVE_SECP256K1', params.type, params.signWith);
  const decoded = decodeEthereumTransaction(params.unsignedTransaction, ethereumAbiLookup(store, organizationId));
  const from = addressFor({
    curve: 'CURVE_SECP256K1',
    publicKey: hexToBytes(signer.source.publicKey, 'stored public key'),
    format: 'ADDRESS_FORMAT_ETHEREUM',
  });
  return {
    signer,
    policy: { eth: { tx: { ...decoded.policy, from } } },
    sign: async (enclave) =>
      serializeSignedTransaction(decoded.fields, await enclave.sign(signer.source, { kind: 'digest', digest: decoded.signingHash })),
  };
}

function prepareSolana(store: Repositories, organizationId: string, params: TransactionParams, signer: Signer): PreparedTransaction {
  requireCurve(signer, 'CURVE_ED25519', params.type, params.signWith);
  const bytes = hexToBytes(params.unsignedTransaction, 'parameters.unsignedTransaction');
  const decoded = decodeSolanaTransaction(bytes, solanaIdls(store, organizationId));
  const address = addressFor({
    curve: 'CURVE_ED25519',
    publicKey: hexToBytes(signer.source.publicKey, 'stored public key'),
    format: 'ADDRESS_FORMAT_SOLANA',
  });
  if (!decoded.requiredSigners.includes(address)) {
    throw new QkError(
      'REQUEST_INVALID',
      `parameters.signWith: ${address} is not a required signer of this Solana transaction (required: ${decoded.requiredSigners.join(', ')})`,
      { signWith: params.signWith, requiredSigners: decoded.requiredSigners },
    );
  }
  return {
    signer,
    policy: { solana: { tx: decoded.policy } },
    sign: (enclave) => enclave.sign(signer.source, { kind: 'solana', transaction: bytes, signer: address }),
  };
}

/** ADDRESS_FORMAT_BITCOIN_<NETWORK>_<TYPE> → the network; the address signWith named decides, else the key's first. */
function bitcoinNetworkOf(signer: Signer): BitcoinNetworkName {
  return bitcoinNetworkOfFormats(signer.namedAddress === undefined ? signer.addressFormats : [signer.namedAddress.format]);
}

/** The PSBT travels as hex both ways; the signed one is returned unfinalized, for its owner to finalize. */
function prepareBitcoin(params: TransactionParams, signer: Signer): PreparedTransaction {
  requireCurve(signer, 'CURVE_SECP256K1', params.type, params.signWith);
  const bytes = hexToBytes(params.unsignedTransaction, 'parameters.unsignedTransaction');
  const network = bitcoinNetworkOf(signer);
  const decoded = decodeBitcoinPsbt(bytes, network);
  const options = signer.namedAddress === undefined ? { network } : { network, address: signer.namedAddress.address };
  // A PSBT with nothing for this key is a bad request, refused before anything is recorded or any key opened.
  bitcoinInputsOwnedBy(bytes, hexToBytes(signer.source.publicKey, 'stored public key'), options);
  return {
    signer,
    policy: { bitcoin: { tx: decoded.policy } },
    sign: (enclave) => enclave.sign(signer.source, { kind: 'psbt', psbt: bytes, options }),
  };
}

const NOT_YET: Partial<Record<TransactionType, string>> = {
  TRANSACTION_TYPE_TRON: 'Tron transactions',
  TRANSACTION_TYPE_TEMPO: 'Tempo transactions',
};

export function prepareTransaction(store: Repositories, organizationId: string, params: TransactionParams): PreparedTransaction {
  const signer = resolvedSigner(store, organizationId, params);
  if (params.type === 'TRANSACTION_TYPE_ETHEREUM') return prepareEthereum(store, organizationId, params, signer);
  if (params.type === 'TRANSACTION_TYPE_SOLANA') return prepareSolana(store, organizationId, params, signer);
  if (params.type === 'TRANSACTION_TYPE_BITCOIN') return prepareBitcoin(params, signer);
  throw new QkError(
    'REQUEST_INVALID',
    `parameters.type: ${params.type} is not supported by this service yet: it does not sign ${NOT_YET[params.type]}`,
    {
      type: params.type,
    },
  );
}

/**
 * Decoding is the expensive part and validate, policyResources and execute all need it; within one submission they
 * receive the same parameters object, so the decoded form is kept with it.
 */
export function memoized<P extends object, R>(prepare: (store: Repositories, organizationId: string, params: P) => R) {
  const cache = new WeakMap<P, { store: Repositories; organizationId: string; prepared: R }>();
  return (store: Repositories, organizationId: string, params: P): R => {
    const hit = cache.get(params);
    if (hit !== undefined && hit.store === store && hit.organizationId === organizationId) return hit.prepared;
    const prepared = prepare(store, organizationId, params);
    cache.set(params, { store, organizationId, prepared });
    return prepared;
  };
}

/**
 * The key `signWith` names, resolved once per submission: its resources are read before decoding (so a proposal no
 * policy could allow is refused early), and decoding needs the key again, within the same transaction.
 */
const resolvedSigner = memoized((store, organizationId, params: { signWith: string }) => resolveSigner(store, organizationId, params.signWith));

const preparedSingle = memoized((store, organizationId, params: RawParams & { payload: string }) =>
  prepareRaw(store, organizationId, params, singlePayload(params)),
);
const preparedMany = memoized((store, organizationId, params: RawParams & { payloads: string[] }) =>
  prepareRaw(store, organizationId, params, manyPayloads(params)),
);
const preparedTransaction = memoized(prepareTransaction);

/** The key's resources (`wallet`, `wallet_account`, `private_key`): known from `signWith` alone, without decoding. */
const signerResources = (store: Repositories, organizationId: string, params: { signWith: string }) =>
  resolvedSigner(store, organizationId, params).resources;

export const signingFamily: Family = {
  activities: {
    sign_raw_payload: {
      resourcesBeforeDecoding: signerResources,
      validate: (store, organizationId, params) => void preparedSingle(store, organizationId, params),
      policyResources: (store, organizationId, params) => rawPolicyResources(preparedSingle(store, organizationId, params), true),
      signAhead(store, organizationId, params, enclave) {
        const { signer, payloads } = preparedSingle(store, organizationId, params);
        return enclave.signRawPayloadsAhead(signer.source, [payloads[0]!.signable]);
      },
      async execute(ctx, params) {
        const { signer, payloads } = preparedSingle(ctx.store, ctx.organizationId, params);
        const [signature] = await ctx.enclave.signRawPayloads(signer.source, [payloads[0]!.signable], ctx.signedAhead);
        return signature!;
      },
    },
    sign_raw_payloads: {
      resourcesBeforeDecoding: signerResources,
      validate: (store, organizationId, params) => void preparedMany(store, organizationId, params),
      policyResources: (store, organizationId, params) => rawPolicyResources(preparedMany(store, organizationId, params), false),
      signAhead(store, organizationId, params, enclave) {
        const { signer, payloads } = preparedMany(store, organizationId, params);
        return enclave.signRawPayloadsAhead(
          signer.source,
          payloads.map((payload) => payload.signable),
        );
      },
      async execute(ctx, params) {
        const { signer, payloads } = preparedMany(ctx.store, ctx.organizationId, params);
        const signatures = await ctx.enclave.signRawPayloads(
          signer.source,
          payloads.map((payload) => payload.signable),
          ctx.signedAhead,
        );
        return { signatures };
      },
    },
    sign_transaction: {
      resourcesBeforeDecoding: signerResources,
      validate: (store, organizationId, params) => void preparedTransaction(store, organizationId, params),
      policyResources(store, organizationId, params) {
        const prepared = preparedTransaction(store, organizationId, params);
        return { ...prepared.signer.resources, ...prepared.policy };
      },
      async execute(ctx, params) {
        const prepared = preparedTransaction(ctx.store, ctx.organizationId, params);
        return { signedTransaction: await prepared.sign(ctx.enclave) };
      },
    },
  },
};
