/**
 * IPC schemas of the signing screens: the clear-signing description as it crosses to the renderer, where the
 * policies stand on it, and the signing requests the renderer may ask main to preview, submit or stamp.
 *
 * The description's integers are bigints in main; they cross as decimal strings, and the policy keywords
 * (`policy` fields) stay in main. {@link WireOf} is that mapping as a type, and each schema below is checked against
 * it, so a change to the description's types is a type error here rather than a card that silently drops a field.
 */
import { z } from 'zod';
import { hashFunction, payloadEncoding, transactionType } from '../api/enums';
import type {
  AddressRef,
  Amount,
  BitcoinTransactionDetails,
  Eip7702Delegation,
  EthereumTransactionDetails,
  Network,
  RawPayloadsDetails,
  ReadableNode,
  Signer,
  SigningWarning,
  SolanaTransactionDetails,
  TypedDataDetails,
  UnsupportedTransactionDetails,
} from '../clear-signing/types';
import type { SigningFact } from '../clear-signing/facts';

/**
 * `T` as it crosses IPC: bigints as decimal strings, without the policy keywords. An optional member may also hold
 * undefined, as zod's optional() parses it.
 */
export type WireOf<T> = T extends bigint
  ? string
  : T extends readonly (infer E)[]
    ? WireOf<E>[]
    : T extends object
      ? { -readonly [K in keyof T as K extends 'policy' ? never : K]: WireOf<T[K]> | (undefined extends T[K] ? undefined : never) }
      : T;

const text = z.string().max(100_000);
const integerText = z.string().regex(/^-?\d{1,100}$/);

const amount = z.strictObject({ raw: integerText, formatted: text, unit: text, text, rawUnit: text, source: text.optional() }) satisfies z.ZodType<WireOf<Amount>>;
const network = z.strictObject({
  family: z.enum(['ethereum', 'solana', 'bitcoin', 'tron', 'tempo', 'unknown']),
  name: text,
  chainId: z.number().int().optional(),
  testnet: z.boolean().optional(),
}) satisfies z.ZodType<WireOf<Network>>;
const addressRef = z.strictObject({
  address: text,
  label: text.optional(),
  role: z.enum(['contract', 'unknown contract', 'token', 'address', 'own address']),
}) satisfies z.ZodType<WireOf<AddressRef>>;
const signer = z.strictObject({
  signWith: text,
  kind: z.enum(['wallet account', 'private key', 'unknown']),
  walletId: text.optional(),
  walletName: text.optional(),
  path: text.optional(),
  privateKeyId: text.optional(),
  privateKeyName: text.optional(),
  addressFormat: text.optional(),
  keyAddresses: z.array(z.strictObject({ address: text, addressFormat: text.optional() })).optional(),
  text,
}) satisfies z.ZodType<WireOf<Signer>>;

type ReadableNodeView = WireOf<ReadableNode>;
const readableNode: z.ZodType<ReadableNodeView> = z.lazy(() =>
  z.strictObject({
    name: text,
    type: text.optional(),
    text,
    raw: text.optional(),
    address: addressRef.optional(),
    amount: amount.optional(),
    children: z.array(readableNode).max(10_000).optional(),
  }),
);
const nodes = z.array(readableNode).max(10_000);

const delegation = z.strictObject({ delegate: addressRef, network, nonce: integerText }) satisfies z.ZodType<WireOf<Eip7702Delegation>>;

const ethereumTransaction = z.strictObject({
  kind: z.literal('ethereum-transaction'),
  transactionType: text,
  typeText: text,
  to: addressRef.optional(),
  value: amount,
  nonce: z.number().int().optional(),
  fees: z.strictObject({
    gas: integerText.optional(),
    gasPrice: amount.optional(),
    maxFeePerGas: amount.optional(),
    maxPriorityFeePerGas: amount.optional(),
    maxFeePerBlobGas: amount.optional(),
    maxFee: amount.optional(),
  }),
  data: text,
  call: z
    .strictObject({
      selector: text,
      decoded: z.boolean(),
      functionName: text.optional(),
      signature: text.optional(),
      args: nodes,
      likelySignature: text.optional(),
    })
    .optional(),
  authorizations: z.array(delegation),
}) satisfies z.ZodType<WireOf<EthereumTransactionDetails>>;

