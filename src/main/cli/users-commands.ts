/**
 * `users credentials` and `users move-to-token`: Users → a user's credentials, and the guided move to a hardware key,
 * from a terminal. Both run main's own handlers (users.ipc.ts, profiles.ipc.ts) behind main's stamp check, so the
 * reading, the lock-out guard and its refusal are the app's own. Each activity is restated on stderr before it is
 * stamped; removing a credential needs "yes" typed, as main's confirmation asks for it in the app.
 */
import type { User } from '../../shared/api';
import { QkError, toQkError } from '../../shared/errors';
import { describeIssues, ipcContract, type Channel, type ChannelOutput, type HandlerInput } from '../../shared/ipc/contract';
import { quotedText, visibleText } from '../../shared/visible-text';
import type { Confirm } from '../confirmation/confirmation';
import type { IpcHandlers } from '../ipc/register';
import { validateTokenKeyRef, type TokenKey } from '../pkcs11/token-key';
import { profilesHandlers } from '../profiles/profiles.ipc';
import type { Profile } from '../profiles/profiles';
import { confirmingStampCheckFor, type MainServices } from '../services';
import { sameKey } from '../users/credentials';
import { usersHandlers } from '../users/users.ipc';
import { print } from './output';
import { confirmOnTerminal, tokenKeyOf, type SetupArguments } from './setup-commands';
import { UsageError } from './usage-error';

type CredentialsReading = ChannelOutput<'users.credentials'>;
type Credential = CredentialsReading['credentials'][number];
type Handlers = Pick<IpcHandlers, 'users.credentials' | 'users.addApiKey' | 'users.removeApiKeys' | 'profiles.useTokenKey'>;

/** What the users commands need of the CLI: main's services and the profile the command acts for. */
export interface UsersCommandContext {
  services: MainServices;
  /** `--profile` or the active one; the Sandbox's service is started for it. */
  profile: () => Promise<Profile>;
}

export interface UsersArguments extends SetupArguments {
  /** The API key `move-to-token` replaces, by id or name; the one keychain key a profile here signs with by default. */
  remove?: string | undefined;
  json?: boolean | undefined;
}

/** Whatever reaches a handler is checked against the IPC contract first, as the window's requests are. */
function inputOf<C extends Channel>(channel: C, input: unknown): HandlerInput<C> {
  const parsed = ipcContract[channel].input.safeParse(input);
  if (!parsed.success) throw new QkError('REQUEST_INVALID', `invalid input for ${channel}: ${describeIssues(parsed.error)}`);
  return parsed.data as HandlerInput<C>;
}

/**
 * The terminal as main's confirmation surface: every request is restated on stderr; a removal of credentials waits
 * for "yes". A profile's switch to the token key is restated without a question: the command line named that key, and
 * the service already holds it as this user's, so no stamp goes anywhere new.
 */
const restateOnTerminal: Confirm = async (request) => {
  if (request.reading?.activityType === 'ACTIVITY_TYPE_DELETE_API_KEYS') return confirmOnTerminal(request);
  process.stderr.write(`${request.title}\n${request.message}\n\n${request.detail}\n\n`);
  return true;
};

/** Main's users and profiles handlers, acting for the CLI's profile, each stamp checked and restated first. */
function handlersFor({ services, profile }: UsersCommandContext): Handlers {
  const { keychain, profiles, journal, now } = services;
  const checked = services.active.withStampCheck(confirmingStampCheckFor(services, restateOnTerminal));
  const active = { services: async () => checked.servicesFor(await profile()) };
  // The module is the one the person named on the command line, as `profiles add --pkcs11-module` takes it.
  const tokenKeys = { find: (key: HandlerInput<'profiles.useTokenKey'>['key']) => services.pkcs11.findKey(validateTokenKeyRef(key, 'key')) };
  return {
    ...usersHandlers({ active, now, keychain, profiles, tokenKeys, pendingPasskeys: services.pendingPasskeys }),
    ...profilesHandlers({ profiles, confirm: restateOnTerminal, journal, tokenKeys }),
  };
}

