/**
 * The IPC contract between the renderer and main (docs/architecture.md#the-ipc-contract): ONE table
 * `channel → {input, output}` of zod schemas. Main registers one handler per entry and validates both directions;
 * the preload builds `window.quorumkey` from the same table, one named method per channel.
 *
 * Every schema is strict (unknown keys are refused) and every string is bounded, so a renderer bug or a hostile
 * page cannot smuggle fields into a service call. Outputs have no field that could carry a private key: a handler
 * that returned one would fail output validation instead of leaking it. The two exceptions are `exports.reveal`
 * and `exports.decryptBundle`, whose whole purpose is to show a person a mnemonic, passphrase or private key.
 *
 * Channels that talk to a service (sandbox aside) act for the ACTIVE profile: its organization, its API key, its
 * pinned enclave signer.
 */
import { z } from 'zod';
import { activityType as submittableActivityType } from '../api/activity-types';
import { activityStatus, addressFormat, curve, effect, mnemonicLanguage, pathFormat } from '../api/enums';
import { policy as servicePolicy } from '../api/resources';
import { fingerprintSchema, voterSchema } from '../approvals/voting';
import type { PrivateKeyFormat } from '../crypto/key-formats';
import { errorCodes, type ErrorCode, type ErrorData } from '../errors';
import {
  contractInterfaceInput,
  contractInterfaceType,
  contractInterfaceView,
  dryRunView,
  signingCardView,
  signingRequestInput,
  signingResultView,
} from './signing';
import { policyFieldChange, policyReading } from './policy-words';
import { draftEntry } from './policy-draft';
import { LINT_RULES } from '../policy/lint-rules';
import { activityReading } from './readings';
import { simulationView } from './simulation';
import { journalChannels } from './journal';
import { sha256HexSchema } from '../journal/format';

// ---- shared pieces -------------------------------------------------------------------------------------------

/** Key names: what people type and see. The keychain enforces the exact character set; this bounds the size. */
const keyName = z.string().min(1).max(64);
const apiKeyCurve = z.enum(['p256', 'secp256k1', 'ed25519']);
/** Private keys arrive as hex (64 characters, optionally 0x-prefixed); 256 leaves room for whitespace, not abuse. */
const privateKeyHex = z.string().min(1).max(256);
const publicKeyHex = z.string().min(1).max(256);
const filePath = z.string().min(1).max(4096);
const isoTimestamp = z.iso.datetime({ offset: true });
const noInput = z.strictObject({});
/** The unlock passphrase as typed; its rules (length, spaces) are checked in main with a specific message. */
const unlockPassphrase = z.string().min(1).max(1024);
/** The passphrase, or `touchId: true` to ask Touch ID on a Mac that offers it. */
const unlockCredentials = z.strictObject({ passphrase: unlockPassphrase.optional(), touchId: z.literal(true).optional() });
/** A mnemonic (with room for 24 long words), a passphrase or a private key in any of its formats. */
const clipboardSecret = z.string().min(1).max(4096);
const nothing = z.null();

const apiKeyInfo = z.strictObject({
  name: keyName,
  id: z.string().max(128),
  curve: apiKeyCurve,
  publicKey: publicKeyHex,
  createdAt: isoTimestamp,
  /** The index lists the key but the OS keychain no longer holds its secret. */
  missing: z.boolean(),
  /** Names of the profiles that sign with this key. */
  usedByProfiles: z.array(z.string().max(64)),
});

const encryptionKeyInfo = z.strictObject({
  name: keyName,
  id: z.string().max(128),
  /** Uncompressed P-256 point, 130 hex characters: the export target key. */
  publicKey: publicKeyHex,
  createdAt: isoTimestamp,
  missing: z.boolean(),
});

const profileId = z.string().min(1).max(128);
const url = z.string().min(1).max(2048);
const profileFields = {
  name: z.string().min(1).max(64),
  kind: z.enum(['sandbox', 'hosted']),
  baseUrl: url,
  authProxyUrl: url.optional(),
  organizationId: z.string().min(1).max(64),
  apiKeyName: keyName,
  authProxyConfigId: z.string().min(1).max(128).optional(),
};
const profile = z.strictObject({
  id: profileId,
  ...profileFields,
  enclaveSignerPublicKey: publicKeyHex,
  /** A Sandbox profile's own attestation root (SHA-256 of its certificate), pinned from its service; main sets it. */
  attestationRoot: sha256HexSchema.optional(),
  /** The PKCS#11 token key that signs instead of the keychain key, with its pinned public key (profiles.useTokenKey, the CLI). */
  tokenKey: z
    .strictObject({
      module: z.string().min(1).max(4096),
      tokenLabel: z.string().min(1).max(32),
      keyLabel: z.string().min(1).max(32),
      keyId: z
        .string()
        .regex(/^(?:[0-9a-f]{2}){1,64}$/)
        .optional(),
      publicKey: z.string().regex(/^0[23][0-9a-f]{64}$/),
    })
    .optional(),
});
/** PKCS#11: a module main offers (keys.pkcs11Modules), a token by its label, a key by its label and CKA_ID. */
const pkcs11Module = z.string().min(1).max(4096);
const pkcs11Label = z.string().min(1).max(32);
const pkcs11KeyId = z.string().regex(/^(?:[0-9a-f]{2}){1,64}$/);
const tokenRef = z.strictObject({ module: pkcs11Module, tokenLabel: pkcs11Label });
const tokenKeyRef = tokenRef.extend({ keyLabel: pkcs11Label, keyId: pkcs11KeyId.optional() });
const tokenInfo = tokenRef.extend({ serial: z.string().max(64), manufacturer: z.string().max(64), model: z.string().max(64) });
const tokenKeyInfo = tokenKeyRef.extend({
  publicKey: z.string().regex(/^0[23][0-9a-f]{64}$/),
  /** The token holds the private half too. */
  canSign: z.boolean(),
  /** The private half is sensitive and not extractable: it never leaves the token. */
  keptOnToken: z.boolean(),
  /** Names of the profiles that sign with this key. */
  usedByProfiles: z.array(z.string().max(64)),
});

/** Hosted profiles default the enclave signer key to the production one, so it is optional when adding. */
const profileInput = z.strictObject({ ...profileFields, enclaveSignerPublicKey: publicKeyHex.optional() });

/**
 * A token an operator declared so its amounts read in its units (clear signing): an ERC-20 contract on one EVM chain,
 * or an SPL mint. Kept by the app, for every profile: a contract's symbol and decimals are facts of its chain, not of
 * an organization. Address formats are checked in main, with a message naming the chain.
 */
const tokenSymbol = z
  .string()
  .regex(/^[\p{L}\p{N}.$_+-]{1,16}$/u, { error: 'a token symbol is 1 to 16 letters, digits or . $ _ + -, with no spaces' });
const tokenDecimals = z
  .number()
  .int()
  .min(0, { error: 'decimals cannot be negative' })
  .max(77, { error: 'a uint256 amount has at most 77 decimals' });