const solanaTransfer = z.strictObject({ from: addressRef, to: addressRef, amount, mint: addressRef.optional(), owner: addressRef.optional() });
const solanaTransaction = z.strictObject({
  kind: z.literal('solana-transaction'),
  version: z.union([z.literal('legacy'), z.literal(0)]),
  feePayer: addressRef,
  signers: z.array(addressRef),
  recentBlockhash: text,
  instructions: z.array(
    z.strictObject({
      index: z.number().int(),
      program: addressRef,
      programName: text,
      instruction: text.optional(),
      summary: text,
      accounts: z.array(z.strictObject({ name: text, address: addressRef })),
      args: nodes,
      dataHex: text,
    }),
  ),
  transfers: z.array(solanaTransfer),
  tokenTransfers: z.array(solanaTransfer),
  addressTableLookups: z.number().int(),
}) satisfies z.ZodType<WireOf<SolanaTransactionDetails>>;

const bitcoinTransaction = z.strictObject({
  kind: z.literal('bitcoin-transaction'),
  version: z.number().int(),
  inputs: z.array(
    z.strictObject({ txId: text, vout: z.number().int(), sequence: z.number().int(), address: addressRef.optional(), amount: amount.optional() }),
  ),
  outputs: z.array(
    z.strictObject({ index: z.number().int(), address: addressRef.optional(), addressType: text, scriptHex: text, amount, change: z.boolean() }),
  ),
  fee: amount.optional(),
  sent: amount,
  locktime: z.strictObject({ amount: z.number().int(), type: z.enum(['BLOCK_HEIGHT', 'TIMESTAMP']) }),
}) satisfies z.ZodType<WireOf<BitcoinTransactionDetails>>;

const typedData = z.strictObject({
  primaryType: text,
  domain: nodes,
  verifyingContract: addressRef.optional(),
  network: network.optional(),
  message: nodes,
}) satisfies z.ZodType<WireOf<TypedDataDetails>>;

const rawPayloads = z.strictObject({
  kind: z.literal('raw-payloads'),
  encoding: text,
  encodingText: text,
  hashFunction: text,
  hashFunctionText: text,
  payloads: z.array(
    z.strictObject({
      index: z.number().int(),
      payload: text,
      hex: z.string().max(400_000),
      text: text.optional(),
      signedBytesHex: z.string().max(400_000),
      typedData: typedData.optional(),
      authorization: delegation.optional(),
      solanaMessage: solanaTransaction.optional(),
    }),
  ),
}) satisfies z.ZodType<WireOf<RawPayloadsDetails>>;

const unsupported = z.strictObject({
  kind: z.literal('unsupported-transaction'),
  transactionType: text,
  unsignedTransaction: z.string().max(400_000),
}) satisfies z.ZodType<WireOf<UnsupportedTransactionDetails>>;

const warning = z.strictObject({
  kind: z.enum(['UNKNOWN_CONTRACT', 'UNLIMITED_APPROVAL', 'EIP7702_DELEGATION', 'NEW_RECIPIENT', 'VALUE_ABOVE_THRESHOLD', 'BLIND_SIGNING', 'UNDECODED']),
  message: text,
  subject: text.optional(),
}) satisfies z.ZodType<WireOf<SigningWarning>>;

export const signingDescriptionView = z.strictObject({
  operation: z.enum(['sign_raw_payload', 'sign_raw_payloads', 'sign_transaction']),
  title: text,
  summary: text,
  network,
  signer,
  details: z.discriminatedUnion('kind', [ethereumTransaction, solanaTransaction, bitcoinTransaction, rawPayloads, unsupported]),
  warnings: z.array(warning),
});
export type SigningDescriptionView = z.infer<typeof signingDescriptionView>;

