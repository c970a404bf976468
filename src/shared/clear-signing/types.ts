/**
 * What the clear-signing reader takes (the signing intent plus what the organization knows: names, uploaded contract
 * interfaces, tokens, past recipients) and what it answers: a description the approval card and the Sign screen
 * render. Amounts are bigints with their formatted text beside them, so a screen never formats numbers itself.
 */
import type { PolicyEffect } from '../api/enums';
import type { PolicyStruct } from '../policy/values';
import type { DescriptorSection, Erc7730Descriptors } from './erc7730/reading';

// ─── what the caller supplies ─────────────────────────────────────────────────────────────────

/** A wallet with its accounts, to name the signer of `signWith`. */
export interface WalletNames {
  walletId: string;
  walletName: string;
  accounts: readonly { address: string; path?: string; addressFormat?: string }[];
}

/** A private key with its addresses, to name the signer of `signWith` (an address or the key's id). */
export interface PrivateKeyNames {
  privateKeyId: string;
  privateKeyName: string;
  addresses: readonly { address: string; addressFormat?: string }[];
}

/** An uploaded smart contract interface: `definition` is the parsed ABI (Ethereum) or Anchor IDL (Solana). */
export interface ContractInterface {
  address: string;
  type: 'ETHEREUM' | 'SOLANA';
  label: string;
  definition: unknown;
  /**
   * Ethereum: the chain the upload names (see contract-networks.ts); its label and ABI are read on that chain only.
   * Absent: the upload names none, so it is read on every chain, with a warning saying so.
   */
  chainId?: number;
}

/**
 * A token whose units are known: an ERC-20 contract on one EVM chain (`chainId`) or an SPL mint, so amounts read in
 * its units. The same address on another chain may be another contract, so an ERC-20 entry names its chain.
 */
export type KnownToken =
  | { family: 'ethereum'; chainId: number; address: string; symbol: string; decimals: number; name?: string | undefined }
  | { family: 'solana'; address: string; symbol: string; decimals: number; name?: string | undefined };

/** Where a token's symbol and decimals come from, as the card names it. */
export type TokenOrigin = 'known token list' | 'declared by an operator';

/** A token as the lookup found it, with where it was found. */
export type ResolvedToken = KnownToken & { origin: TokenOrigin };

/** Native-unit thresholds above which a value is flagged (Settings). Absent: no threshold for that chain. */
export interface ValueThresholds {
  ethereumWei?: bigint;
  solanaLamports?: bigint;
  bitcoinSatoshis?: bigint;
  /** Per token, in its base units: a transfer of at least this much is flagged. */
  tokens?: readonly TokenThreshold[];
}

/** A token's large-value threshold in base units, keyed by its chain and address as the token lists are. */
export type TokenThreshold = ({ family: 'ethereum'; chainId: number; address: string } | { family: 'solana'; address: string }) & { raw: bigint };

export interface ClearSigningContext {
  /** ERC-7730 descriptors (the registry data main ships): a call or message one binds is also read by it. */
  descriptors?: Erc7730Descriptors;
  wallets?: readonly WalletNames[];
  privateKeys?: readonly PrivateKeyNames[];
  contracts?: readonly ContractInterface[];
  /** Tokens operators declared (symbol and decimals); the curated list in known-tokens.ts is always read first. */
  tokens?: readonly KnownToken[];
  /**
   * Every recipient this organization has sent to before. Absent: history was not read and no recipient is flagged
   * as new; present (even empty): recipients outside it are flagged.
   */
  knownRecipients?: readonly string[];
  /** The organization's own Bitcoin addresses: outputs paying them are change. */
  ownBitcoinAddresses?: readonly string[];
  thresholds?: ValueThresholds;
  /** Names this desktop's operators gave addresses for this organization (its address book). */
  addressBook?: readonly AddressBookName[];
}

/** An address book entry: an Ethereum address is named on one chain; Solana and Bitcoin addresses name themselves. */
export type AddressBookName =
  { family: 'ethereum'; chainId: number; address: string; name: string } | { family: 'solana' | 'bitcoin'; address: string; name: string };

/** A signing activity as the service records it: `{ type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', intent: { signTransactionIntentV2: … } }`. */
export interface SigningActivity {
  type: string;
  intent: Readonly<Record<string, unknown>>;
}

// ─── what the reader answers ──────────────────────────────────────────────────────────────────

export type { SigningOperation } from '../api/signing-operations';
import type { SigningOperation } from '../api/signing-operations';

