/**
 * IPC schemas of the signing screens: what the renderer shows of a clear-signing description (its facts, worded in
 * main by the shared reader, with the title, summary and warnings), where the policies stand on it, and the signing
 * requests the renderer may ask main to preview, submit or stamp.
 *
 * The schemas are checked against the reader's types through {@link WireOf} (bigints as decimal strings, no policy
 * keywords), so a change to those types is a type error here rather than a card that silently drops a field.
 */
import { z } from 'zod';
import { hashFunction, payloadEncoding, transactionType } from '../api/enums';
import type { SigningWarning } from '../clear-signing/types';
import type { Fact } from '../describe/types';
import { policyWhy } from './policy-words';

/**
 * `T` as it crosses IPC: bigints as decimal strings, without the policy keywords. An optional member may also hold
 * undefined, as zod's optional() parses it.
 */
export type WireOf<T> = T extends bigint
  ? string
  : T extends (infer E)[]
    ? WireOf<E>[]
    : T extends readonly (infer E)[]
      ? readonly WireOf<E>[]
      : T extends object
        ? { -readonly [K in keyof T as K extends 'policy' ? never : K]: WireOf<T[K]> | (undefined extends T[K] ? undefined : never) }
        : T;

const text = z.string().max(100_000);
const characterRange = z.strictObject({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() });

const warning = z.strictObject({
  kind: z.enum([
    'UNKNOWN_CONTRACT',
    'UNLIMITED_APPROVAL',
    'EIP7702_DELEGATION',
    'NEW_RECIPIENT',
    'VALUE_ABOVE_THRESHOLD',
    'NETWORK_NOT_STATED',
    'BLIND_SIGNING',
    'UNDECODED',
    'LOOK_ALIKE_ADDRESS',
    'SAFE_DELEGATECALL',
    'SAFE_REFUND',
    'SAFE_HASH_MISMATCH',
  ]),
  message: text,
  subject: text.optional(),
  severity: z.literal('critical').optional(),
  lookAlike: z
    .strictObject({
      address: text,
      known: z.strictObject({ address: text, name: text }),
      addressDiffers: z.array(characterRange).max(200),
      knownDiffers: z.array(characterRange).max(200),
    })
    .optional(),
}) satisfies z.ZodType<WireOf<SigningWarning>>;

/**
 * What crosses of the description besides its facts: the card's title, its one-line summary and the warnings. The
 * details stay in main, where they are worded into the facts.
 */
export const signingDescriptionView = z.strictObject({ title: text, summary: text, warnings: z.array(warning) });
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
  missingApprovals: z.number().int().nonnegative().optional(),
  viewerCanApprove: z.boolean(),
  decidedBy: z.enum(['root quorum', 'policy']).optional(),
  /** Who may still vote and why, from the same evaluation as the verdict. */
  stillToVote: z.array(z.strictObject({ userId: z.string(), userName: z.string(), reasons: z.array(z.string()) })),
  /** For a denial or a wait: which part of which policy decided, with the values it read. */
  why: z.array(policyWhy),
});
export type PolicyStandingView = z.infer<typeof policyStandingView>;

/** A fact's value may be a payload's bytes, as long as the payload itself. */
export const factValue = z.strictObject({
  text: z.string().max(400_000),
  id: text.optional(),
  code: z.boolean().optional(),
  note: z.boolean().optional(),
});
/** One fact of any reading: an activity's, or clear signing's of a payload (the same type for both). */
export const fact: z.ZodType<WireOf<Fact>> = z.lazy(() =>
  z.strictObject({ label: text, value: z.array(factValue).max(10_000).readonly(), children: z.array(fact).max(10_000).readonly().optional() }),
);

/**
 * A description with its policy standing: what the approval card and the Sign screen show. `facts` is the description
 * worded once by the shared reader (the CLI and the approval list print the same facts), so the card words none of it.
 */
export const signingCardView = z.strictObject({
  description: signingDescriptionView,
  facts: z.array(fact).max(10_000),
  standing: policyStandingView,
});
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

/** A dry run: the request's card as if the viewer submitted it now, and each policy's own verdict. */
export const dryRunView = signingCardView.extend({
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
  /** The operator's notes, without the line stating the network. */
  notes: z.string(),
  /** Where its label and ABI are read: "Base (chain id 8453)", "every chain (no network stated)", "Solana". */
  network: z.string(),
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
  notes: z.string().max(4000).optional(),
  definition: z.string().min(1).max(MAX_INTERFACE_TEXT),
  /** Ethereum: the chain the contract is on, stated in the upload so its label and ABI are read there only. */
  chainId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
});
