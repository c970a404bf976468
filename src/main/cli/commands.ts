/**
 * Every command but `journal verify` and `clear-signing`, on the desktop app's services (the same composition root,
 * data dir and OS keychain as the app). The entry (index.ts) imports this module only once the command line is read
 * and names one.
 * Secrets go to files created with mode 0600, and to stdout only when asked with `-` as the output file.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { operations } from '../../shared/api';
import { QkError } from '../../shared/errors';
import { checkStampableRequest, stampedRequestText } from '../../shared/offline/stamped-request';
import { decryptBundleOffline, decryptedRecord, type RevealedSecret } from '../exports/exporter';
import { stampedRequestRecord } from '../journal/activity-entry';
import { encryptForImport } from '../imports/importer';
import type { ProfileServices } from '../profiles/active-profile';
import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY, type Profile } from '../profiles/profiles';
import { createMainServices, type MainServices } from '../services';
import { describeOffline, signingFor } from '../signing/signing';
import { knowsSigner, withSigningParameters, type SigningRequest } from '../signing/signing-request';
import { postStampedFile, stampToFile } from '../stamper/stamped-file';
import { FILE_LIMITS, readBoundedText, writeNewFile } from '../storage/bounded-file';
import { accountsFor } from '../../shared/wallets/account-presets';
import { exactlyOne, positional, required, type CommandLine, type Values } from './arguments';
import type { CommandName } from './command-names';
import {
  activitiesListRequest,
  apiKeyCurveOf,
  chainPresetsOf,
  importFormatOf,
  journalRangeOf,
  revealFormatOf,
  signingChoicesOf,
} from './flag-checks';
import { print, printUnlessEmpty } from './output';
import { askPinOnTerminal } from './pin-prompt';
import { confirmOnTerminal, profilesCommand, sandboxCommand, tokenOf, type SetupArguments } from './setup-commands';
import { UsageError } from './usage-error';
import { usersCommand } from './users-commands';
import { lintCommand } from './lint-command';
import { rehearseCommand } from './rehearse-command';
import { simulateCommand } from './simulate-command';
import { signingCardText, simulationText } from './signing-text';

/** The platform's app data dir for "QuorumKey", as Electron's app.getPath('userData') resolves it. */
export function defaultDataDir(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'QuorumKey');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'QuorumKey');
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'QuorumKey');
}

/** Writes a secret: `-` is stdout (asked for explicitly), anything else a new file with mode 0600. */
async function writeSecret(path: string, text: string): Promise<void> {
  if (path === '-') {
    process.stdout.write(text);
    return;
  }
  await writeNewFile(path, text, { mode: 0o600 });
}

function secretText(secret: RevealedSecret): string {
  if (secret.kind === 'private-key') return `${secret.privateKey}\n`;
  return secret.passphrase === undefined ? `${secret.mnemonic}\n` : `${secret.mnemonic}\n${secret.passphrase}\n`;
}

/** The app's own services (built by the same composition root), acting for the profile the command names. */
class Context {
  readonly services: MainServices;

  constructor(
    readonly dataDir: string,
    private readonly profileSelector: string | undefined,
  ) {
    // The CLI's stderr is for its own refusals: the sandbox's request log would bury them.
    this.services = createMainServices({ dataDir, sandboxLog: () => undefined, askPkcs11Pin: askPinOnTerminal });
  }

  /** The chosen (or active) profile; the sandbox profile's service is started for the command's duration. */
  async profile(): Promise<Profile> {
    const { profiles, sandbox } = this.services;
    const selector = this.profileSelector;
    const profile =
      selector === undefined
        ? await profiles.getActive()
        : (await profiles.list()).find((candidate) => candidate.id === selector || candidate.name === selector);
    if (profile === undefined) {
      throw new QkError(
        'PROFILE_NOT_FOUND',
        selector === undefined
          ? `no active profile in ${this.dataDir}; run "sandbox init", add one with "profiles add", pass --profile NAME, or choose one in the app`
          : `no profile named or with id ${JSON.stringify(selector)} in ${this.dataDir}`,
      );
    }
    if (profile.kind !== 'sandbox') return profile;
    return (await sandbox.start()).profile;
  }

  /** The services acting for the chosen profile. */
  async profileServices(): Promise<ProfileServices> {
    return this.services.active.servicesFor(await this.profile());
  }

  close(): Promise<void> {
    return this.services.close();
  }
}