/** Where the organization's policies stand on the request (main evaluates them with the shared policy engine). */
export const policyStandingView = z.strictObject({
  outcome: z.enum(['ALLOW', 'DENY', 'NEEDS_CONSENSUS', 'NO_POLICY']),
  matchedPolicies: z.array(
    z.strictObject({
      policyId: z.string(),
      policyName: z.string(),
      effect: z.enum(['EFFECT_ALLOW', 'EFFECT_DENY']),
      outcome: z.enum(['ALLOW', 'DENY', 'NEEDS_CONSENSUS']),
    }),
  ),
  failedPolicies: z.array(z.strictObject({ policyId: z.string(), policyName: z.string(), reason: z.string() })),
  consensusNeeds: z.string().optional(),
  viewerCanApprove: z.boolean(),
  decidedBy: z.enum(['root quorum', 'policy']).optional(),
});
export type PolicyStandingView = z.infer<typeof policyStandingView>;

/** A fact's value may be a payload's bytes, as long as the payload itself. */
const signingFactValue = z.strictObject({ text: z.string().max(400_000), id: text.optional(), code: z.boolean().optional(), note: z.boolean().optional() });
type SigningFactView = WireOf<SigningFact>;
const signingFact: z.ZodType<SigningFactView> = z.lazy(() =>
  z.strictObject({ label: text, value: z.array(signingFactValue).max(10_000), children: z.array(signingFact).max(10_000).optional() }),
);

/**
 * A description with its policy standing: what the approval card and the Sign screen show. `facts` is the description
 * worded once by the shared reader (the CLI and the approval list print the same facts), so the card words none of it.
 */
export const signingCardView = z.strictObject({ description: signingDescriptionView, facts: z.array(signingFact).max(10_000), standing: policyStandingView });
export type SigningCardView = z.infer<typeof signingCardView>;

const signWith = z.string().min(1).max(256);
/** Unsigned transactions and payloads: hex or text, bounded well above any real transaction. */
const payloadText = z.string().min(1).max(200_000);

/** What the renderer may ask main to preview, submit or stamp: exactly the three signing operations. */
export const signingRequestInput = z.discriminatedUnion('operation', [
  z.strictObject({ operation: z.literal('sign_transaction'), signWith, unsignedTransaction: payloadText, type: transactionType }),
  z.strictObject({ operation: z.literal('sign_raw_payload'), signWith, payload: payloadText, encoding: payloadEncoding, hashFunction }),
  z.strictObject({
    operation: z.literal('sign_raw_payloads'),
    signWith,
    payloads: z.array(payloadText).min(1).max(100),
    encoding: payloadEncoding,
    hashFunction,
  }),
]);

/** What a completed signing activity produced: a signed transaction, or signatures of payloads. */
export const signingResultView = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('signed-transaction'), signedTransaction: z.string() }),
  z.strictObject({ kind: z.literal('signatures'), signatures: z.array(z.strictObject({ r: z.string(), s: z.string(), v: z.string() })) }),
]);
export type SigningResultView = z.infer<typeof signingResultView>;

/** One policy's verdict for a dry run: as if the request were submitted now by the viewer. */
export const dryRunView = z.strictObject({
  standing: policyStandingView,
  policies: z.array(
    z.strictObject({
      policyId: z.string(),
      policyName: z.string(),
      effect: z.enum(['EFFECT_ALLOW', 'EFFECT_DENY']),
      verdict: z.enum(['allow', 'deny', 'needs consensus', 'not applicable', 'inactive', 'error']),
      reason: z.string().optional(),
    }),
  ),
});
export type DryRunView = z.infer<typeof dryRunView>;

export const contractInterfaceType = z.enum(['SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA']);
export const contractInterfaceView = z.strictObject({
  smartContractInterfaceId: z.string(),
  type: contractInterfaceType,
  address: z.string(),
  label: z.string(),
  notes: z.string(),
  /** "12 functions, 3 events" / "5 instructions (my_program)". */
  summary: z.string(),
  /** The uploaded JSON text, as stored. */
  definition: z.string(),
  createdAtMs: z.number().int().nonnegative(),
});
export type ContractInterfaceView = z.infer<typeof contractInterfaceView>;
/** Uploads are limited to 400 kB of JSON text. */
export const MAX_INTERFACE_TEXT = 400 * 1024;
export const contractInterfaceInput = z.strictObject({
  type: contractInterfaceType,
  address: z.string().min(1).max(128),
  label: z.string().min(1).max(256),
  notes: z.string().max(4096).optional(),
  definition: z.string().min(1).max(MAX_INTERFACE_TEXT),
});