/** `users credentials USER [--json]` and `users move-to-token USER --pkcs11-… [--remove KEY]`; prints what they answer. */
export async function usersCommand(context: UsersCommandContext, subcommand: string | undefined, args: UsersArguments): Promise<void> {
  if (subcommand !== 'credentials' && subcommand !== 'move-to-token') throw new UsageError(`unknown command: users ${subcommand ?? ''}`.trim());
  const [selector] = args.operands;
  if (selector === undefined || selector === '') throw new UsageError('USER is required (a user id or name)');
  const handlers = handlersFor(context);
  const user = await userOf(context, selector);
  if (subcommand === 'credentials') {
    const reading = await handlers['users.credentials'](inputOf('users.credentials', { userId: user.userId }));
    if (args.json === true) return print(reading);
    process.stdout.write(credentialsText(reading));
    return;
  }
  print(await moveToToken(context, handlers, user, await tokenKeyOf(context.services, args), args.remove));
}

/** The organization's user with id `selector`, or the one user so named. */
async function userOf(context: UsersCommandContext, selector: string): Promise<User> {
  const { client } = context.services.active.servicesFor(await context.profile());
  const { users } = await client.query('list_users', {});
  const byId = users.find((user) => user.userId === selector);
  if (byId !== undefined) return byId;
  const named = users.filter((user) => user.userName === selector);
  if (named.length === 1) return named[0]!;
  if (named.length === 0) throw new QkError('NOT_FOUND', `no user of this organization has the id or name ${quotedText(selector)}`);
  throw new QkError(
    'FAILED_PRECONDITION',
    `${named.length} users are named ${quotedText(selector)}; give the id of one: ${named.map((user) => user.userId).join(', ')}`,
  );
}