/** An amount in a unit with a known number of decimals: `text` is what to show, `raw` the integer to show on hover. */
export interface Amount {
  raw: bigint;
  /** `raw` in whole units, e.g. "1.5". */
  formatted: string;
  /** "ETH", "SOL", "BTC", a token symbol, or "units" when the token's decimals are not known. */
  unit: string;
  /** "1.5 ETH". */
  text: string;
  /** The smallest unit's name ("wei", "lamports", "sat", "raw units"), for the hover text. */
  rawUnit: string;
  /**
   * Token amounts only: where the unit comes from ("known token list", "declared by an operator", "decimals stated by
   * the instruction", "unknown token: raw units"), shown beside the amount with the raw integer.
   */
  source?: string;
}

export interface Network {
  family: 'ethereum' | 'solana' | 'bitcoin' | 'tron' | 'tempo' | 'unknown';
  /** "Ethereum", "Base Sepolia", "Solana", "Bitcoin testnet", "chain 424242 (unknown)". */
  name: string;
  chainId?: number;
  testnet?: boolean;
}

/** An address as shown: its label from the organization's interfaces, tokens or keys, and what kind of party it is. */
export interface AddressRef {
  address: string;
  /** Contract interface label, token symbol, or signer name. */
  label?: string;
  role: 'contract' | 'unknown contract' | 'token' | 'address' | 'own address';
}

export interface Signer {
  signWith: string;
  kind: 'wallet account' | 'private key' | 'unknown';
  walletId?: string;
  walletName?: string;
  /** The account's derivation path, when the lookup has it. */
  path?: string;
  privateKeyId?: string;
  privateKeyName?: string;
  addressFormat?: string;
  /** A private key named by its id: the key's addresses, for the network they imply. */
  keyAddresses?: readonly { address: string; addressFormat?: string }[];
  /** "Treasury / m/44'/60'/0'/0/0", "Cold key", or `signWith` itself when nothing names it. */
  text: string;
}

/** A readable tree of decoded values (call arguments, typed-data messages, instruction arguments). */
export interface ReadableNode {
  name: string;
  /** The ABI / EIP-712 / IDL type, when there is one. */
  type?: string;
  /** The value in words; empty for a struct or list, whose content is in `children`. */
  text: string;
  /** The exact value when `text` rounds or names it: the raw integer, the full address. */
  raw?: string;
  address?: AddressRef;
  amount?: Amount;
  children?: readonly ReadableNode[];
}

export interface GasFees {
  gas?: bigint;
  gasPrice?: Amount;
  maxFeePerGas?: Amount;
  maxPriorityFeePerGas?: Amount;
  maxFeePerBlobGas?: Amount;
  /** gas × (max fee per gas | gas price): the most this transaction can pay for execution. */
  maxFee?: Amount;
}

export interface ContractCall {
  /** The first four bytes of the data. */
  selector: string;
  /** Decoded with the uploaded ABI. */
  decoded: boolean;
  functionName?: string;
  /** `transfer(address,uint256)`. */
  signature?: string;
  args: readonly ReadableNode[];
  /**
   * Without an uploaded ABI: the signature of the well-known ERC-20 / ERC-721 function with this selector, shown as a
   * guess (a contract may give the selector another meaning).
   */
  likelySignature?: string;
  /**
   * An ERC-20 transfer, approve or transferFrom on a contract nobody described (no upload, not a known or declared
   * token): its arguments are read by the selector, the amount raw since the token's decimals are unknown.
   */
  tokenUnknown?: true;
  /**
   * No ABI is uploaded for the contract but a registry descriptor read the call: who read it, said in place of the
   * unknown-contract warning (the raw selector and call data stay).
   */
  registryNote?: string;
  /** Safe execTransaction (read by its selector): the transaction the Safe runs. */
  safeTransaction?: SafeTransaction;
  /** Safe multiSend: its packed calls, each read as a call of its own. */
  batch?: readonly SafeCall[];
  /** Why the batch stops before its end (the calls before it are in `batch`). */
  batchError?: string;
}

/** 0 and 1 of a Safe's `operation`: CALL, or DELEGATECALL (the target's code runs with the Safe's storage). */
export type SafeOperation = 'CALL' | 'DELEGATECALL';

/** A call a Safe makes, or a row of a MultiSend batch. */
export interface SafeCall {
  operation: SafeOperation;
  to: AddressRef;
  /** ETH the call sends from the Safe. */
  value: Amount;
  /** The call data, 0x-hex. */
  data: string;
  /** `data` read as any call is; absent for a plain transfer. */
  call?: ContractCall;
  /** The registry descriptor's reading of `data`, when one binds `to` on the request's chain (beside `call`). */
  descriptor?: DescriptorSection;
}

