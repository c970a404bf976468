/**
 * The IPC contract between the renderer and main (docs/architecture.md#the-ipc-contract): ONE table
 * `channel → {input, output}` of zod schemas, composed here from one table per namespace (`channels/<namespace>.ts`,
 * each with the schemas only it uses; `schemas.ts` holds those several share). Main registers one handler per entry
 * and validates both directions; the preload builds `window.quorumkey` from the same table, one named method per
 * channel.
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
import { type ErrorData } from '../errors';
import { noInput, type ChannelSchemas } from './schemas';
import { appChannels } from './channels/app';
import { clipboardChannels } from './channels/clipboard';
import { keysChannels } from './channels/keys';
import { profilesChannels } from './channels/profiles';
import { requestsChannels } from './channels/requests';
import { sandboxChannels } from './channels/sandbox';
import { activitiesChannels } from './channels/activities';
import { approvalsChannels } from './channels/approvals';
import { inboxChannels } from './channels/inbox';
import { organizationChannels } from './channels/organization';
import { usersChannels } from './channels/users';
import { passkeysChannels } from './channels/passkeys';
import { policiesChannels } from './channels/policies';
import { signingChannels } from './channels/signing';
import { simulationChannels } from './channels/simulation';
import { contractsChannels } from './channels/contracts';
import { tokensChannels } from './channels/tokens';
import { addressBookChannels } from './channels/address-book';
import { walletsChannels } from './channels/wallets';
import { privateKeysChannels } from './channels/private-keys';
import { exportsChannels } from './channels/exports';
import { importsChannels } from './channels/imports';
import { journalChannels } from './journal';

export { declaredTokenSchema, type DeclaredToken, declaredTokenKey, errorDataSchema } from './schemas';
export { type TokenWarnAboveInput, evmChainCaip2, THEMES, appSettingsSchema, type AppSettings, type InboxSettings } from './channels/app';
export { SANDBOX_RESET_PHRASE } from './channels/sandbox';
export { type InboxProfileView, type InboxItemView } from './channels/inbox';
export { type DeclaredTokenView, type TokenCatalogEntry } from './channels/tokens';
export { addressBookKey, type AddressBookKey, addressBookEntry, type AddressBookEntry } from './channels/address-book';

/** A namespace's table with its channels named `namespace.method`, as the bridge splits them again. */
type Namespaced<N extends string, T> = { [K in keyof T & string as `${N}.${K}`]: T[K] };
function namespaced<N extends string, T extends Record<string, ChannelSchemas>>(namespace: N, table: T): Namespaced<N, T> {
  return Object.fromEntries(Object.entries(table).map(([method, schemas]) => [`${namespace}.${method}`, schemas])) as Namespaced<N, T>;
}

export const ipcContract = {
  ...namespaced('app', appChannels),
  ...namespaced('clipboard', clipboardChannels),
  ...namespaced('keys', keysChannels),
  ...namespaced('profiles', profilesChannels),
  ...namespaced('requests', requestsChannels),
  ...namespaced('sandbox', sandboxChannels),
  ...namespaced('activities', activitiesChannels),
  ...namespaced('approvals', approvalsChannels),
  ...namespaced('inbox', inboxChannels),
  ...namespaced('organization', organizationChannels),
  ...namespaced('users', usersChannels),
  ...namespaced('passkeys', passkeysChannels),
  ...namespaced('policies', policiesChannels),
  ...namespaced('signing', signingChannels),
  ...namespaced('simulation', simulationChannels),
  ...namespaced('contracts', contractsChannels),
  ...namespaced('tokens', tokensChannels),
  ...namespaced('addressBook', addressBookChannels),
  ...namespaced('wallets', walletsChannels),
  ...namespaced('privateKeys', privateKeysChannels),
  ...namespaced('exports', exportsChannels),
  ...namespaced('imports', importsChannels),
  ...namespaced('journal', journalChannels),
};

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