const tokenName = z.string().min(1).max(64);
const chainId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const tokenAddress = z.string().min(1).max(128);
export const declaredTokenSchema = z.discriminatedUnion('family', [
  z.strictObject({
    family: z.literal('ethereum'),
    chainId,
    address: tokenAddress,
    symbol: tokenSymbol,
    decimals: tokenDecimals,
    name: tokenName.optional(),
  }),
  z.strictObject({ family: z.literal('solana'), address: tokenAddress, symbol: tokenSymbol, decimals: tokenDecimals, name: tokenName.optional() }),
]);
export type DeclaredToken = z.infer<typeof declaredTokenSchema>;
/** Which declaration: the chain (Ethereum) and the address. */
export const declaredTokenKey = z.discriminatedUnion('family', [
  z.strictObject({ family: z.literal('ethereum'), chainId, address: tokenAddress }),
  z.strictObject({ family: z.literal('solana'), address: tokenAddress }),
]);
/** A token amount in its units, group commas allowed; main checks it against the token's decimals and a uint256. */
const tokenUnits = z.string().regex(/^[\d,]{1,104}(\.\d{1,77})?$/, { error: 'expected an amount in the token’s units, like 10000 or 0.5' });
/** A large-transfer threshold as main holds it: an integer of the token's base units, at most a uint256's 78 digits. */
const tokenThreshold = z.strictObject({
  token: declaredTokenKey,
  baseUnits: z.string().regex(/^[1-9]\d{0,77}$/, { error: 'expected a positive integer of the token’s base units' }),
});
/** Thresholds as a person types them: in the token's units ("10000" USDC), converted by main with its decimals. */
const tokenWarnAboveInput = z.array(z.strictObject({ token: declaredTokenKey, amount: tokenUnits })).max(500);
export type TokenWarnAboveInput = z.infer<typeof tokenWarnAboveInput>;
/** A declaration as the tokens panel lists it: `notRead` says why one imitating a known token is not read. */
const declaredTokenView = z.union([
  declaredTokenSchema.options[0].extend({ notRead: z.string().max(2000).optional() }),
  declaredTokenSchema.options[1].extend({ notRead: z.string().max(2000).optional() }),
]);
export type DeclaredTokenView = z.infer<typeof declaredTokenView>;
/**
 * An address book entry: a name this desktop's operators gave an address of the active organization's dealings, on
 * one EVM chain, Solana or Bitcoin. The name is plain text on one line; main checks the address for its chain.
 */
const addressBookName = z
  .string()
  .trim()
  .min(1, { error: 'a name cannot be empty' })
  .max(64, { error: 'a name is at most 64 characters' })
  .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u, { error: 'a name is one line of plain text, without control or invisible formatting characters' });
export const addressBookKey = z.discriminatedUnion('family', [
  z.strictObject({ family: z.literal('ethereum'), chainId, address: tokenAddress }),
  z.strictObject({ family: z.literal('solana'), address: tokenAddress }),
  z.strictObject({ family: z.literal('bitcoin'), address: tokenAddress }),
]);
export type AddressBookKey = z.infer<typeof addressBookKey>;
export const addressBookEntry = z.discriminatedUnion('family', [
  addressBookKey.options[0].extend({ name: addressBookName }),
  addressBookKey.options[1].extend({ name: addressBookName }),
  addressBookKey.options[2].extend({ name: addressBookName }),
]);
export type AddressBookEntry = z.infer<typeof addressBookEntry>;
/** A token whose amounts read in its units (the known list, then the declarations read), with its warning threshold. */
const tokenCatalogEntry = z.strictObject({
  token: declaredTokenKey,
  symbol: tokenSymbol,
  name: z.string().max(64).optional(),
  decimals: tokenDecimals,
  origin: z.enum(['known token list', 'declared by an operator']),
  /** "Ethereum (chain id 1)", "Solana". */
  network: z.string().max(200),
  /** The large-value threshold set for it, in its units. */
  warnAbove: tokenUnits.optional(),
});
export type TokenCatalogEntry = z.infer<typeof tokenCatalogEntry>;

/** A chain whose transactions can be simulated: an EVM chain named as CAIP-2 does (`eip155:<chain id>`). */
const EVM_CHAIN_EXPECTED = 'expected an EVM chain as CAIP-2 names it, like eip155:1';
export const evmChainCaip2 = z.string().regex(/^eip155:[1-9]\d{0,15}$/, { error: EVM_CHAIN_EXPECTED });
/** A node's JSON-RPC address: http or https only, at most 2,000 characters. */
const nodeUrl = z
  .url({ protocol: /^https?$/, error: 'expected the node’s http:// or https:// URL' })
  .max(2000, { error: 'expected a node URL of at most 2,000 characters' });
const nodeUrls = z
  // A bad key is reported as the record's issue: name what a key must be rather than zod's "Invalid key in record".
  .record(evmChainCaip2, nodeUrl, { error: (issue) => (issue.code === 'invalid_key' ? EVM_CHAIN_EXPECTED : undefined) })
  .refine((urls) => Object.keys(urls).length <= 100, { error: 'at most 100 chains may have a node' });
export const THEMES = ['system', 'light', 'dark'] as const;
const wholeUnits = z.string().regex(/^\d{1,30}(\.\d{1,18})?$/, { error: 'expected an amount in whole units, like 1.5' });
export const appSettingsSchema = z.strictObject({
  /** Minutes without any input before the app locks itself. */
  idleLockMinutes: z.number().int().min(1).max(1440),
  /** Revealing a mnemonic or private key asks for the unlock passphrase again once the last unlock is this old. */
  reauthMinutes: z.number().int().min(1).max(60),
  theme: z.enum(THEMES),
  /**
   * Keeps the window out of screenshots and screen sharing (macOS and Windows; Linux offers no way to). Off only for
   * recording a demo, say: while a secret is on screen the window is protected whatever this says.
   */
  captureProtection: z.boolean(),
  /**
   * Signing requests moving more than this many whole units of the chain's coin are flagged on their card ("1.5" ETH).
   * A chain left out has no threshold.
   */
  warnAbove: z
    .strictObject({
      ETH: wholeUnits.optional(),
      SOL: wholeUnits.optional(),
      BTC: wholeUnits.optional(),
    })
    .optional(),
  /**
   * Signing requests moving at least this many of a token's base units (known or declared) are flagged on their card
   * and in the approval list. Held in base units, so a token's decimals declared again cannot move the threshold;
   * `app.setSettings` takes them in the token's units (`tokenWarnAboveInput`) and `tokens.catalog` shows them so.
   */
  tokenWarnAbove: z.array(tokenThreshold).max(500).optional(),
  /**
   * The Ethereum node each chain's transactions are simulated on before they are signed, by CAIP-2 chain
   * (`eip155:1` → URL). A chain without one is not simulated; the card says so.
   */
  nodeUrls: nodeUrls.optional(),
  /**
   * The inbox (docs/architecture.md#the-inbox): how often main asks each profile's service what waits, and which
   * desktop notifications it shows. While the app is locked a notification says only how many approvals wait.
   */
  inbox: z.strictObject({
    /** Seconds between two looks at each profile's service (one request per profile). */
    intervalSeconds: z.number().int().min(2).max(3600),
    /** An activity starts waiting for this user's vote. */
    notifyWaiting: z.boolean(),
    /** An activity this user proposed was approved, rejected or failed. */
    notifyDecided: z.boolean(),
    /** An activity waiting for this user's vote will expire within the hour. */
    notifyExpiring: z.boolean(),
  }),
});
export type AppSettings = z.infer<typeof appSettingsSchema>;
export type InboxSettings = AppSettings['inbox'];