/** The reading as the app's list shows it: name, kind in words, the profiles it signs for, and what removing it does. */
export function credentialsText({ userId, userName, credentials }: CredentialsReading): string {
  const lines = [`Credentials of ${userName} (user ${userId}):`];
  if (credentials.length === 0) lines.push('  none: nothing can sign for this user.');
  for (const credential of credentials) {
    lines.push(
      `- ${credential.name}${credential.working ? '' : ' (expired)'}, id ${visibleText(credential.id)}`,
      `  kind: ${credential.kindInWords}`,
      `  signs for: ${credential.profiles.length === 0 ? 'no profile here' : credential.profiles.map(visibleText).join(', ')}`,
      `  if removed: ${credential.refusal === undefined ? `leaves ${credential.leaves}` : `refused: ${credential.refusal}`}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The API key the move replaces: `--remove` names it by id or name; without it, the one keychain key a profile of
 * this desktop signs with (what the app offers to move).
 */
function oldKeyOf(reading: CredentialsReading, remove: string | undefined): Credential {
  const apiKeys = reading.credentials.filter((credential) => credential.kind !== 'security-key' && credential.kind !== 'passkey');
  if (remove !== undefined) {
    const byId = apiKeys.find((credential) => credential.id === remove);
    if (byId !== undefined) return byId;
    const named = apiKeys.filter((credential) => credential.name === visibleText(remove));
    if (named.length === 1) return named[0]!;
    if (named.length === 0) throw new QkError('NOT_FOUND', `${reading.userName} has no API key with the id or name ${quotedText(remove)}`);
    throw new QkError(
      'FAILED_PRECONDITION',
      `${named.length} API keys of ${reading.userName} are named ${quotedText(remove)}; give --remove the id of one`,
    );
  }
  const movable = apiKeys.filter((credential) => credential.kind === 'keychain-key' && credential.profiles.length > 0);
  if (movable.length === 1) return movable[0]!;
  throw new UsageError(
    movable.length === 0
      ? `no keychain key of ${reading.userName} signs for a profile of this desktop; name the API key to replace with --remove`
      : `several keychain keys of ${reading.userName} sign for profiles here (${movable.map((credential) => credential.name).join(', ')}); name one with --remove`,
  );
}

/**
 * The move, one step after the other as the app's dialog takes them: the token key is added to the user as an API
 * key, this desktop's profiles of this organization that signed with the old key are switched to it, and the old key
 * is removed, which main's stamp check refuses when the lock-out guard would. A step that does not complete stops
 * the move there, with what was done and what is left.
 */
async function moveToToken(context: UsersCommandContext, handlers: Handlers, user: User, tokenKey: TokenKey, remove: string | undefined) {
  const reading = await handlers['users.credentials'](inputOf('users.credentials', { userId: user.userId }));
  const old = oldKeyOf(reading, remove);
  const oldPublicKey = user.apiKeys.find((key) => key.apiKeyId === old.id)?.credential.publicKey;
  if (oldPublicKey !== undefined && sameKey(oldPublicKey, tokenKey.publicKey)) {
    throw new UsageError(`API key ${quotedText(old.name)} is the token key itself: name the key it replaces with --remove`);
  }
  const keyRef = {
    module: tokenKey.module,
    tokenLabel: tokenKey.tokenLabel,
    keyLabel: tokenKey.keyLabel,
    ...(tokenKey.keyId === undefined ? {} : { keyId: tokenKey.keyId }),
  };

  const present = user.apiKeys.find((key) => sameKey(key.credential.publicKey, tokenKey.publicKey));
  let tokenApiKeyId = present?.apiKeyId;
  if (present !== undefined) {
    process.stderr.write(
      `Token key ${quotedText(tokenKey.keyLabel)} is already API key ${quotedText(present.apiKeyName)} of ${reading.userName}: not added again.\n\n`,
    );
  } else {
    const apiKeyName = `${tokenKey.keyLabel} on ${tokenKey.tokenLabel}`;
    const added = await handlers['users.addApiKey'](
      inputOf('users.addApiKey', { userId: user.userId, apiKey: { kind: 'token', apiKeyName, ...keyRef } }),
    );
    if (added.state !== 'completed') {
      // Until the service holds the token key, a profile switched to it could sign nothing, and the old key is all the user has.
      const stays = old.refusal === undefined ? 'until the token key is added' : `(QuorumKey refuses removing it now: ${old.refusal})`;
      throw new QkError(
        'FAILED_PRECONDITION',
        `adding the token key to ${reading.userName} is ${added.state} (activity ${added.activity.id}, fingerprint ${added.activity.fingerprint}); ` +
          `no profile was switched and API key ${quotedText(old.name)} stays ${stays}. Run this again once it completes.`,
        { activityId: added.activity.id },
      );
    }
    tokenApiKeyId = added.result.apiKeyIds[0];
  }

  const acting = await context.profile();
  const switching = (await context.services.profiles.list()).filter(
    // A profile of another organization with the same keychain key signs there as another user: it is left alone.
    (profile) => old.profiles.includes(profile.name) && profile.organizationId === acting.organizationId,
  );
  for (const profile of switching) await handlers['profiles.useTokenKey'](inputOf('profiles.useTokenKey', { id: profile.id, key: keyRef }));

  const removed = await handlers['users.removeApiKeys'](inputOf('users.removeApiKeys', { userId: user.userId, apiKeyIds: [old.id] })).catch(
    (error: unknown) => {
      const failure = toQkError(error);
      const switched =
        switching.length === 0
          ? 'no profile here signed with the old key'
          : `${switching.map((profile) => quotedText(profile.name)).join(', ')} now sign${switching.length === 1 ? 's' : ''} with it`;
      throw new QkError(
        failure.code,
        `${failure.message.replace(/\.?$/, '.')} The token key is an API key of ${reading.userName} and ${switched}; API key ${quotedText(old.name)} stays.`,
        failure.details,
      );
    },
  );
  const summary = {
    userId: user.userId,
    tokenKey: { apiKeyId: tokenApiKeyId, publicKey: tokenKey.publicKey, added: present === undefined },
    profilesSwitched: switching.map((profile) => profile.name),
    removed: { apiKeyId: old.id, name: old.name, state: removed.state },
  };
  if (removed.state !== 'completed') {
    process.stderr.write(`Removing API key ${quotedText(old.name)} is ${removed.state}: fingerprint ${removed.activity.fingerprint}.\n`);
  }
  return summary;
}