/** The commands the entry runs without the app's services. */
type ServicelessCommand = 'clear-signing test' | 'clear-signing refresh' | 'journal verify';

/** Runs the command `name` (as checkCommandName read it), acting for `--profile` (or the active profile) in `--data-dir`. */
export async function runCommand(name: Exclude<CommandName, ServicelessCommand>, { values, positionals }: CommandLine): Promise<void> {
  const context = new Context(values['data-dir'] ?? defaultDataDir(), values.profile);
  try {
    await dispatch(context, name, values, positionals);
  } finally {
    await context.close();
  }
}

// A case for every name of the list (command-names.ts) but those the entry runs itself: the compiler refuses one
// missing (`unhandled` is then not `never`) and one the list does not have.
async function dispatch(context: Context, name: Exclude<CommandName, ServicelessCommand>, values: Values, positionals: string[]): Promise<void> {
  const [, sub] = positionals;
  const { keychain, stamper, journal } = context.services;
  const setup: SetupArguments = {
    operands: positionals.slice(2),
    name: values.name,
    baseUrl: values['base-url'],
    organization: values.organization,
    apiKey: values['api-key'],
    signerPublicKey: values['signer-public-key'],
    pkcs11Module: values['pkcs11-module'],
    pkcs11Token: values['pkcs11-token'],
    pkcs11Key: values['pkcs11-key'],
    pkcs11KeyId: values['pkcs11-key-id'],
  };
  switch (name) {
    case 'profiles list':
    case 'profiles add':
    case 'profiles edit':
    case 'profiles use':
    case 'profiles remove':
      return printUnlessEmpty(await profilesCommand(context.services, sub, setup, confirmOnTerminal));
    case 'sandbox init':
    case 'sandbox status':
    case 'sandbox reset':
      return printUnlessEmpty(await sandboxCommand(context.services, sub));
    case 'users credentials':
    case 'users move-to-token': {
      const acting = { services: context.services, profile: () => context.profile() };
      return usersCommand(acting, sub, { ...setup, remove: values.remove, json: values.json });
    }
    case 'policies rehearse': {
      const client = async () => (await context.profileServices()).client;
      process.stdout.write(await rehearseCommand(client, { draft: values.draft, last: values.last, since: values.since, json: values.json }));
      return;
    }
    case 'policies lint': {
      const client = async () => (await context.profileServices()).client;
      const { text, errors } = await lintCommand(client, { draft: values.draft, json: values.json });
      process.stdout.write(text);
      if (errors > 0) process.exitCode = 1;
      return;
    }
    case 'keys generate': {
      if (values.pkcs11) {
        const token = tokenOf(setup);
        return print(await context.services.pkcs11.generateKey({ ...token, keyLabel: positional(positionals, 2, 'NAME') }));
      }
      return print(await keychain.generateApiKey({ name: positional(positionals, 2, 'NAME'), curve: apiKeyCurveOf(values) }));
    }
    case 'keys list':
      return print(values.pkcs11 ? await context.services.pkcs11.listKeys(tokenOf(setup)) : await keychain.listApiKeys());
    case 'keys delete':
      return keychain.deleteApiKey(positional(positionals, 2, 'NAME'));
    case 'encryption-keys generate':
      return print(await keychain.generateEncryptionKey({ name: positional(positionals, 2, 'NAME') }));
    case 'encryption-keys list':
      return print(await keychain.listEncryptionKeys());
    case 'encryption-keys delete':
      return keychain.deleteEncryptionKey(positional(positionals, 2, 'NAME'));
    case 'request': {
      const path = required(values, 'path');
      const bodyArgument = required(values, 'body');
      const body = bodyArgument.startsWith('@') ? (await readBoundedText(bodyArgument.slice(1), FILE_LIMITS.requestBody)).trim() : bodyArgument;
      if (values['no-post']) {
        const profile = await context.profile();
        if (values.output !== undefined) {
          const stamped = await stampToFile({ stamper, credential: profile, path, body, file: values.output });
          await journal.record(stampedRequestRecord(profile, stamped, values.output));
          return print({ output: values.output });
        }
        checkStampableRequest({ path, body });
        const stamp = await stamper.stamp(profile, body);
        await journal.record(stampedRequestRecord(profile, { path, body, stamp }, undefined));
        process.stdout.write(stampedRequestText({ path, body, stamp }));
        return;
      }
      const { client } = await context.profileServices();
      return print(await client.postRaw(path, body));
    }
    case 'simulate': {
      const { client } = await context.profileServices();
      const activityId = positional(positionals, 1, 'ACTIVITY_ID');
      const args = { activityId, stateBundle: values['state-bundle'], saveStateBundle: values['save-state-bundle'] };
      process.stdout.write(await simulateCommand(context.services, client, args));
      return;
    }
    case 'post-stamped': {
      const file = positional(positionals, 1, 'FILE');
      const { client } = await context.profileServices();
      return print((await postStampedFile(client, file)).answer);
    }
    case 'activities list': {
      const request = activitiesListRequest(values);
      const { client } = await context.profileServices();
      return print((await client.query('list_activities', request)).activities);
    }
    case 'activities approve':
    case 'activities reject': {
      const { approvals } = await context.profileServices();
      const fingerprint = positional(positionals, 2, 'FINGERPRINT');
      return print(name === 'activities approve' ? await approvals.approve(fingerprint) : await approvals.reject(fingerprint));
    }
    case 'wallets list': {
      const { client } = await context.profileServices();
      return print((await client.query('list_wallets', {})).wallets);
    }
    case 'wallets create': {
      const name = positional(positionals, 2, 'NAME');
      const accounts = chainPresetsOf(values).flatMap((preset) => accountsFor(preset, 0, 1));
      const { client } = await context.profileServices();
      const outcome = await client.submit('create_wallet', { walletName: name, accounts });
      return print(
        outcome.state === 'completed'
          ? { state: outcome.state, ...outcome.result }
          : { state: outcome.state, activityId: outcome.activity.id, fingerprint: outcome.activity.fingerprint },
      );
    }
    case 'sign transaction':
    case 'sign payload':
      return sign(context, values, await signingRequestOf(name === 'sign transaction' ? 'transaction' : 'payload', values));
    case 'wallets export': {
      exactlyOne(values, 'encryption-key', 'target-public-key');
      const selector = required(values, 'wallet');
      const output = required(values, 'output');
      const { client, exporter } = await context.profileServices();
      const { wallets } = await client.query('list_wallets', {});
      const wallet = wallets.find((candidate) => candidate.walletId === selector) ?? wallets.find((candidate) => candidate.walletName === selector);
      if (wallet === undefined) {
        throw new QkError('NOT_FOUND', `no wallet with id or name ${JSON.stringify(selector)}; run "wallets list"`);
      }
      const targetPublicKey =
        values['target-public-key'] ?? (await keychain.listEncryptionKeys()).find((key) => key.name === values['encryption-key'])?.publicKey;
      if (targetPublicKey === undefined) {
        throw new QkError('KEY_NOT_FOUND', `no encryption key named ${JSON.stringify(values['encryption-key'])}; run "encryption-keys list"`);
      }
      const outcome = await exporter.exportTo({ kind: 'wallet', walletId: wallet.walletId }, targetPublicKey);
      if (outcome.state !== 'completed') {
        throw new QkError('FAILED_PRECONDITION', `the export is ${outcome.activity.status}; fingerprint ${outcome.activity.fingerprint}`, {
          activityId: outcome.activity.id,
        });
      }
      await writeNewFile(output, `${outcome.result.exportBundle}\n`);
      return print({ walletId: wallet.walletId, activityId: outcome.activity.id, output });
    }
    case 'decrypt': {
      exactlyOne(values, 'encryption-key', 'encryption-key-file');
      const bundlePath = required(values, 'bundle');
      const organizationId = required(values, 'organization');
      const format = revealFormatOf(values);
      const output = values['plaintext-output'];
      if (output === undefined) throw new UsageError('--plaintext-output FILE is required (use - to print the secret to stdout)');
      const encryptionKey = values['encryption-key'];
      const secret = await decryptBundleOffline({
        bundle: await readBoundedText(bundlePath, FILE_LIMITS.exportBundle),
        key:
          encryptionKey !== undefined
            ? { kind: 'encryption-key', name: encryptionKey }
            : { kind: 'file', path: required(values, 'encryption-key-file') },
        keychain,
        expected: { organizationId, signerPublicKey: values['signer-public-key'] ?? PRODUCTION_SIGNER_SIGN_PUBLIC_KEY },
        format,
      });
      await journal.record(
        decryptedRecord({
          kind: secret.kind,
          organizationId,
          encryptionKey: encryptionKey ?? required(values, 'encryption-key-file'),
          signer: values['signer-public-key'] ?? PRODUCTION_SIGNER_SIGN_PUBLIC_KEY,
        }),
      );
      return writeSecret(output, secretText(secret));
    }
    case 'encrypt': {
      const format = importFormatOf(values);
      const output = required(values, 'output');
      const organizationId = required(values, 'organization');
      const userId = required(values, 'user');
      const importBundle = await readBoundedText(required(values, 'import-bundle'), FILE_LIMITS.importBundle);
      const plaintext = await readBoundedText(required(values, 'plaintext-input'), FILE_LIMITS.plaintext);
      const encryptedBundle = await encryptForImport(
        {
          importBundle,
          organizationId,
          userId,
          signerPublicKey: values['signer-public-key'] ?? PRODUCTION_SIGNER_SIGN_PUBLIC_KEY,
        },
        { format, text: plaintext },
      );
      await writeNewFile(output, `${encryptedBundle}\n`);
      return;
    }
    case 'journal export': {
      const output = required(values, 'output');
      return print(await context.services.journal.writeExport(journalRangeOf(values), output));
    }
    case 'journal checkpoint': {
      const output = required(values, 'output');
      const { count, head } = await context.services.journal.writeCheckpoint(output);
      return print({ output, count, head });
    }
    default: {
      const unhandled: never = name;
      throw new UsageError(`unknown command: ${String(unhandled)}`);
    }
  }
}

