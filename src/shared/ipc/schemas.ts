/**
 * The IPC contract's schemas that more than one namespace uses (docs/architecture.md#the-ipc-contract); each
 * namespace's own schemas live beside its channels in `channels/`.
 */
import { z } from 'zod';
import { type PrivateKeyFormat } from '../crypto/key-formats';
import { activityStatus, addressFormat, curve, pathFormat } from '../api/enums';
import { voterSchema } from '../approvals/voting';
import { policy as servicePolicy } from '../api/resources';
import { errorCodes, type ErrorCode, type ErrorData } from '../errors';

/** Key names: what people type and see. The keychain enforces the exact character set; this bounds the size. */
export const keyName = z.string().min(1).max(64);

export const apiKeyCurve = z.enum(['p256', 'secp256k1', 'ed25519']);

/** Private keys arrive as hex (64 characters, optionally 0x-prefixed); 256 leaves room for whitespace, not abuse. */
export const privateKeyHex = z.string().min(1).max(256);

export const publicKeyHex = z.string().min(1).max(256);

export const noInput = z.strictObject({});

/** The unlock passphrase as typed; its rules (length, spaces) are checked in main with a specific message. */
export const unlockPassphrase = z.string().min(1).max(1024);

export const nothing = z.null();

export const profileId = z.string().min(1).max(128);

/** PKCS#11: a module main offers (keys.pkcs11Modules), a token by its label, a key by its label and CKA_ID. */
export const pkcs11Module = z.string().min(1).max(4096);

export const pkcs11Label = z.string().min(1).max(32);

export const pkcs11KeyId = z.string().regex(/^(?:[0-9a-f]{2}){1,64}$/);

export const tokenRef = z.strictObject({ module: pkcs11Module, tokenLabel: pkcs11Label });

export const tokenKeyRef = tokenRef.extend({ keyLabel: pkcs11Label, keyId: pkcs11KeyId.optional() });

/**
 * A token an operator declared so its amounts read in its units (clear signing): an ERC-20 contract on one EVM chain,
 * or an SPL mint. Kept by the app, for every profile: a contract's symbol and decimals are facts of its chain, not of
 * an organization. Address formats are checked in main, with a message naming the chain.
 */
export const tokenSymbol = z
  .string()
  .regex(/^[\p{L}\p{N}.$_+-]{1,16}$/u, { error: 'a token symbol is 1 to 16 letters, digits or . $ _ + -, with no spaces' });

export const tokenDecimals = z
  .number()
  .int()
  .min(0, { error: 'decimals cannot be negative' })
  .max(77, { error: 'a uint256 amount has at most 77 decimals' });

export const tokenName = z.string().min(1).max(64);

export const chainId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const tokenAddress = z.string().min(1).max(128);

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
export const tokenUnits = z.string().regex(/^[\d,]{1,104}(\.\d{1,77})?$/, { error: 'expected an amount in the token’s units, like 10000 or 0.5' });

/** Service ids (UUIDs and the like). */
export const id = z.string().min(1).max(128);

/** Milliseconds since the epoch. */
export const epochMs = z.number().int().nonnegative();

export const activityType = z.string().regex(/^ACTIVITY_TYPE_[A-Z0-9_]{1,100}$/, { error: 'expected an ACTIVITY_TYPE_* value' });

// Spelled out rather than imported, so the preload bundle does not pull in the key-format codecs.
export const privateKeyFormat = z.enum(['hexadecimal', 'solana', 'wif-mainnet', 'wif-testnet'] as const satisfies readonly PrivateKeyFormat[]);

/** One activity: what it asks for (`intent`, e.g. `{createWalletIntent: {...}}`), where it stands, and its votes. */
export const activityView = z.strictObject({
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

/**
 * How a submitted activity stands: `completed` with its typed result, or waiting (`consensus-needed`: approve it by
 * `activity.fingerprint`), still `pending`, or voted down (`rejected`). A FAILED activity is an error instead.
 * `resentFromMs`: this retried a request first sent then without an answer, re-sending the same body, so `activity`
 * is the one that attempt created (never a second one).
 */
export function activityOutcome<R extends z.ZodType>(result: R) {
  const resentFromMs = epochMs.optional();
  return z.discriminatedUnion('state', [
    z.strictObject({ state: z.literal('completed'), result, activity: activityView, resentFromMs }),
    z.strictObject({ state: z.enum(['consensus-needed', 'pending', 'rejected']), activity: activityView, resentFromMs }),
  ]);
}

/** A policy as the service returns it, with its times in epoch ms. */
export const policyView = z.strictObject({
  ...servicePolicy.pick({ policyId: true, policyName: true, effect: true, condition: true, consensus: true, notes: true }).shape,
  /** Empty when the policy is always active. */
  time: z.string(),
  createdAtMs: epochMs,
  updatedAtMs: epochMs,
});

export const walletName = z.string().min(1).max(256);

export const walletAccountParams = z.strictObject({
  curve,
  pathFormat,
  /** BIP-32 path, e.g. m/44'/60'/0'/0/0. */
  path: z.string().min(1).max(256),
  addressFormat,
  name: z.string().max(256).optional(),
});

export const walletAccountParamsList = z.array(walletAccountParams).min(1).max(100);

export const walletView = z.strictObject({
  walletId: z.string(),
  walletName: z.string(),
  createdAtMs: epochMs,
  updatedAtMs: epochMs,
  exported: z.boolean(),
  imported: z.boolean(),
});

export const addressView = z.strictObject({ format: addressFormat, address: z.string() });

export const privateKeyName = z.string().min(1).max(256);

export const addressFormats = z.array(addressFormat).max(32);

/**
 * A stamped-request file's name. Such files live in one directory kept by main (`stampedRequestsDir` in the
 * answers), never at a path the renderer chooses: carry them between machines by copying that directory's files.
 */
export const stampedFileName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.json$/, { error: 'expected a file name like approval-1.json (letters, digits, . _ -), no folders' });

export const stampedFileInfo = z.strictObject({
  /** Absolute path of the file, for showing where it is. */
  file: z.string(),
  stampedRequestsDir: z.string(),
  path: z.string(),
  body: z.string(),
});

export const userIds = z.array(id).min(1).max(100);

export const errorCodeNames = Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]];

export const errorDataSchema: z.ZodType<ErrorData> = z.strictObject({
  code: z.enum(errorCodeNames),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export function channel<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output } as const;
}

/** What one channel declares: its input and output schemas. */
export interface ChannelSchemas {
  readonly input: z.ZodType;
  readonly output: z.ZodType;
}