// ---- service records, as the renderer sees them -------------------------------------------------------------

/** Service ids (UUIDs and the like). */
const id = z.string().min(1).max(128);
/** Milliseconds since the epoch. */
const epochMs = z.number().int().nonnegative();
const activityType = z.string().regex(/^ACTIVITY_TYPE_[A-Z0-9_]{1,100}$/, { error: 'expected an ACTIVITY_TYPE_* value' });
// Spelled out rather than imported, so the preload bundle does not pull in the key-format codecs.
const privateKeyFormat = z.enum(['hexadecimal', 'solana', 'wif-mainnet', 'wif-testnet'] as const satisfies readonly PrivateKeyFormat[]);

/** One activity: what it asks for (`intent`, e.g. `{createWalletIntent: {...}}`), where it stands, and its votes. */
const activityView = z.strictObject({
  id: z.string(),
  organizationId: z.string(),
  type: activityType,
  status: activityStatus,
  fingerprint: z.string(),
  intent: z.record(z.string(), z.unknown()),
  /**
   * One entry per user, in the order of their first votes (the proposer first); a later vote by the same user
   * replaces the earlier one's selection and time.
   */
  voters: z.array(voterSchema),
  /** Distinct users whose approvals count now (main's clock against the service's vote times). */
  approvals: z.number().int().nonnegative(),
  /**
   * Until the approvals that count expire (24 h from the window's first approval); 0 when none is open or the
   * activity no longer takes votes.
   */
  timeLeftMs: z.number().int().nonnegative(),
  canApprove: z.boolean(),
  canReject: z.boolean(),
  createdAtMs: epochMs,
  updatedAtMs: epochMs,
  /** Why a FAILED activity failed (gRPC code and message), as far as the service said. */
  failure: z.strictObject({ code: z.number().int().optional(), message: z.string().optional() }).optional(),
});

/** An activity waiting for votes, with the count against the organization's root quorum. */
/** One activity in the inbox of one profile (docs/architecture.md#the-inbox). */
const inboxItem = z.strictObject({
  activityId: id,
  fingerprint: fingerprintSchema,
  type: activityType,
  /** The activity's title in words, as the Approvals screen reads it. */
  title: z.string().max(200),
  /** What it asks for in one line ("Transfer 250,000 USDC to 0x… on Ethereum"), main's reading of it. */
  summary: z.string().max(400),
  /** The reading's warnings, the vote's own first (an approval overriding every policy). */
  warnings: z.array(z.string().max(1000)).max(20),
  /** Who proposed it (the first vote), when known. */
  requester: z.string().max(200).optional(),
  createdAtMs: epochMs,
  /** This profile's user may vote on it and has no vote in the open window. */
  waitingForMe: z.boolean(),
  proposedByMe: z.boolean(),
  approvals: z.number().int().nonnegative(),
  /** The count in words: "1 of 2 approved" from main's vote reading, "1 approved" until it is made. */
  progress: z.string().max(200),
  /** This user's approval is the one that completes it. */
  completesIt: z.boolean(),
  /** Until the approvals gathered so far expire; 0 when no window is open. */
  timeLeftMs: z.number().int().nonnegative(),
  /** It expires within the hour. */
  expiringSoon: z.boolean(),
});
/** An activity this profile's user proposed that was decided since the inbox last showed it. */
const inboxDecided = z.strictObject({ activityId: id, type: activityType, title: z.string().max(200), status: activityStatus, decidedAtMs: epochMs });
const inboxProfile = z.strictObject({
  profileId,
  profileName: z.string().max(64),
  organizationId: id,
  /** Known once the service answered for this profile. */
  organizationName: z.string().max(256).optional(),
  /** Why the last look failed; the next is tried after a back-off. The items are those of the last good look. */
  error: z.strictObject({ code: z.string().max(64), message: z.string().max(2000), retryAtMs: epochMs }).optional(),
  checkedAtMs: epochMs.optional(),
  /** Soonest to expire first. */
  items: z.array(inboxItem),
  decided: z.array(inboxDecided),
});
export type InboxProfileView = z.infer<typeof inboxProfile>;
export type InboxItemView = z.infer<typeof inboxItem>;

const pendingApproval = z.strictObject({
  activityId: z.string(),
  type: activityType,
  fingerprint: z.string(),
  organizationId: z.string(),
  createdAtMs: epochMs,
  /** Distinct users whose approvals count in the open approval window. */
  approvals: z.number().int().nonnegative(),
  /** Who proposed it, named by main from its votes. */
  proposer: z.string().max(200).optional(),
  voters: z.array(voterSchema),
  /** Until the approvals gathered so far expire (24 h from the window's first approval); 0 when none is open. */
  timeLeftMs: z.number().int().nonnegative(),
  canApprove: z.boolean(),
  canReject: z.boolean(),
  activity: activityView,
  /** What it asks for, read in main (src/main/activities/readings.ts). */
  reading: activityReading,
});

/**
 * How a submitted activity stands: `completed` with its typed result, or waiting (`consensus-needed`: approve it by
 * `activity.fingerprint`), still `pending`, or voted down (`rejected`). A FAILED activity is an error instead.
 * `resentFromMs`: this retried a request first sent then without an answer, re-sending the same body, so `activity`
 * is the one that attempt created (never a second one).
 */
function activityOutcome<R extends z.ZodType>(result: R) {
  const resentFromMs = epochMs.optional();
  return z.discriminatedUnion('state', [
    z.strictObject({ state: z.literal('completed'), result, activity: activityView, resentFromMs }),
    z.strictObject({ state: z.enum(['consensus-needed', 'pending', 'rejected']), activity: activityView, resentFromMs }),
  ]);
}

const policyName = z.string().min(1).max(256);
/** Policy expressions (condition/consensus/time): checked with the policy language in main before anything is signed. */
const policyExpression = z.string().max(8192);
const policyNotes = z.string().max(4096);
/** A policy as the service returns it, with its times in epoch ms. */
const policyView = z.strictObject({
  ...servicePolicy.pick({ policyId: true, policyName: true, effect: true, condition: true, consensus: true, notes: true }).shape,
  /** Empty when the policy is always active. */
  time: z.string(),
  createdAtMs: epochMs,
  updatedAtMs: epochMs,
});
const policyFields = {
  name: policyName,
  effect,
  condition: policyExpression.optional(),
  consensus: policyExpression.optional(),
  time: policyExpression.optional(),
  notes: policyNotes.optional(),
};

/** A policy as the editor holds it: every field as text, empty meaning "not set". */
const editorPolicy = z.strictObject({
  name: z.string().max(256),
  effect,
  condition: policyExpression,
  consensus: policyExpression,
  time: policyExpression,
  notes: policyNotes,
});

