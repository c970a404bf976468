/**
 * The IPC contract between the renderer and main (design.md "src/shared/ipc"): ONE table
 * `channel → {input, output}` of zod schemas. Main registers one handler per entry and validates both directions;
 * the preload builds `window.quorumkey` from the same table, one named method per channel.
 *
 * Every schema is strict (unknown keys are refused) and every string is bounded, so a renderer bug or a hostile
 * page cannot smuggle fields into a service call. Outputs have no field that could carry a private key: a handler
 * that returned one would fail output validation instead of leaking it.
 */
import { z } from 'zod';
import { errorCodes, type ErrorCode, type ErrorData } from '../errors';

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
const profile = z.strictObject({ id: profileId, ...profileFields, enclaveSignerPublicKey: publicKeyHex });
/** Hosted profiles default the enclave signer key to the production one, so it is optional when adding. */
const profileInput = z.strictObject({ ...profileFields, enclaveSignerPublicKey: publicKeyHex.optional() });

export const THEMES = ['system', 'light', 'dark'] as const;
export const appSettingsSchema = z.strictObject({
  /** Minutes without any input before the app locks itself. */
  idleLockMinutes: z.number().int().min(1).max(1440),
  theme: z.enum(THEMES),
});
export type AppSettings = z.infer<typeof appSettingsSchema>;

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
    }),
  ),
  'app.lock': channel(noInput, nothing),
  'app.unlock': channel(noInput, nothing),
  'app.getSettings': channel(noInput, appSettingsSchema),
  'app.setSettings': channel(appSettingsSchema.partial(), appSettingsSchema),

  'keys.generateApiKey': channel(z.strictObject({ name: keyName, curve: apiKeyCurve.optional() }), apiKeyInfo),
  'keys.importApiKey': channel(
    z.strictObject({ name: keyName, curve: apiKeyCurve, privateKey: privateKeyHex, publicKey: publicKeyHex.optional() }),
    apiKeyInfo,
  ),
  'keys.importTkcliApiKey': channel(
    z.strictObject({ name: keyName, privateKeyFile: filePath, publicKeyFile: filePath.optional() }),
    apiKeyInfo,
  ),
  'keys.listApiKeys': channel(noInput, z.array(apiKeyInfo)),
  'keys.renameApiKey': channel(z.strictObject({ name: keyName, newName: keyName }), apiKeyInfo),
  'keys.deleteApiKey': channel(z.strictObject({ name: keyName }), nothing),
  'keys.generateEncryptionKey': channel(z.strictObject({ name: keyName }), encryptionKeyInfo),
  'keys.importEncryptionKey': channel(z.strictObject({ name: keyName, privateKey: privateKeyHex }), encryptionKeyInfo),
  'keys.listEncryptionKeys': channel(noInput, z.array(encryptionKeyInfo)),
  'keys.deleteEncryptionKey': channel(z.strictObject({ name: keyName }), nothing),

  'profiles.list': channel(noInput, z.array(profile)),
  'profiles.get': channel(z.strictObject({ id: profileId }), profile),
  'profiles.getActive': channel(noInput, profile.nullable()),
  'profiles.add': channel(profileInput, profile),
  'profiles.update': channel(z.strictObject({ id: profileId, changes: profileInput.partial() }), profile),
  'profiles.remove': channel(z.strictObject({ id: profileId }), nothing),
  /** `id: null` clears the choice. */
  'profiles.setActive': channel(z.strictObject({ id: profileId.nullable() }), nothing),
} as const;

export type IpcContract = typeof ipcContract;
export type Channel = keyof IpcContract;
export const channels = Object.keys(ipcContract) as Channel[];

/** Channels that take no input: their bridge methods take no argument. */
export type NoInputChannel = {
  [C in Channel]: [IpcContract[C]['input']] extends [typeof noInput]
    ? [typeof noInput] extends [IpcContract[C]['input']]
      ? C
      : never
    : never;
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
