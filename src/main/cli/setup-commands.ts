/**
 * What a headless machine needs before any other command: its profiles and its Sandbox, managed without the app's
 * window. Profile changes that redirect stamped requests or change the trusted enclave signer are confirmed on the
 * terminal, with the same text the app's native dialog shows; a Sandbox reset asks for the same typed phrase.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { QkError } from '../../shared/errors';
import { SANDBOX_RESET_PHRASE } from '../../shared/ipc/contract';
import type { Confirm } from '../confirmation/confirmation';
import { profileRecord } from '../journal/local-entry';
import { confirmingCheck } from '../profiles/confirmation';
import type { Profile, ProfileChanges } from '../profiles/profiles';
import { SANDBOX_DB_FILE, SANDBOX_KEY_NAME } from '../sandbox/sandbox';
import { validateTokenKeyRef, type TokenKey } from '../pkcs11/token-key';
import type { PinRequest } from '../pkcs11/pkcs11-tokens';
import type { MainServices } from '../services';
import { UsageError } from './usage-error';

/** What the profile and sandbox commands read from the command line (flags already parsed). */
export interface SetupArguments {
  /** The words after the command and its subcommand. */
  operands: string[];
  name?: string | undefined;
  baseUrl?: string | undefined;
  organization?: string | undefined;
  apiKey?: string | undefined;
  signerPublicKey?: string | undefined;
  /** A token key instead of a keychain key: the PKCS#11 module, the token's label, the key's label and CKA_ID. */
  pkcs11Module?: string | undefined;
  pkcs11Token?: string | undefined;
  pkcs11Key?: string | undefined;
  pkcs11KeyId?: string | undefined;
}

/** The token `--pkcs11-module` and `--pkcs11-token` name. */
export function tokenOf(args: SetupArguments): PinRequest {
  return { module: flag(args.pkcs11Module, 'pkcs11-module'), tokenLabel: flag(args.pkcs11Token, 'pkcs11-token') };
}

/**
 * The token key the flags name, with its public key read from the token (which asks for the PIN): what a profile
 * pins. KEY_NOT_FOUND when the token holds no such key.
 */
export async function tokenKeyOf(services: MainServices, args: SetupArguments): Promise<TokenKey> {
  const ref = validateTokenKeyRef(
    { ...tokenOf(args), keyLabel: flag(args.pkcs11Key, 'pkcs11-key'), ...(args.pkcs11KeyId === undefined ? {} : { keyId: args.pkcs11KeyId }) },
    'token key',
  );
  return services.pkcs11.findKey(ref);
}

/** One line the person types on the terminal (or that a script pipes in); empty when stdin ends first. */
function readAnswer(prompt: string): Promise<string> {
  process.stderr.write(prompt);
  const lines = createInterface({ input: process.stdin, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    const answer = (line: string) => {
      if (answered) return;
      answered = true;
      lines.close();
      resolve(line.trim());
    };
    lines.once('line', answer);
    lines.once('close', () => answer(''));
  });
}

/** The app's confirmation, on the terminal: its title, question and details on stderr, then `yes` to go ahead. */
export const confirmOnTerminal: Confirm = async ({ title, message, detail }) => {
  process.stderr.write(`${title}\n${message}\n\n${detail}\n\n`);
  return (await readAnswer('Type yes to continue: ')).toLowerCase() === 'yes';
};

function findProfile(profiles: readonly Profile[], selector: string): Profile {
  const found = profiles.find((profile) => profile.id === selector || profile.name === selector);
  if (found === undefined) throw new QkError('PROFILE_NOT_FOUND', `no profile named or with id ${JSON.stringify(selector)}`);
  return found;
}

function operand(args: SetupArguments, what: string): string {
  const [value] = args.operands;
  if (value === undefined) throw new UsageError(`${what} is required`);
  return value;
}