/** A policy linter finding (docs/service.md#policy-lint), at its position in one expression of the policy. */
const lintFinding = z.strictObject({
  rule: z.enum(LINT_RULES),
  severity: z.enum(['warning', 'error']),
  field: z.enum(['condition', 'consensus', 'time']),
  span: z.strictObject({
    offset: z.number().int().nonnegative(),
    line: z.number().int().positive(),
    column: z.number().int().positive(),
    length: z.number().int().nonnegative(),
  }),
  message: z.string(),
  suggestion: z.string().optional(),
});

/** A draft: policies to replace or add, and deletions. */
const policyDraft = z.array(draftEntry).max(100);
const replayedOutcome = z.enum(['allowed', 'consensus-needed', 'denied', 'not-replayable']);
const rehearsalReport = z.strictObject({
  replayed: z.number().int().nonnegative(),
  unreproduced: z.array(
    z.strictObject({
      activityId: z.string(),
      type: z.string(),
      reading: z.string(),
      recorded: z.enum(['allowed', 'consensus-needed']),
      replayed: replayedOutcome,
      reason: z.string(),
    }),
  ),
  changes: z.array(
    z.strictObject({
      activityId: z.string(),
      type: z.string(),
      reading: z.string(),
      createdAtMs: epochMs,
      before: replayedOutcome,
      after: replayedOutcome,
      approvalsBefore: z.number().int().nonnegative(),
      approvalsAfter: z.number().int().nonnegative(),
      /** The change in words, as main words it: "needed 2 approvals, would now need 1". */
      words: z.string(),
      policies: z.array(z.strictObject({ policyId: z.string(), policyName: z.string(), before: z.string(), after: z.string() })),
    }),
  ),
  totals: z.strictObject({
    allowedToDenied: z.number().int(),
    deniedToAllowed: z.number().int(),
    toConsensus: z.number().int(),
    fromConsensus: z.number().int(),
    fewerApprovals: z.number().int(),
    moreApprovals: z.number().int(),
    unchanged: z.number().int(),
  }),
});

const walletName = z.string().min(1).max(256);
const walletAccountParams = z.strictObject({
  curve,
  pathFormat,
  /** BIP-32 path, e.g. m/44'/60'/0'/0/0. */
  path: z.string().min(1).max(256),
  addressFormat,
  name: z.string().max(256).optional(),
});
const walletAccountParamsList = z.array(walletAccountParams).min(1).max(100);
const walletView = z.strictObject({
  walletId: z.string(),
  walletName: z.string(),
  createdAtMs: epochMs,
  updatedAtMs: epochMs,
  exported: z.boolean(),
  imported: z.boolean(),
});
const walletAccountView = z.strictObject({
  walletAccountId: z.string(),
  walletId: z.string(),
  curve,
  pathFormat,
  path: z.string(),
  addressFormat,
  address: z.string(),
  publicKey: z.string().optional(),
  name: z.string().optional(),
  createdAtMs: epochMs,
});
const addressView = z.strictObject({ format: addressFormat, address: z.string() });
const privateKeyView = z.strictObject({
  privateKeyId: z.string(),
  privateKeyName: z.string(),
  curve,
  publicKey: z.string(),
  addresses: z.array(addressView),
  tags: z.array(z.string()),
  createdAtMs: epochMs,
  exported: z.boolean(),
  imported: z.boolean(),
});
const privateKeyName = z.string().min(1).max(256);
const addressFormats = z.array(addressFormat).max(32);

/** What an export reveals. PLAINTEXT: the mnemonic, passphrase or private key itself. */
const revealedSecret = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('mnemonic'),
    mnemonic: z.string(),
    passphrase: z.string().optional(),
    language: mnemonicLanguage,
  }),
  z.strictObject({ kind: z.literal('private-key'), format: privateKeyFormat, privateKey: z.string() }),
]);
const exportSubject = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('wallet'), walletId: id, language: mnemonicLanguage.optional() }),
  z.strictObject({ kind: z.literal('private-key'), privateKeyId: id }),
  z.strictObject({ kind: z.literal('wallet-account'), address: z.string().min(1).max(256) }),
  /**
   * An export that waited for votes and has since completed: opened with the stored encryption key it was sealed to,
   * or (`ephemeral` target) with the one-time key this desktop holds for it.
   */
  z.strictObject({ kind: z.literal('completed-export'), activityId: id }),
]);
const exportTarget = z.discriminatedUnion('kind', [
  /** A one-time key made for this export: wiped right after, or held in the keychain while it waits for votes. */
  z.strictObject({ kind: z.literal('ephemeral') }),
  z.strictObject({ kind: z.literal('encryption-key'), name: keyName }),
]);
/** An export bundle (JSON text, about 1 kB); the bound leaves room for whitespace, not abuse. */
const exportBundle = z.string().min(1).max(16_384);

const importOutcome = <R extends z.ZodType>(result: R) =>
  z.discriminatedUnion('state', [
    z.strictObject({ state: z.literal('imported'), result, activity: activityView }),
    z.strictObject({
      state: z.enum(['consensus-needed', 'pending', 'rejected']),
      activity: activityView,
      /** Which of the two activities waits: init_import (the target) or import (the encrypted secret). */
      step: z.enum(['init', 'import']),
    }),
  ]);

/**
 * A stamped-request file's name. Such files live in one directory kept by main (`stampedRequestsDir` in the
 * answers), never at a path the renderer chooses: carry them between machines by copying that directory's files.
 */
const stampedFileName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.json$/, { error: 'expected a file name like approval-1.json (letters, digits, . _ -), no folders' });
const stampedFileInfo = z.strictObject({
  /** Absolute path of the file, for showing where it is. */
  file: z.string(),
  stampedRequestsDir: z.string(),
  path: z.string(),
  body: z.string(),
});

/** What a person types to reset the Sandbox. */
export const SANDBOX_RESET_PHRASE = 'reset the Sandbox';

const sandboxStatus = z.strictObject({
  running: z.boolean(),
  /** `starting` also while main restarts a Sandbox whose process died; `failed` once it gave up (see `error`). */
  state: z.enum(['stopped', 'starting', 'running', 'failed']),
  error: z.string().nullable(),
  /** Restarts after the Sandbox's process died, since the app started. */
  restarts: z.number().int().nonnegative(),
  /** Why it serves at another address than before (its port was taken), while it runs. */
  notice: z.string().nullable(),
  /** The Sandbox profile, once the sandbox has started at least once in this data directory. */
  profileId: z.string().nullable(),
  organizationId: z.string().nullable(),
  rootUserId: z.string().nullable(),
  baseUrl: z.string().nullable(),
  enclaveSignerPublicKey: z.string().nullable(),
});

