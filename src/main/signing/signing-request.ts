/**
 * A signing request as the app handles it (sign_transaction, sign_raw_payload, sign_raw_payloads), read from an
 * activity's intent or typed by a person, and the condition keywords policies see for it. The keywords come from the
 * shared chain decoders exactly as the service builds them when it authorizes: the signer's `wallet` +
 * `wallet_account` or `private_key`, and the decoded `eth.tx` (with `from`), `solana.tx`, `bitcoin.tx`, `eth.eip_712`.
 */
import type { Abi } from 'viem';
import { activityOperations, operations, type ParamsOf, type PrivateKey, type Wallet, type WalletAccount } from '../../shared/api';
import { decodeBitcoinPsbt, type BitcoinNetworkName } from '../../shared/chains/bitcoin';
import { decodeEthereumTransaction } from '../../shared/chains/ethereum';
import { prepareRawPayload } from '../../shared/chains/raw-payload';
import { decodeSolanaTransaction, type SolanaIdl } from '../../shared/chains/solana';
import { signingOperationOf, type SigningOperation } from '../../shared/api/signing-operations';
import { hexToBytes } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import { describeIssues } from '../../shared/ipc/contract';
import type { PolicyContext } from '../../shared/policy';
import { contractInterfaceTypeOf, parsedDefinition, type OrganizationSnapshot } from './organization';

/** A signing operation's parameters exactly as the typed client submits them (the submit body's `parameters`, the intent). */
export type SigningParameters<O extends SigningOperation> = ParamsOf<(typeof operations)[O]>;

/** A signing request as the app handles it: the operation with its parameters beside it. */
export type SigningRequest = { [O in SigningOperation]: { operation: O } & SigningParameters<O> }[SigningOperation];

export type TransactionType = SigningParameters<'sign_transaction'>['type'];

/**
 * Hands `use` the request's operation and its parameters, narrowed together, so a caller of the typed client gets
 * the parameter types of exactly that operation.
 */
export function withSigningParameters<T>(
  request: SigningRequest,
  use: <O extends SigningOperation>(operation: O, parameters: SigningParameters<O>) => T,
): T {
  switch (request.operation) {
    case 'sign_transaction': {
      const { operation, ...parameters } = request;
      return use(operation, parameters);
    }
    case 'sign_raw_payload': {
      const { operation, ...parameters } = request;
      return use(operation, parameters);
    }
    case 'sign_raw_payloads': {
      const { operation, ...parameters } = request;
      return use(operation, parameters);
    }
  }
}

/** The request's parameters as the service receives them (the `parameters` of the submit body, the activity's intent). */
export function parametersOf(request: SigningRequest): Record<string, unknown> {
  return withSigningParameters(request, (_operation, parameters): Record<string, unknown> => parameters);
}

/** The activity type and intent the service records for `request`: what the clear-signing reader takes. */
export function activityOf(request: SigningRequest): { type: string; intent: Record<string, unknown> } {
  const operation = activityOperations[request.operation];
  return { type: operation.activityType, intent: { [operation.intentKey]: parametersOf(request) } };
}

/** The signing request an activity asks for, or undefined when the activity signs nothing. */
export function signingRequestOf(activity: { type: string; intent: Record<string, unknown> }): SigningRequest | undefined {
  const operation = signingOperationOf(activity.type);
  if (operation === undefined) return undefined;
  const { intentKey } = activityOperations[operation];
  const parameters = activity.intent[intentKey];
  if (typeof parameters !== 'object' || parameters === null) {
    throw new QkError('RESPONSE_INVALID', `activity of type ${activity.type} has no ${intentKey} in its intent`);
  }
  // Fields a newer service may add are dropped, not refused: the card shows what this version can read.
  const parsed = activityOperations[operation].parameters.strip().safeParse(parameters);
  if (!parsed.success) {
    throw new QkError(
      'RESPONSE_INVALID',
      `the ${intentKey} of this ${activity.type} activity is not a signing request: ${describeIssues(parsed.error)}`,
    );
  }
  // Checked just above against this operation's own schema; TypeScript cannot pair the union's members by itself.
  return { operation, ...parsed.data } as SigningRequest;
}

/** The key `signWith` names in the snapshot: a wallet account (by address) or a private key (by id or address). */
export type ResolvedSigner =
  | { kind: 'wallet account'; wallet: Wallet; account: WalletAccount }
  | { kind: 'private key'; privateKey: PrivateKey; address?: { format: string; address: string } };

const sameAddress = (a: string, b: string) => a === b || (a.startsWith('0x') && a.toLowerCase() === b.toLowerCase());

export function resolveSigner(snapshot: OrganizationSnapshot, signWith: string): ResolvedSigner {
  const account = snapshot.accounts.find((candidate) => sameAddress(candidate.address, signWith));
  const wallet = account === undefined ? undefined : snapshot.wallets.find((candidate) => candidate.walletId === account.walletId);
  if (account !== undefined && wallet !== undefined) return { kind: 'wallet account', wallet, account };
  for (const privateKey of snapshot.privateKeys) {
    if (privateKey.privateKeyId === signWith) return { kind: 'private key', privateKey };
    const address = privateKey.addresses.find((candidate) => candidate.address !== undefined && sameAddress(candidate.address, signWith));
    if (address?.address !== undefined && address.format !== undefined)
      return { kind: 'private key', privateKey, address: { format: address.format, address: address.address } };
  }
  throw new QkError(
    'REQUEST_INVALID',
    `signWith: ${signWith} is not a wallet account address, private key address or private key id of organization ${snapshot.viewer.organizationId}`,
    { field: 'signWith' },
  );
}