/** A Safe transaction (execTransaction, or the SafeTx message its owners sign): what the Safe runs and pays. */
export interface SafeTransaction extends SafeCall {
  /** The Safe: the called contract, or the typed data's verifying contract. */
  safe: AddressRef;
  /** SafeTx messages state it; execTransaction runs at the Safe's current nonce, which cannot be known offline. */
  nonce?: bigint;
  /** Gas the Safe's call may use (0: all that is left); part of the refund. */
  safeTxGas: bigint;
  /** Gas paid on top of the call's, for the refund. */
  baseGas: bigint;
  /** Refund price per gas, in `gasToken` (ETH when absent); 0 pays no refund. */
  gasPrice: Amount;
  gasToken?: AddressRef;
  /** Who is refunded; absent: whoever submits the transaction. */
  refundReceiver?: AddressRef;
  /** The EIP-712 hash of the SafeTx the owners sign; only a SafeTx message, which states the nonce, gives it. */
  safeTxHash?: string;
  /** execTransaction: the owners' signatures it carries, 0x-hex. */
  signatures?: string;
}

export interface Eip7702Delegation {
  delegate: AddressRef;
  network: Network;
  nonce: bigint;
}

export interface EthereumTransactionDetails {
  kind: 'ethereum-transaction';
  /** viem's name: legacy, eip2930, eip1559, eip4844, eip7702. */
  transactionType: string;
  /** "EIP-1559 (type 2)". */
  typeText: string;
  /** Absent for a contract deployment. */
  to?: AddressRef;
  value: Amount;
  nonce?: number;
  fees: GasFees;
  /** The call data, 0x-hex. */
  data: string;
  call?: ContractCall;
  authorizations: readonly Eip7702Delegation[];
  /** `eth.tx` as policies read it (without `from`). */
  policy: PolicyStruct;
}

export interface SolanaInstructionDetails {
  index: number;
  program: AddressRef;
  /** "System", "SPL Token", "Token-2022", "Associated Token", "Compute Budget", the IDL's name, or "Unknown program". */
  programName: string;
  /** The instruction's name when the program is known or its IDL matched. */
  instruction?: string;
  /** One line: "Transfer 0.5 SOL from … to …". */
  summary: string;
  accounts: readonly { name: string; address: AddressRef }[];
  args: readonly ReadableNode[];
  dataHex: string;
}

export interface SolanaTransferDetails {
  from: AddressRef;
  to: AddressRef;
  amount: Amount;
  /** SPL transfers: the mint, when the instruction names it. */
  mint?: AddressRef;
  /** SPL transfers: the source account's owner. */
  owner?: AddressRef;
}

export interface SolanaTransactionDetails {
  kind: 'solana-transaction';
  version: 'legacy' | 0;
  feePayer: AddressRef;
  signers: readonly AddressRef[];
  recentBlockhash: string;
  instructions: readonly SolanaInstructionDetails[];
  transfers: readonly SolanaTransferDetails[];
  tokenTransfers: readonly SolanaTransferDetails[];
  /** Accounts loaded from address lookup tables cannot be resolved offline. */
  addressTableLookups: number;
  policy: PolicyStruct;
}

export interface BitcoinInputDetails {
  txId: string;
  vout: number;
  sequence: number;
  address?: AddressRef;
  amount?: Amount;
}

export interface BitcoinOutputDetails {
  index: number;
  /** Absent for scripts without an address (OP_RETURN, bare multisig). */
  address?: AddressRef;
  addressType: string;
  scriptHex: string;
  amount: Amount;
  /** Pays one of the organization's own addresses. */
  change: boolean;
}

export interface BitcoinTransactionDetails {
  kind: 'bitcoin-transaction';
  version: number;
  inputs: readonly BitcoinInputDetails[];
  outputs: readonly BitcoinOutputDetails[];
  /** Absent when some input's spent output is not in the PSBT. */
  fee?: Amount;
  /** What leaves the organization: outputs that are not change. */
  sent: Amount;
  locktime: { amount: number; type: 'BLOCK_HEIGHT' | 'TIMESTAMP' };
  policy: PolicyStruct;
}

export interface TypedDataDetails {
  primaryType: string;
  domain: readonly ReadableNode[];
  /** The verifying contract, labelled. */
  verifyingContract?: AddressRef;
  network?: Network;
  message: readonly ReadableNode[];
  policy: PolicyStruct;
  /** A SafeTx message, read as the Safe transaction it approves. */
  safeTransaction?: SafeTransaction;
}