/** The organization as it stands: names for ids, and the "before" of every change an activity asks for. */
const organizationLookup = z.strictObject({
  organizationId: z.string(),
  organizationName: z.string(),
  users: z.array(
    z.strictObject({
      userId: z.string(),
      userName: z.string(),
      userEmail: z.string().optional(),
      /** Tag ids; `tags` names them. */
      userTags: z.array(z.string()),
      /** `credentialType` is the credential's type (`CREDENTIAL_TYPE_API_KEY_P256`…), which consensus expressions read. */
      apiKeys: z.array(z.strictObject({ apiKeyId: z.string(), apiKeyName: z.string(), publicKey: z.string(), credentialType: z.string() })),
      authenticators: z.array(
        z.strictObject({ authenticatorId: z.string(), authenticatorName: z.string(), publicKey: z.string(), credentialType: z.string() }),
      ),
      oauthProviders: z.array(z.strictObject({ providerId: z.string(), providerName: z.string() })),
    }),
  ),
  tags: z.array(z.strictObject({ tagId: z.string(), tagName: z.string() })),
  /** Absent when the service does not report its root quorum. */
  rootQuorum: z.strictObject({ userIds: z.array(z.string()), threshold: z.number().int() }).optional(),
  /** When the users the policies ask for are enough for the root quorum: main's sentence that the policies protect nothing against them. */
  rootQuorumOverlap: z.string().max(2000).optional(),
  /** `activeNow`: whether the policy's time window holds now, by main's clock (one that cannot be evaluated does not). */
  policies: z.array(policyView.extend({ activeNow: z.boolean() })),
  wallets: z.array(walletView),
  walletAccounts: z.array(z.strictObject({ walletId: z.string(), address: z.string(), path: z.string(), addressFormat })),
  privateKeys: z.array(
    z.strictObject({ privateKeyId: z.string(), privateKeyName: z.string(), exported: z.boolean(), addresses: z.array(z.string()) }),
  ),
  /** This desktop's stored export keys (names and public keys): an export sealed to one of them opens here. */
  localExportKeys: z.array(z.strictObject({ name: z.string(), publicKey: z.string() })),
  /** Uploaded contract interfaces (the ABI or IDL as its JSON text), so signing requests read with their labels. */
  contracts: z.array(z.strictObject({ address: z.string(), type: z.enum(['ETHEREUM', 'SOLANA']), label: z.string(), definition: z.string() })),
  /** Tokens operators declared on this desktop, so a signing request's amounts read in the same units everywhere. */
  declaredTokens: z.array(declaredTokenSchema),
});

/**
 * A new API key for a user: a public key pasted here, or one of this desktop's keychain keys (made on the Keys
 * screen, or just now), whose public key main reads from the keychain.
 */
const newApiKey = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('public-key'), apiKeyName: z.string().min(1).max(256), publicKey: publicKeyHex, curve: apiKeyCurve }),
  z.strictObject({ kind: z.literal('keychain'), keyName }),
]);
const userIds = z.array(id).min(1).max(100);
const userOutcome = activityOutcome(z.strictObject({ userId: z.string() }));

const errorCodeNames = Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]];
export const errorDataSchema: z.ZodType<ErrorData> = z.strictObject({
  code: z.enum(errorCodeNames),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

// ---- the table -----------------------------------------------------------------------------------------------

function channel<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output } as const;
}