/** Whether `snapshot` knows the key `signWith` names. */
export function knowsSigner(snapshot: OrganizationSnapshot, signWith: string): boolean {
  try {
    resolveSigner(snapshot, signWith);
    return true;
  } catch {
    return false;
  }
}

/** The condition keywords the signer answers to, as the service's wallet and private key families build them. */
function signerResources(signer: ResolvedSigner): PolicyContext {
  if (signer.kind === 'wallet account') {
    const { wallet, account } = signer;
    return {
      wallet: { id: wallet.walletId, imported: wallet.imported, exported: wallet.exported, label: wallet.walletName },
      wallet_account: { address: account.address },
    };
  }
  const { privateKey } = signer;
  return {
    private_key: {
      id: privateKey.privateKeyId,
      tags: privateKey.privateKeyTags,
      imported: privateKey.imported,
      exported: privateKey.exported,
      label: privateKey.privateKeyName,
    },
  };
}

/** The signer's Ethereum address (`eth.tx.from`), when it has one. */
function ethereumAddressOf(signer: ResolvedSigner): string | undefined {
  if (signer.kind === 'wallet account') return signer.account.addressFormat === 'ADDRESS_FORMAT_ETHEREUM' ? signer.account.address : undefined;
  return signer.privateKey.addresses.find((address) => address.format === 'ADDRESS_FORMAT_ETHEREUM')?.address;
}

/** The Bitcoin network the signer's address names, as the service decides it (the named address first). */
function bitcoinNetworkOf(signer: ResolvedSigner): BitcoinNetworkName {
  const formats =
    signer.kind === 'wallet account'
      ? [signer.account.addressFormat]
      : signer.address !== undefined
        ? [signer.address.format]
        : signer.privateKey.addresses.flatMap((address) => (address.format === undefined ? [] : [address.format]));
  const network = formats
    .map((format) => /^ADDRESS_FORMAT_BITCOIN_(MAINNET|TESTNET|SIGNET|REGTEST)_/.exec(format)?.[1])
    .find((name) => name !== undefined);
  return (network?.toLowerCase() ?? 'mainnet') as BitcoinNetworkName;
}

export function ethereumAbis(snapshot: OrganizationSnapshot): (to: string) => Abi | undefined {
  const abis = new Map<string, Abi>();
  for (const contract of snapshot.contracts) {
    if (contractInterfaceTypeOf(contract) !== 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM') continue;
    const definition = parsedDefinition(contract);
    if (Array.isArray(definition)) abis.set(contract.smartContractAddress.toLowerCase(), definition as Abi);
  }
  return (to) => abis.get(to.toLowerCase());
}

export function solanaIdls(snapshot: OrganizationSnapshot): SolanaIdl[] {
  return snapshot.contracts
    .filter((contract) => contractInterfaceTypeOf(contract) === 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA')
    .map((contract) => ({ address: contract.smartContractAddress, idl: parsedDefinition(contract) }));
}

/** Every condition keyword of `request` except `activity`; bad input is the decoders' specific REQUEST_INVALID. */
export function policyResources(request: SigningRequest, snapshot: OrganizationSnapshot): PolicyContext {
  const signer = resolveSigner(snapshot, request.signWith);
  const resources = signerResources(signer);
  switch (request.operation) {
    case 'sign_transaction':
      return { ...resources, ...transactionKeywords(request, signer, snapshot) };
    case 'sign_raw_payload': {
      const curve = signer.kind === 'wallet account' ? signer.account.curve : signer.privateKey.curve;
      const prepared = prepareRawPayload({ ...request, curve, what: 'payload' });
      return prepared.policy === undefined ? resources : { ...resources, eth: prepared.policy };
    }
    case 'sign_raw_payloads':
      // Several payloads have no single structured reading, as in the service.
      return resources;
  }
}

function transactionKeywords(
  request: Extract<SigningRequest, { operation: 'sign_transaction' }>,
  signer: ResolvedSigner,
  snapshot: OrganizationSnapshot,
): PolicyContext {
  switch (request.type) {
    case 'TRANSACTION_TYPE_ETHEREUM': {
      const decoded = decodeEthereumTransaction(request.unsignedTransaction, ethereumAbis(snapshot));
      const from = ethereumAddressOf(signer);
      return { eth: { tx: { ...decoded.policy, ...(from === undefined ? {} : { from }) } } };
    }
    case 'TRANSACTION_TYPE_SOLANA': {
      const decoded = decodeSolanaTransaction(hexToBytes(request.unsignedTransaction, 'unsignedTransaction'), solanaIdls(snapshot));
      return { solana: { tx: decoded.policy } };
    }
    case 'TRANSACTION_TYPE_BITCOIN': {
      const decoded = decodeBitcoinPsbt(hexToBytes(request.unsignedTransaction, 'unsignedTransaction'), bitcoinNetworkOf(signer));
      return { bitcoin: { tx: decoded.policy } };
    }
    default:
      throw new QkError('REQUEST_INVALID', `type: ${request.type} transactions are not signed by this service yet`, { field: 'type' });
  }
}