/** `@FILE` reads the file (trimmed; a transaction or payload is part of a request body, so it is bounded like one); anything else is the value itself. */
async function textOrFile(value: string): Promise<string> {
  return value.startsWith('@') ? (await readBoundedText(value.slice(1), FILE_LIMITS.requestBody)).trim() : value;
}

async function signingRequestOf(sub: 'transaction' | 'payload', values: Values): Promise<SigningRequest> {
  const choices = signingChoicesOf(sub, values);
  if (choices.operation === 'sign_transaction') {
    const { unsigned, ...request } = choices;
    return { ...request, unsignedTransaction: (await textOrFile(unsigned)).replace(/^0x/i, '') };
  }
  return { ...choices, payload: await textOrFile(choices.payload) };
}

/**
 * Prints what the request signs and what it would do, then submits it; `--preview` stops before submitting, and
 * `--no-post` stamps it into an offline request instead (not simulated: such a machine has no node to ask).
 */
async function sign(context: Context, values: Values, request: SigningRequest): Promise<void> {
  const { stamper, settings, tokens, addressBook, simulations, now, journal } = context.services;
  if (values['no-post']) {
    const profile = await context.profile();
    const description = describeOffline(request, await settings.get(), await tokens.list(), await addressBook.list(profile.organizationId));
    // The envelope is built and checked locally: stamping needs no network at all.
    const { client } = context.services.active.servicesFor(profile);
    const body = withSigningParameters(request, (operation, parameters) => client.envelope(operation, parameters));
    const path = operations[request.operation].path;
    if (values.output !== undefined) {
      process.stdout.write(signingCardText(description, undefined));
      const stamped = await stampToFile({ stamper, credential: profile, path, body, file: values.output });
      await journal.record(stampedRequestRecord(profile, stamped, values.output));
      return print({ output: values.output });
    }
    process.stderr.write(signingCardText(description, undefined));
    const stamp = await stamper.stamp(profile, body);
    await journal.record(stampedRequestRecord(profile, { path, body, stamp }, undefined));
    process.stdout.write(stampedRequestText({ path, body, stamp }));
    return;
  }
  const services = await context.profileServices();
  const signing = signingFor(services, { settings, tokens, addressBook, now });
  const snapshot = await services.organization.snapshot((read) => knowsSigner(read, request.signWith));
  const [{ description, standing }, simulation] = await Promise.all([signing.explain(request, snapshot), simulations.forRequest(request, snapshot)]);
  process.stdout.write(signingCardText(description, standing) + simulationText(simulation));
  if (values.preview) return;
  const outcome = await signing.submit(request);
  return print(
    outcome.state === 'completed'
      ? { state: outcome.state, activityId: outcome.activity.id, result: outcome.result }
      : { state: outcome.state, activityId: outcome.activity.id, fingerprint: outcome.activity.fingerprint },
  );
}