function flag(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** `profiles list|add|edit|use|remove`; answers what to print. Each change is journaled, as the app's are. */
export async function profilesCommand(
  services: MainServices,
  subcommand: string | undefined,
  args: SetupArguments,
  confirm: Confirm,
): Promise<unknown> {
  const { profiles, journal } = services;
  const check = confirmingCheck(confirm);
  switch (subcommand) {
    case 'list': {
      const active = await profiles.getActive();
      return (await profiles.list()).map((profile) => ({ ...profile, active: profile.id === active?.id }));
    }
    case 'add': {
      const tokenKey = args.pkcs11Module === undefined ? undefined : await tokenKeyOf(services, args);
      const added = await profiles.add(
        {
          name: flag(args.name, 'name'),
          kind: 'hosted',
          baseUrl: flag(args.baseUrl, 'base-url'),
          organizationId: flag(args.organization, 'organization'),
          // A token key goes by its label on the screens unless --api-key names it.
          apiKeyName: tokenKey === undefined ? flag(args.apiKey, 'api-key') : (args.apiKey ?? tokenKey.keyLabel),
          ...(tokenKey === undefined ? {} : { tokenKey }),
          ...(args.signerPublicKey === undefined ? {} : { enclaveSignerPublicKey: args.signerPublicKey }),
        },
        check,
      );
      await journal.record(profileRecord('profile.added', added));
      return added;
    }
    case 'edit': {
      const profile = findProfile(await profiles.list(), operand(args, 'PROFILE'));
      const changes: ProfileChanges = {
        ...(args.name === undefined ? {} : { name: args.name }),
        ...(args.baseUrl === undefined ? {} : { baseUrl: args.baseUrl }),
        ...(args.organization === undefined ? {} : { organizationId: args.organization }),
        ...(args.apiKey === undefined ? {} : { apiKeyName: args.apiKey }),
        ...(args.signerPublicKey === undefined ? {} : { enclaveSignerPublicKey: args.signerPublicKey }),
      };
      if (Object.keys(changes).length === 0)
        throw new UsageError('give at least one of --name, --base-url, --organization, --api-key, --signer-public-key');
      const updated = await profiles.update(profile.id, changes, check);
      await journal.record(profileRecord('profile.updated', updated, Object.keys(changes)));
      return updated;
    }
    case 'use': {
      const profile = findProfile(await profiles.list(), operand(args, 'PROFILE'));
      await profiles.setActive(profile.id);
      await journal.record(profileRecord('profile.activated', profile));
      return { ...profile, active: true };
    }
    case 'remove': {
      const profile = findProfile(await profiles.list(), operand(args, 'PROFILE'));
      await profiles.remove(profile.id);
      await journal.record(profileRecord('profile.removed', profile));
      return undefined;
    }
    default:
      throw new UsageError(`unknown command: profiles ${subcommand ?? ''}`.trim());
  }
}

/**
 * `sandbox init|status|reset`. `init` does what the app's first run does: the Sandbox's key in the OS keychain, its
 * database and its profile (the active one if none is). The Sandbox runs only while a command needs it.
 */
export async function sandboxCommand(services: MainServices, subcommand: string | undefined): Promise<unknown> {
  const { sandbox, profiles, keychain, dataDir } = services;
  const summary = (running: { info: { baseUrl: string; organizationId: string; rootUserId: string }; profile: Profile }) => ({
    profileId: running.profile.id,
    organizationId: running.info.organizationId,
    rootUserId: running.info.rootUserId,
    baseUrl: running.info.baseUrl,
    database: join(dataDir, SANDBOX_DB_FILE),
  });
  switch (subcommand) {
    case 'init':
      return summary(await sandbox.start());
    case 'status': {
      const profile = await sandbox.storedProfile();
      const key = (await keychain.listApiKeys()).find((candidate) => candidate.name === SANDBOX_KEY_NAME);
      const database = join(dataDir, SANDBOX_DB_FILE);
      return {
        initialized: profile !== undefined && key !== undefined && existsSync(database),
        profileId: profile?.id ?? null,
        organizationId: profile?.organizationId ?? null,
        // Where it serves while a command runs it; the port stays the same from one command to the next.
        baseUrl: profile?.baseUrl ?? null,
        apiKey: key?.name ?? null,
        database: existsSync(database) ? database : null,
        active: profile !== undefined && (await profiles.getActive())?.id === profile.id,
      };
    }
    case 'reset': {
      process.stderr.write(
        'Everything in the Sandbox is deleted: its users, policies, wallets and private keys, and their history. It starts again with a new ' +
          'organization; its API key on this computer stays.\n',
      );
      const typed = await readAnswer(`Type "${SANDBOX_RESET_PHRASE}" to reset it: `);
      if (typed !== SANDBOX_RESET_PHRASE) throw new QkError('USER_DECLINED', 'the Sandbox was not reset: the confirmation phrase was not typed');
      return summary(await sandbox.reset());
    }
    default:
      throw new UsageError(`unknown command: sandbox ${subcommand ?? ''}`.trim());
  }
}