export interface RawPayloadDetails {
  index: number;
  /** The payload exactly as sent. */
  payload: string;
  /** The payload's bytes as hex (for text, its UTF-8 bytes). */
  hex: string;
  /** The payload as text when it is printable UTF-8. */
  text?: string;
  /** What the key signs: the 32-byte digest (ECDSA keys) or the message (Ed25519), hex. */
  signedBytesHex: string;
  typedData?: TypedDataDetails;
  authorization?: Eip7702Delegation;
  /** A Solana message signed as a raw payload (Ed25519 with no hash), decoded. */
  solanaMessage?: SolanaTransactionDetails;
  /**
   * `eth.eip_712` / `eth.eip_7702_authorization` exactly as the service computes them for this payload (the service
   * gives policies the `eth` keyword only for a single payload, sign_raw_payload).
   */
  policy?: { eip_712?: PolicyStruct; eip_7702_authorization?: PolicyStruct };
}

export interface RawPayloadsDetails {
  kind: 'raw-payloads';
  encoding: string;
  /** "UTF-8 text", "hexadecimal bytes", "EIP-712 typed data", "EIP-7702 authorization". */
  encodingText: string;
  hashFunction: string;
  /** "Keccak-256", "SHA-256", "none: the payload is the digest", "none: Ed25519 signs the message itself". */
  hashFunctionText: string;
  payloads: readonly RawPayloadDetails[];
}

export interface UnsupportedTransactionDetails {
  kind: 'unsupported-transaction';
  transactionType: string;
  unsignedTransaction: string;
}

export type SigningDetails =
  EthereumTransactionDetails | SolanaTransactionDetails | BitcoinTransactionDetails | RawPayloadsDetails | UnsupportedTransactionDetails;

export type SigningWarningKind =
  | 'UNKNOWN_CONTRACT'
  | 'UNLIMITED_APPROVAL'
  | 'EIP7702_DELEGATION'
  | 'NEW_RECIPIENT'
  | 'VALUE_ABOVE_THRESHOLD'
  | 'NETWORK_NOT_STATED'
  | 'BLIND_SIGNING'
  | 'UNDECODED'
  | 'LOOK_ALIKE_ADDRESS'
  | 'SAFE_DELEGATECALL'
  | 'SAFE_REFUND'
  | 'SAFE_HASH_MISMATCH';

/** Characters `start` (included) to `end` (excluded) of an address. */
export interface CharacterRange {
  start: number;
  end: number;
}

/** An address in the request that starts and ends as a known one but is not it (look-alike.ts). */
export interface LookAlike {
  /** The address in the request. */
  address: string;
  /** The known address it imitates, and the name the organization knows it by. */
  known: { address: string; name: string };
  /** Where `address` differs from the known address, and where the known address differs from it. */
  addressDiffers: readonly CharacterRange[];
  knownDiffers: readonly CharacterRange[];
}

export interface SigningWarning {
  kind: SigningWarningKind;
  /** A full sentence a person can act on. */
  message: string;
  /** The address or value the warning is about. */
  subject?: string;
  /** Set when the warning alone should stop the signature (warnings.ts decides per kind). */
  severity?: 'critical';
  /** LOOK_ALIKE_ADDRESS: both addresses and where they differ, for the card to show side by side. */
  lookAlike?: LookAlike;
}

/**
 * Where the organization's policies stand on the request. Computed elsewhere (policy engine + consensus), carried here
 * so the card renders one object.
 */
export interface PolicyStanding {
  outcome: 'ALLOW' | 'DENY' | 'NEEDS_CONSENSUS' | 'NO_POLICY';
  matchedPolicies: readonly { policyId: string; policyName: string; effect: PolicyEffect }[];
  /** "needs 1 more approver tagged ops". */
  consensusNeeds?: string;
  /** Whether the viewing user's vote counts toward what consensus still needs. */
  viewerCanApprove?: boolean;
}

export interface SigningDescription {
  operation: SigningOperation;
  /** "Sign an Ethereum transaction", "Sign 3 raw payloads". */
  title: string;
  /** One line for lists: "Transfer 250 USDC to 0x… on Ethereum". */
  summary: string;
  network: Network;
  signer: Signer;
  details: SigningDetails;
  warnings: readonly SigningWarning[];
  /** Filled by the caller from the policy engine; the reader leaves it undefined. */
  policyStanding?: PolicyStanding;
  /** The registry descriptor's reading, beside the decoded details (never instead of them). */
  descriptor?: DescriptorSection;
}