export const ipcContract = {
  'app.info': channel(
    noInput,
    z.strictObject({
      version: z.string(),
      platform: z.string(),
      packaged: z.boolean(),
      locked: z.boolean(),
      /** Whether unlocking asks for a passphrase; false until one is set (first run, or Settings). */
      unlockPassphraseSet: z.boolean(),
      /** Whether Touch ID may stand in for the passphrase (macOS with a sensor, and a passphrase set). */
      touchIdAvailable: z.boolean(),
      /** Whether the OS can keep the window out of screen capture (macOS and Windows, not Linux). */
      captureProtectionSupported: z.boolean(),
    }),
  ),
  'app.lock': channel(noInput, nothing),
  /** Unlocks; once a passphrase is set, only with it (or Touch ID). Wrong guesses are rate-limited. */
  'app.unlock': channel(unlockCredentials, nothing),
  /** Renews the recent unlock that revealing a secret needs (answered REAUTH_REQUIRED otherwise). */
  'app.reauthenticate': channel(unlockCredentials, nothing),
  /** Sets the unlock passphrase, or changes it given the current one. Only its salted scrypt hash is stored. */
  'app.setUnlockPassphrase': channel(z.strictObject({ passphrase: unlockPassphrase, currentPassphrase: unlockPassphrase.optional() }), nothing),
  'app.getSettings': channel(noInput, appSettingsSchema),
  /**
   * With an unlock passphrase set, a change that widens what the app shows or lets through (longer idle lock or
   * re-auth interval, capture protection off, a large-value warning raised or removed) needs `passphrase`.
   */
  'app.setSettings': channel(
    appSettingsSchema.partial().extend({ tokenWarnAbove: tokenWarnAboveInput.optional(), passphrase: unlockPassphrase.optional() }),
    appSettingsSchema,
  ),
  /**
   * The renderer says when a revealed secret appears (`true`) and when it is hidden again (`false`); in between the
   * window is kept out of screen capture whatever the captureProtection setting says. Answers once that is in force,
   * with whether this OS honours it.
   */
  'app.setSecretOnScreen': channel(z.strictObject({ onScreen: z.boolean() }), z.strictObject({ captureProtectionSupported: z.boolean() })),

  /**
   * Puts a revealed secret on the system clipboard from main, which can also clear it while the window is not
   * focused: after `clearAfterMs`, on lock and on quit, as long as the clipboard still holds it.
   */
  'clipboard.copySecret': channel(z.strictObject({ text: clipboardSecret }), z.strictObject({ clearAfterMs: z.number().int().positive() })),
  /** After a secret was pasted into a form: clears the clipboard if it still holds `text`. */
  'clipboard.clearPasted': channel(z.strictObject({ text: clipboardSecret }), nothing),

  'keys.generateApiKey': channel(z.strictObject({ name: keyName, curve: apiKeyCurve.optional() }), apiKeyInfo),
  'keys.importApiKey': channel(
    z.strictObject({ name: keyName, curve: apiKeyCurve, privateKey: privateKeyHex, publicKey: publicKeyHex.optional() }),
    apiKeyInfo,
  ),
  'keys.importTkcliApiKey': channel(z.strictObject({ name: keyName, privateKeyFile: filePath, publicKeyFile: filePath.optional() }), apiKeyInfo),
  'keys.listApiKeys': channel(noInput, z.array(apiKeyInfo)),
  'keys.renameApiKey': channel(z.strictObject({ name: keyName, newName: keyName }), apiKeyInfo),
  'keys.deleteApiKey': channel(z.strictObject({ name: keyName }), nothing),
  'keys.generateEncryptionKey': channel(z.strictObject({ name: keyName }), encryptionKeyInfo),
  'keys.importEncryptionKey': channel(z.strictObject({ name: keyName, privateKey: privateKeyHex }), encryptionKeyInfo),
  'keys.listEncryptionKeys': channel(noInput, z.array(encryptionKeyInfo)),
  'keys.pkcs11Modules': channel(noInput, z.array(z.strictObject({ path: pkcs11Module, name: z.string().max(64) }))),
  'keys.listTokens': channel(z.strictObject({ module: pkcs11Module }), z.array(tokenInfo)),
  'keys.listTokenKeys': channel(tokenRef, z.array(tokenKeyInfo)),
  'keys.generateTokenKey': channel(tokenRef.extend({ keyLabel: pkcs11Label }), tokenKeyInfo),
  'keys.deleteEncryptionKey': channel(z.strictObject({ name: keyName }), nothing),

  'profiles.list': channel(noInput, z.array(profile)),
  'profiles.get': channel(z.strictObject({ id: profileId }), profile),
  'profiles.getActive': channel(noInput, profile.nullable()),
  'profiles.add': channel(profileInput, profile),
  'profiles.update': channel(z.strictObject({ id: profileId, changes: profileInput.partial() }), profile),
  'profiles.remove': channel(z.strictObject({ id: profileId }), nothing),
  /** The profile signs with this token key from now on; main reads its public key from the token and confirms. */
  'profiles.useTokenKey': channel(z.strictObject({ id: profileId, key: tokenKeyRef }), profile),
  /** `id: null` clears the choice. */
  'profiles.setActive': channel(z.strictObject({ id: profileId.nullable() }), nothing),

  /** Requests to the active profile's service still waiting for their answer, oldest first. */
  'requests.pending': channel(noInput, z.array(z.strictObject({ id: z.string(), url: z.string(), startedAtMs: epochMs }))),
  /** Cancels the pending request with `id`, or all of them; the cancelled calls fail with CANCELLED. */
  'requests.cancel': channel(
    z.strictObject({ id: z.string().min(1).max(64).optional() }),
    z.strictObject({ cancelled: z.number().int().nonnegative() }),
  ),

  'sandbox.status': channel(noInput, sandboxStatus),
  /** Starts the embedded service (once; later calls answer the running one); first run makes Sandbox the active profile. */
  'sandbox.start': channel(noInput, sandboxStatus),
  'sandbox.stop': channel(noInput, sandboxStatus),
  /**
   * Deletes the Sandbox's database (every user, policy, wallet and key in it) and starts it afresh. The person types
   * the confirmation phrase; main refuses anything else, so no renderer bug can reset it by accident.
   */
  'sandbox.reset': channel(z.strictObject({ confirmation: z.literal(SANDBOX_RESET_PHRASE) }), sandboxStatus),
  /** Adds the Sandbox profile back after it was removed (starting the Sandbox if it is stopped). */
  'sandbox.restoreProfile': channel(noInput, sandboxStatus),

  /**
   * Newest first, each with its reading (computed in main, the same the signing card and the pending list show);
   * `before` (an activity id) answers the page of activities older than that one.
   */
  'activities.list': channel(
    z.strictObject({
      status: z.array(activityStatus).max(7).optional(),
      type: z.array(submittableActivityType).max(64).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      before: id.optional(),
    }),
    z.array(activityView.extend({ proposer: z.string().max(200).optional(), reading: activityReading })),
  ),
  'activities.get': channel(z.strictObject({ activityId: id }), activityView),

  /** Who the active profile's API key signs as (to tell one's own votes apart). */
  'approvals.whoami': channel(
    noInput,
    z.strictObject({ organizationId: z.string(), organizationName: z.string(), userId: z.string(), username: z.string() }),
  ),
  'approvals.pending': channel(noInput, z.array(pendingApproval)),
  /** Votes on the activity with this fingerprint; answers that activity as it stands after the vote. */
  'approvals.approve': channel(z.strictObject({ fingerprint: fingerprintSchema }), activityView),
  'approvals.reject': channel(z.strictObject({ fingerprint: fingerprintSchema }), activityView),
  /**
   * Offline: stamps a vote (approve unless `vote` says reject) on the activity with `fingerprint` with the active
   * profile's key and writes it to `file` in the stamped-requests directory (never overwriting). No network.
   * Votes only, on purpose: the renderer must never get main to sign a request of its choosing (the CLI's
   * `request --no-post` stamps any body, for an operator at a terminal).
   */
  'approvals.stampToFile': channel(
    z.strictObject({ fingerprint: fingerprintSchema, vote: z.enum(['approve', 'reject']).optional(), file: stampedFileName }),
    stampedFileInfo,
  ),
  /** Posts a stamped file from the stamped-requests directory byte for byte; answers the service's activity. */
  'approvals.postStampedFile': channel(z.strictObject({ file: stampedFileName }), activityView),

  /**
   * Every profile's inbox, as main last saw it: what waits for this user's vote, what they proposed and still waits,
   * what they proposed that was decided. Main polls; this only reads what it found.
   */
  'inbox.list': channel(noInput, z.strictObject({ waitingForMe: z.number().int().nonnegative(), profiles: z.array(inboxProfile) })),
  /** Votes with `profileId`'s key (whichever profile is active), after main's confirmation like any vote. */
  'inbox.vote': channel(z.strictObject({ profileId, fingerprint: fingerprintSchema, vote: z.enum(['approve', 'reject']) }), activityView),
  /** Forgets the decided activities shown so far. */
  'inbox.clearDecided': channel(noInput, nothing),

  'organization.lookup': channel(noInput, organizationLookup),
  /** Proposes a new root quorum; it waits for the current quorum's votes like any other activity. */
  'organization.updateRootQuorum': channel(
    z.strictObject({ userIds, threshold: z.number().int().min(1).max(100) }),
    activityOutcome(z.strictObject({})),
  ),
  'users.create': channel(
    z.strictObject({ userName: z.string().min(1).max(256), tagIds: z.array(id).max(32).optional(), apiKey: newApiKey.optional() }),
    userOutcome,
  ),
  'users.delete': channel(z.strictObject({ userIds }), activityOutcome(z.strictObject({ userIds: z.array(z.string()) }))),
  /** Main's reading of deleting a user, before anyone is asked: why QuorumKey would refuse to submit it, if it would. */
  'users.deletionCheck': channel(z.strictObject({ userId: id }), z.strictObject({ refusal: z.string().max(2000).optional() })),
  /** Replaces the user's tags with `tagIds`. */
  'users.setTags': channel(z.strictObject({ userId: id, tagIds: z.array(id).max(32) }), userOutcome),
  'users.createTag': channel(
    z.strictObject({ tagName: z.string().min(1).max(256), userIds: z.array(id).max(100) }),
    activityOutcome(z.strictObject({ tagId: z.string() })),
  ),
  'users.addApiKey': channel(z.strictObject({ userId: id, apiKey: newApiKey }), activityOutcome(z.strictObject({ apiKeyIds: z.array(z.string()) }))),
  'users.removeApiKeys': channel(
    z.strictObject({ userId: id, apiKeyIds: z.array(id).min(1).max(100) }),
    activityOutcome(z.strictObject({ apiKeyIds: z.array(z.string()) })),
  ),

  /** Each policy with its reading: ids named, amounts in units (main reads them against the organization). */
  'policies.list': channel(noInput, z.array(policyView.extend({ reading: policyReading }))),
  'policies.get': channel(z.strictObject({ policyId: id }), policyView),
  'policies.create': channel(z.strictObject(policyFields), activityOutcome(z.strictObject({ policyId: z.string() }))),
  /** Changes only the fields given. */
  'policies.update': channel(
    z.strictObject({ policyId: id, changes: z.strictObject(policyFields).partial() }),
    activityOutcome(z.strictObject({ policyId: z.string() })),
  ),
  'policies.delete': channel(z.strictObject({ policyId: id }), activityOutcome(z.strictObject({ policyId: z.string() }))),
  /** An update's changed fields token by token, read against the organization (names, units, grouped digits). */
  'policies.review': channel(z.strictObject({ before: editorPolicy, after: editorPolicy }), z.array(policyFieldChange)),
  /** A policy being edited, read as the list reads a saved one: users, tags and wallets named, amounts in units. */
  'policies.read': channel(editorPolicy.pick({ condition: true, consensus: true, time: true }), policyReading),
  /**
   * The linter's findings on a policy being edited, read against the organization as it stands; nothing is saved.
   * `policyId` names the saved policy the draft edits. An `error` finding blocks saving, a `warning` does not.
   */
  'policies.lint': channel(z.strictObject({ policyId: id.optional(), policy: editorPolicy.omit({ notes: true }) }), z.array(lintFinding)),

  /**
   * Replays recorded activities (the newest `last`, or those since `sinceMs`) against the current policies and the
   * draft (docs/service.md#policy-rehearsal): what the replay does not reproduce, then the outcomes the draft changes.
   */
  'policies.rehearse': channel(
    z.strictObject({
      draft: policyDraft.min(1),
      last: z.number().int().min(1).max(100_000).optional(),
      sinceMs: epochMs.optional(),
    }),
    rehearsalReport,
  ),

  /**
   * A signing request read as its card reads it, and every policy's verdict on it as if the active profile's user
   * submitted it now, against the current policies with `draft` applied (docs/service.md#dry-run); nothing is
   * submitted. The standing says who must still approve, as the approval card would.
   */
  'policies.dryRun': channel(z.strictObject({ request: signingRequestInput, draft: policyDraft.optional() }), dryRunView),

  /**
   * A signing activity's clear-signing card: what it signs in words, its warnings, and where the organization's
   * policies stand on it (matched policies, what consensus still needs, whether the viewer's vote counts).
   */
  'signing.describe': channel(z.strictObject({ activityId: id }), signingCardView.extend({ activity: activityView })),
  /** The same card for a request not yet submitted (the Sign screen). */
  'signing.preview': channel(z.strictObject({ request: signingRequestInput }), signingCardView),
  /** Submits a signing request; it goes through policies and consensus like any activity. */
  'signing.submit': channel(z.strictObject({ request: signingRequestInput }), activityOutcome(signingResultView)),
  /** A signing activity as it stands, with its signed result once it completed. */
  'signing.result': channel(z.strictObject({ activityId: id }), z.strictObject({ activity: activityView, result: signingResultView.optional() })),
  /**
   * Writes a completed signing activity's result (signed transaction or signatures), as main reads it from the
   * activity, to `file` in the signatures directory main keeps (never overwriting); the renderer names files, not paths.
   */
  'signing.saveResult': channel(
    z.strictObject({ activityId: id, file: stampedFileName }),
    z.strictObject({ file: z.string(), signaturesDir: z.string() }),
  ),
  /**
   * Offline: stamps a signing request with the active profile's key into `file` in the stamped-requests directory, to
   * be posted later (approvals.postStampedFile). Only the three signing operations, built by main from typed fields.
   */
  'signing.stampToFile': channel(z.strictObject({ request: signingRequestInput, file: stampedFileName }), stampedFileInfo),
  /**
   * What a signing activity's transaction would do, run by main's EVM on the state of the latest block of the node
   * Settings names for its chain: balance changes, allowances granted, a revert and its reason. Not simulated (and
   * why) without a node, for a request that signs no Ethereum transaction, or when the node fails.
   */
  'simulation.forActivity': channel(z.strictObject({ activityId: id }), simulationView),
  /**
   * Saves a state bundle for a signing activity's transaction (simulated anew on the node's latest block, every
   * account and slot it read with the node's proof) to a file the operator picks in main's save dialog; the page names
   * no path. `saved: false` when the dialog is closed without one.
   */
  'simulation.saveStateBundle': channel(
    z.strictObject({ activityId: id }),
    z.discriminatedUnion('saved', [
      z.strictObject({ saved: z.literal(true), file: z.string().max(4096), block: z.string().max(40) }),
      z.strictObject({ saved: z.literal(false) }),
    ]),
  ),
  /**
   * Simulates a signing activity's transaction without a node, over the state bundle file the operator picks in
   * main's open dialog, every value checked against its block's state root first; null when the dialog is closed.
   */
  'simulation.fromStateBundle': channel(z.strictObject({ activityId: id }), simulationView.nullable()),
  /** simulation.forActivity's reading for a request not yet submitted: the Sign screen's preview shows it under the card. */
  'simulation.forRequest': channel(z.strictObject({ request: signingRequestInput }), simulationView),

  'contracts.list': channel(noInput, z.array(contractInterfaceView)),
  /** Checks an ABI or IDL upload as decoding will read it, without submitting; answers what it defines. */
  'contracts.check': channel(
    z.strictObject({
      type: contractInterfaceType,
      address: contractInterfaceInput.shape.address,
      definition: contractInterfaceInput.shape.definition,
    }),
    z.strictObject({ summary: z.string() }),
  ),
  'contracts.create': channel(contractInterfaceInput, activityOutcome(z.strictObject({ smartContractInterfaceId: z.string() }))),
  'contracts.delete': channel(
    z.strictObject({ smartContractInterfaceId: id }),
    activityOutcome(z.strictObject({ smartContractInterfaceId: z.string() })),
  ),
  /** Tokens operators declared (symbol and decimals), app-wide; the built-in known token list is not among them. */
  'tokens.list': channel(noInput, z.array(declaredTokenView)),
  /** Every token amounts read in units (known list and declarations read), each with its large-value threshold. */
  'tokens.catalog': channel(noInput, z.array(tokenCatalogEntry)),
  /**
   * Declares a token, or replaces the declaration for the same chain and address; refused for a token on the known list.
   * With an unlock passphrase set, changing the symbol or decimals of a declaration that a threshold or a past activity
   * uses, or removing it, needs `passphrase` (like a widening setting).
   */
  'tokens.declare': channel(z.strictObject({ token: declaredTokenSchema, passphrase: unlockPassphrase.optional() }), z.array(declaredTokenSchema)),
  'tokens.remove': channel(z.strictObject({ token: declaredTokenKey, passphrase: unlockPassphrase.optional() }), z.array(declaredTokenSchema)),

  /** The active organization's address book, kept by this desktop; each change answers the whole book. */
  'addressBook.list': channel(noInput, z.array(addressBookEntry)),
  /** Adds a name; an address already in the book (on that chain) or a name already used is refused. */
  'addressBook.add': channel(z.strictObject({ entry: addressBookEntry }), z.array(addressBookEntry)),
  /** Gives the entry at `entry`'s chain and address the name `entry.name`. */
  'addressBook.rename': channel(z.strictObject({ entry: addressBookEntry }), z.array(addressBookEntry)),
  'addressBook.remove': channel(z.strictObject({ entry: addressBookKey }), z.array(addressBookEntry)),

  'wallets.list': channel(noInput, z.array(walletView)),
  'wallets.accounts': channel(z.strictObject({ walletId: id }), z.array(walletAccountView)),
  'wallets.create': channel(
    z.strictObject({
      name: walletName,
      mnemonicLength: z.union([z.literal(12), z.literal(15), z.literal(18), z.literal(21), z.literal(24)]).optional(),
      accounts: walletAccountParamsList,
    }),
    activityOutcome(z.strictObject({ walletId: z.string(), addresses: z.array(z.string()) })),
  ),
  'wallets.createAccounts': channel(
    z.strictObject({ walletId: id, accounts: walletAccountParamsList }),
    activityOutcome(z.strictObject({ addresses: z.array(z.string()) })),
  ),
  'privateKeys.list': channel(noInput, z.array(privateKeyView)),
  'privateKeys.create': channel(
    z.strictObject({ name: privateKeyName, curve, addressFormats }),
    activityOutcome(z.strictObject({ privateKeyId: z.string(), addresses: z.array(addressView) })),
  ),

  /**
   * PLAINTEXT OUTPUT. Exports `subject` sealed to `target`, verifies the bundle against the active profile's pinned
   * enclave signer and organization, and answers the decrypted secret (wallets as their mnemonic, keys in
   * `keyFormat`, default hexadecimal). An export waiting for votes answers its state (a one-time key is then held in
   * the keychain for it) and is listed by `exports.requests`; once approved, reveal it with
   * `{kind: 'completed-export', activityId}` and the same target.
   */
  'exports.reveal': channel(
    z.strictObject({ subject: exportSubject, target: exportTarget, keyFormat: privateKeyFormat.optional() }),
    z.discriminatedUnion('state', [
      z.strictObject({ state: z.literal('revealed'), secret: revealedSecret, activityId: z.string() }),
      z.strictObject({ state: z.enum(['consensus-needed', 'pending', 'rejected']), activity: activityView }),
    ]),
  ),
  /**
   * The exports the active profile asked for from this desktop that had to wait for votes, oldest first: what, what
   * it is sealed to, and whether it is approved (then `exports.reveal` opens it). Ended ones are dropped.
   */
  'exports.requests': channel(
    noInput,
    z.array(
      z.strictObject({
        activityId: z.string(),
        what: z.string(),
        sealedTo: z.discriminatedUnion('kind', [
          z.strictObject({ kind: z.literal('one-time') }),
          z.strictObject({ kind: z.literal('encryption-key'), name: z.string() }),
        ]),
        requestedAtMs: epochMs,
        approved: z.boolean(),
      }),
    ),
  ),
  /**
   * Withdraws an export the active profile asked for from this desktop that still waits for votes. Main decides how:
   * when this desktop's user may still vote on it, it rejects the export (a stamp, confirmed on main's surface like
   * every vote); otherwise it asks the person on main's surface too, and the activity stays open on the service. Either
   * way the request is dropped and its held one-time key deleted, so a bundle it yields can never be opened here.
   * `rejected` says which it was; `summary` is main's words for what happened.
   */
  'exports.withdraw': channel(
    z.strictObject({ activityId: id }),
    z.strictObject({ activityId: z.string(), rejected: z.boolean(), summary: z.string() }),
  ),
  /**
   * PLAINTEXT OUTPUT. Offline: verifies `bundle` was signed by `signerPublicKey` (default: the active profile's pinned
   * enclave signer) for `organizationId`, opens it with the stored encryption key, and decodes it: as a mnemonic, or
   * as a private key in `keyFormat` when given.
   */
  'exports.decryptBundle': channel(
    z.strictObject({
      bundle: exportBundle,
      encryptionKeyName: keyName,
      organizationId: z.string().min(1).max(64),
      signerPublicKey: publicKeyHex.optional(),
      keyFormat: privateKeyFormat.optional(),
    }),
    revealedSecret,
  ),

  /**
   * Writes a completed export's signed bundle, with the organization, target key and kind the offline Decrypt screen
   * preselects from, to `file` in the exports directory kept by main (never overwriting). Nothing secret: the bundle
   * stays sealed to its target key.
   */
  'exports.saveBundle': channel(
    z.strictObject({ activityId: id, file: stampedFileName }),
    z.strictObject({ file: z.string(), exportsDir: z.string() }),
  ),

  /** The mnemonic is encrypted in main to the enclave's one-time import key; only ciphertext reaches the service. */
  'imports.wallet': channel(
    z.strictObject({
      name: walletName,
      mnemonic: z.string().min(1).max(1024),
      passphrase: z.string().max(1024).optional(),
      accounts: walletAccountParamsList,
    }),
    importOutcome(z.strictObject({ walletId: z.string(), addresses: z.array(z.string()) })),
  ),
  'imports.privateKey': channel(
    z.strictObject({ name: privateKeyName, privateKey: privateKeyHex, format: privateKeyFormat, curve, addressFormats }),
    importOutcome(z.strictObject({ privateKeyId: z.string(), addresses: z.array(addressView) })),
  ),

  'journal.list': channel(journalChannels.list.input, journalChannels.list.output),
  'journal.verify': channel(journalChannels.verify.input, journalChannels.verify.output),
  'journal.export': channel(journalChannels.export.input, journalChannels.export.output),
  'journal.checkpoint': channel(journalChannels.checkpoint.input, journalChannels.checkpoint.output),
} as const;

