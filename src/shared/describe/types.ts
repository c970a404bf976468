/**
 * What the describer reads (the organization as it stands, this desktop's export keys and declared tokens) and what it
 * answers. Everything in the lookup is optional: without it names fall back to ids and "before" reads "not known".
 */

import type { KnownToken } from '../clear-signing/types';

export interface UserFacts {
  userId: string;
  userName: string;
  userEmail?: string | undefined;
  /** Tag ids. */
  userTags: readonly string[];
  /** With each credential's type (`CREDENTIAL_TYPE_API_KEY_P256`…) and public key, where the lookup read them. */
  apiKeys: readonly ({ apiKeyId: string; apiKeyName: string } & CredentialFacts)[];
  authenticators: readonly ({ authenticatorId: string; authenticatorName: string } & CredentialFacts)[];
  oauthProviders: readonly { providerId: string; providerName: string }[];
}

/** What a consensus reads of a credential besides its id and owner: `credentials`' `type` and `public_key`. */
export interface CredentialFacts {
  credentialType?: string | undefined;
  publicKey?: string | undefined;
}

export interface PolicyFacts {
  policyId: string;
  policyName: string;
  effect: string;
  condition: string;
  consensus: string;
  notes: string;
  time?: string;
  /**
   * Whether the time window holds now, by main's clock (the renderer keeps none for rules); a window that cannot be
   * evaluated counts as not holding, as the service treats it. Absent when the lookup does not say.
   */
  activeNow?: boolean;
}

export interface WalletFacts {
  walletId: string;
  walletName: string;
  exported: boolean;
}

export interface AccountFacts {
  walletId: string;
  address: string;
  path: string;
  addressFormat: string;
}

export interface PrivateKeyFacts {
  privateKeyId: string;
  privateKeyName: string;
  exported: boolean;
  addresses: readonly string[];
}

/** The organization as it stands, for names and for "before". */
export interface OrganizationLookup {
  organizationName?: string;
  users?: readonly UserFacts[];
  tags?: readonly { tagId: string; tagName: string }[];
  rootQuorum?: { userIds: readonly string[]; threshold: number } | undefined;
  policies?: readonly PolicyFacts[];
  wallets?: readonly WalletFacts[];
  /** Accounts of the wallets above; absent when they were not read. */
  walletAccounts?: readonly AccountFacts[];
  privateKeys?: readonly PrivateKeyFacts[];
  /** Uploaded contract interfaces (the ABI or IDL as JSON text): signing requests read with their labels and calls. */
  contracts?: readonly { address: string; type: 'ETHEREUM' | 'SOLANA'; label: string; definition: string }[];
  /** Tokens operators declared (symbol and decimals per chain and address): signing amounts read in their units. */
  declaredTokens?: readonly KnownToken[];
  /** This desktop's stored export (encryption) keys: an export sealed to one of them can be opened here. */
  localExportKeys?: readonly { name: string; publicKey: string }[];
}

/**
 * A name or value to show, with the exact value it stands for (an id, the full address, the raw integer) one click
 * away; `code` marks values shown in a fixed-width font.
 */
export interface Ref {
  text: string;
  id?: string | undefined;
  code?: boolean | undefined;
  /** Words about the value beside it rather than the value (where a token's unit comes from, "testnet"). */
  note?: boolean | undefined;
}

/**
 * One labelled fact, the same for every activity and for clear signing's reading of a payload. `value` is empty for
 * a fact that is only its parts (a struct, typed data's domain); `children` are its parts (a call's arguments, an
 * instruction's accounts), which surfaces without nesting print flattened.
 */
export interface Fact {
  label: string;
  value: readonly Ref[];
  children?: readonly Fact[] | undefined;
}

/** One field's before → after. `before` undefined: the lookup does not say (shown as "not known"); [] is "none". */
export interface Change {
  label: string;
  before?: readonly Ref[] | undefined;
  after: readonly Ref[];
}

export interface ExportTarget {
  publicKey: string;
  /** `sha256:` and the SHA-256 of the key's bytes in hex, to compare in full with the key's owner. */
  fingerprint: string;
  /** The name of this desktop's export key with this public key; undefined: an unknown key. */
  localKeyName?: string | undefined;
}

export interface ExportDescription {
  /** What leaves: wallet name and account count, an account's address, or a key's name. */
  what: readonly Ref[];
  target: ExportTarget;
}

export interface Deletion {
  what: Ref;
  /** What the thing is: "wallet", "private key", "user"… */
  kind: string;
  /** Whether it was exported before, for wallets and keys; undefined where that does not apply or is not known. */
  exported?: boolean | undefined;
}

/** A signing request as the intent states it; `decoded` is what a chain decoder made of the payload, if any. */
export interface SigningRequest {
  signWith: Ref;
  payloads: readonly string[];
  /** Payload encoding, hash function or transaction type, in words. */
  facts: readonly Fact[];
  decoded?: readonly Fact[];
  /** Who signs, as clear signing names the key ("Treasury / m/44'/60'/0'/0/0"), when it read the request. */
  signer?: string;
}

/** What clear signing made of a signing request: its own title and summary, the facts, and warnings in words. */
export interface SigningReading {
  title: string;
  summary: string;
  facts: readonly Fact[];
  warnings: readonly string[];
  /** The large-value warnings, together, for a list row to show in full. */
  largeValue?: string;
  /** Who signs, named from the organization's wallets and keys. */
  signer?: string;
}

/**
 * The hook for clear signing: given the signing request and its activity (type and recorded intent), answers what
 * the payload does in words (recipient, amount, contract call…) or undefined when it cannot tell. The describer then
 * shows the raw payload only.
 */
/**
 * The hook for policies in words: an expression of a policy field with the organization's names for its ids and its
 * token amounts in units (main's policy reading), as one line of text. Without it an expression is shown as written.
 */
export type PolicyReader = (text: string, kind: 'condition' | 'consensus' | 'time') => string;

export type SigningDecoder = (
  request: SigningRequest,
  activity: { type: string; intent: Readonly<Record<string, unknown>> },
) => SigningReading | undefined;

export interface ActivityDescription {
  type: string;
  /** What the activity does, in words: "Change the root quorum". */
  title: string;
  /** False for types the describer does not know: then `rawIntent` is all there is to show. */
  recognised: boolean;
  /** One line for lists: the main change or subject. */
  summary: string;
  facts: readonly Fact[];
  changes: readonly Change[];
  exports?: ExportDescription;
  deletions: readonly Deletion[];
  /** Each a full sentence a person can act on. */
  warnings: readonly string[];
  /** A signing request over a threshold set in Settings: its warnings, for the list row ("Large transfer: …"). */
  largeValue?: string;
  signing?: SigningRequest;
  rawIntent?: Readonly<Record<string, unknown>>;
}
