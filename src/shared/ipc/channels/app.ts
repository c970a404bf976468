/** The `app.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { channel, declaredTokenKey, noInput, nothing, tokenUnits, unlockPassphrase } from '../schemas';

/** The passphrase, or `touchId: true` to ask Touch ID on a Mac that offers it. */
const unlockCredentials = z.strictObject({ passphrase: unlockPassphrase.optional(), touchId: z.literal(true).optional() });

/** A large-transfer threshold as main holds it: an integer of the token's base units, at most a uint256's 78 digits. */
const tokenThreshold = z.strictObject({
  token: declaredTokenKey,
  baseUnits: z.string().regex(/^[1-9]\d{0,77}$/, { error: 'expected a positive integer of the token’s base units' }),
});

/** Thresholds as a person types them: in the token's units ("10000" USDC), converted by main with its decimals. */
const tokenWarnAboveInput = z.array(z.strictObject({ token: declaredTokenKey, amount: tokenUnits })).max(500);

export type TokenWarnAboveInput = z.infer<typeof tokenWarnAboveInput>;

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

export const appChannels = {
  info: channel(
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
  lock: channel(noInput, nothing),
  /** Unlocks; once a passphrase is set, only with it (or Touch ID). Wrong guesses are rate-limited. */
  unlock: channel(unlockCredentials, nothing),
  /** Renews the recent unlock that revealing a secret needs (answered REAUTH_REQUIRED otherwise). */
  reauthenticate: channel(unlockCredentials, nothing),
  /** Sets the unlock passphrase, or changes it given the current one. Only its salted scrypt hash is stored. */
  setUnlockPassphrase: channel(z.strictObject({ passphrase: unlockPassphrase, currentPassphrase: unlockPassphrase.optional() }), nothing),
  getSettings: channel(noInput, appSettingsSchema),
  /**
   * With an unlock passphrase set, a change that widens what the app shows or lets through (longer idle lock or
   * re-auth interval, capture protection off, a large-value warning raised or removed) needs `passphrase`.
   */
  setSettings: channel(
    appSettingsSchema.partial().extend({ tokenWarnAbove: tokenWarnAboveInput.optional(), passphrase: unlockPassphrase.optional() }),
    appSettingsSchema,
  ),
  /**
   * The renderer says when a revealed secret appears (`true`) and when it is hidden again (`false`); in between the
   * window is kept out of screen capture whatever the captureProtection setting says. Answers once that is in force,
   * with whether this OS honours it.
   */
  setSecretOnScreen: channel(z.strictObject({ onScreen: z.boolean() }), z.strictObject({ captureProtectionSupported: z.boolean() })),
} as const;