export type IpcContract = typeof ipcContract;
export type Channel = keyof IpcContract;
export const channels = Object.keys(ipcContract) as Channel[];

/** Channels that take no input: their bridge methods take no argument. */
export type NoInputChannel = {
  [C in Channel]: [IpcContract[C]['input']] extends [typeof noInput] ? ([typeof noInput] extends [IpcContract[C]['input']] ? C : never) : never;
}[Channel];

/** What the renderer passes (before defaults are applied). */
export type ChannelInput<C extends Channel> = z.input<IpcContract[C]['input']>;
/** What a main handler receives (validated, defaults applied). */
export type HandlerInput<C extends Channel> = z.output<IpcContract[C]['input']>;
/** What the renderer receives. */
export type ChannelOutput<C extends Channel> = z.output<IpcContract[C]['output']>;

export type IpcResult<T = unknown> = { ok: true; value: T } | { ok: false; error: ErrorData };

export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && Object.hasOwn(ipcContract, value);
}

/** `'keys.listApiKeys'` → `['keys', 'listApiKeys']`: the bridge's namespace and method name. */
export function splitChannel(name: Channel): [string, string] {
  const dot = name.indexOf('.');
  return [name.slice(0, dot), name.slice(dot + 1)];
}

/**
 * Describes zod issues with their field paths, e.g. `name: Too big: expected string to have <=64 characters`.
 * Clipped, because issues can quote the input (an unknown key may be a megabyte long).
 */
export function describeIssues(error: z.ZodError): string {
  const described = error.issues.slice(0, MAX_ISSUES_DESCRIBED).map((issue) => {
    const path = issuePath(issue).join('.');
    const message = clip(issue.message, 200);
    return path === '' ? message : `${path}: ${message}`;
  });
  const more = error.issues.length - described.length;
  return more > 0 ? `${described.join('; ')}; and ${more} more` : described.join('; ');
}

/** An issue's field path with each segment clipped, safe to return to the renderer. */
export function issuePath(issue: z.core.$ZodIssue): string[] {
  return issue.path.slice(0, 16).map((segment) => clip(String(segment), 64));
}

const MAX_ISSUES_DESCRIBED = 10;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
