/**
 * The window's writes (docs/architecture.md#the-windows-writes): every call it makes on a click goes through one
 * TanStack Query mutation, and {@link STALE_AFTER_WRITE} says, in this one place, which reads each write makes
 * stale. Main's events (queries.ts) cover what changes without this window asking: votes of others, the Sandbox's
 * process, a decided activity.
 */
import { useMutation, useQueryClient, type MutationOptions, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { QkError } from '../../shared/errors';
import type { Channel, ChannelInput, ChannelOutput, NoInputChannel } from '../../shared/ipc/contract';
import { callChannel } from './api';

/**
 * The channels that change nothing: read through the query cache, or asked once on a click (a dry run, a preview,
 * a token's keys). Only these are ever made stale.
 */
export const READ_CHANNELS = [
  'app.info',
  'app.getSettings',
  'keys.listApiKeys',
  'keys.listEncryptionKeys',
  'keys.pkcs11Modules',
  'keys.listTokens',
  'keys.listTokenKeys',
  'profiles.list',
  'profiles.get',
  'profiles.getActive',
  'requests.pending',
  'sandbox.status',
  'activities.list',
  'activities.get',
  'approvals.whoami',
  'approvals.pending',
  'inbox.list',
  'passkeys.notices',
  'organization.lookup',
  'users.deletionCheck',
  'users.credentials',
  'policies.list',
  'policies.mfaList',
  'policies.get',
  'policies.review',
  'policies.read',
  'policies.lint',
  'policies.rehearse',
  'policies.dryRun',
  'signing.describe',
  'signing.preview',
  'signing.result',
  'simulation.forActivity',
  'simulation.forRequest',
  'simulation.fromStateBundle',
  'contracts.list',
  'contracts.check',
  'tokens.list',
  'tokens.catalog',
  'addressBook.list',
  'wallets.list',
  'wallets.accounts',
  'privateKeys.list',
  'exports.requests',
  'exports.decryptBundle',
  'journal.list',
  'journal.verify',
] as const satisfies readonly Channel[];

export type ReadChannel = (typeof READ_CHANNELS)[number];

/** Every channel of the contract that is not a read: a new channel must be listed as one or the other to compile. */
export type WriteChannel = Exclude<Channel, ReadChannel>;

/** This desktop's journal records each activity it posts, each vote, each change of a profile or a key. */
const JOURNAL: readonly ReadChannel[] = ['journal.list', 'journal.verify'];
/** The organization lookup names users, tags, wallets, tokens and contracts for every reading (policies, cards). */
const ORGANIZATION: readonly ReadChannel[] = ['organization.lookup', 'users.deletionCheck', 'users.credentials', ...JOURNAL];
/** Keys are listed on the Keys screen, in the profiles that use them and in the export and decrypt forms. */
const API_KEYS: readonly ReadChannel[] = ['keys.listApiKeys', 'profiles.list', 'profiles.get', 'profiles.getActive', ...JOURNAL];
const ENCRYPTION_KEYS: readonly ReadChannel[] = ['keys.listEncryptionKeys', ...JOURNAL];
/** The header follows profiles.getActive; main's profile event also marks every profile-scoped read stale. */
const PROFILES: readonly ReadChannel[] = [
  'profiles.list',
  'profiles.get',
  'profiles.getActive',
  'keys.listApiKeys',
  'sandbox.status',
  // Which of a user's keys are this desktop's follows the profiles' keys.
  'users.credentials',
  ...JOURNAL,
];
/** Wallets and private keys, their accounts, and the exports asked for (an export that waits for votes joins them). */
const WALLETS: readonly ReadChannel[] = ['wallets.list', 'wallets.accounts', 'privateKeys.list', 'exports.requests', ...ORGANIZATION];
const POLICIES: readonly ReadChannel[] = ['policies.list', 'policies.mfaList', 'policies.get', ...ORGANIZATION];
/** A vote's queue, history and card re-read on main's activity event for it (queries.ts), not twice. */
const NOTHING_HERE: readonly ReadChannel[] = [];

/**
 * The one table of the window's writes: each write channel → the reads its answer makes stale. Typed over every
 * write channel of the contract, so a new one without an entry does not compile.
 */
export const STALE_AFTER_WRITE: { readonly [C in WriteChannel]: readonly ReadChannel[] } = {
  // The lock and unlock events from main clear and re-read what the lock hid.
  'app.lock': NOTHING_HERE,
  'app.unlock': NOTHING_HERE,
  'app.reauthenticate': NOTHING_HERE,
  'app.setUnlockPassphrase': ['app.info', ...JOURNAL],
  // The token list carries each token's threshold.
  'app.setSettings': ['app.getSettings', 'tokens.catalog', ...JOURNAL],
  'app.setSecretOnScreen': NOTHING_HERE,
  'clipboard.copySecret': NOTHING_HERE,
  'clipboard.clearPasted': NOTHING_HERE,
  'keys.generateApiKey': API_KEYS,
  'keys.importApiKey': API_KEYS,
  'keys.importTkcliApiKey': API_KEYS,
  'keys.renameApiKey': API_KEYS,
  'keys.deleteApiKey': API_KEYS,
  'keys.generateEncryptionKey': ENCRYPTION_KEYS,
  'keys.importEncryptionKey': ENCRYPTION_KEYS,
  'keys.deleteEncryptionKey': ENCRYPTION_KEYS,
  'keys.generateTokenKey': ['keys.listTokenKeys', ...JOURNAL],
  'profiles.add': PROFILES,
  'profiles.update': PROFILES,
  'profiles.remove': PROFILES,
  'profiles.useTokenKey': PROFILES,
  'profiles.setActive': PROFILES,
  // Main's `requests` event carries what still waits.
  'requests.cancel': NOTHING_HERE,
  // The Sandbox's state moves with main's sandbox events; its profile with the profile event.
  'sandbox.start': ['sandbox.status'],
  'sandbox.stop': ['sandbox.status'],
  'sandbox.reset': ['sandbox.status', ...PROFILES],
  'sandbox.restoreProfile': ['sandbox.status', ...PROFILES],
  'approvals.approve': NOTHING_HERE,
  'approvals.reject': NOTHING_HERE,
  'approvals.stampToFile': JOURNAL,
  'approvals.postStampedFile': ['approvals.pending', 'activities.list', 'inbox.list', ...ORGANIZATION],
  'inbox.vote': ['inbox.list', 'approvals.pending', 'activities.list', ...JOURNAL],
  'inbox.clearDecided': ['inbox.list'],
  'organization.updateRootQuorum': ORGANIZATION,
  'users.create': ORGANIZATION,
  'users.delete': ORGANIZATION,
  'users.setTags': ORGANIZATION,
  'users.createTag': ORGANIZATION,
  'users.addApiKey': ORGANIZATION,
  'users.removeApiKeys': ORGANIZATION,
  // The new authenticator is the user's; the profile that votes with it changes too.
  'users.addPasskey': [...ORGANIZATION, ...PROFILES],
  'passkeys.dismissNotice': ['passkeys.notices'],
  'policies.create': POLICIES,
  'policies.update': POLICIES,
  'policies.delete': POLICIES,
  'policies.mfaCreate': POLICIES,
  'policies.mfaUpdate': POLICIES,
  'policies.mfaDelete': POLICIES,
  'signing.submit': ['approvals.pending', 'activities.list', ...JOURNAL],
  'signing.saveResult': NOTHING_HERE,
  'signing.stampToFile': JOURNAL,
  'simulation.saveStateBundle': NOTHING_HERE,
  'contracts.create': ['contracts.list', ...ORGANIZATION],
  'contracts.delete': ['contracts.list', ...ORGANIZATION],
  // The organization lookup carries the declared tokens, for reading amounts.
  'tokens.declare': ['tokens.list', 'tokens.catalog', ...ORGANIZATION],
  'tokens.remove': ['tokens.list', 'tokens.catalog', ...ORGANIZATION],
  // Cards name addresses from the book.
  'addressBook.add': ['addressBook.list', 'signing.describe', ...JOURNAL],
  'addressBook.rename': ['addressBook.list', 'signing.describe', ...JOURNAL],
  'addressBook.remove': ['addressBook.list', 'signing.describe', ...JOURNAL],
  'wallets.create': WALLETS,
  'wallets.createAccounts': WALLETS,
  'privateKeys.create': WALLETS,
  // An export asked for, opened or withdrawn changes the exports asked for and what is marked exported.
  'exports.reveal': WALLETS,
  'exports.withdraw': WALLETS,
  'exports.saveBundle': JOURNAL,
  'imports.wallet': WALLETS,
  'imports.privateKey': WALLETS,
  'journal.export': NOTHING_HERE,
  'journal.checkpoint': JOURNAL,
};

const READS: ReadonlySet<Channel> = new Set(READ_CHANNELS);

function isWrite(channel: Channel): channel is WriteChannel {
  return !READS.has(channel);
}

/** What `channel`'s answer makes stale: its entry in the table for a write, nothing for a read. */
export function staleAfter(channel: Channel): readonly ReadChannel[] {
  return isWrite(channel) ? STALE_AFTER_WRITE[channel] : NOTHING_HERE;
}

/**
 * An error the screen answers itself instead of showing it (main asking the unlock passphrase for a change):
 * returns true when it took it.
 */
export type AnswersError = (error: QkError) => boolean;

type RunArgs<C extends Channel> = C extends NoInputChannel
  ? [input?: undefined, answersError?: AnswersError]
  : [input: ChannelInput<C>, answersError?: AnswersError];

export interface Action {
  /** What is running now ("Creating key…"), for the progress indicator; undefined when idle. */
  busy: string | undefined;
  error: QkError | undefined;
  /** What failed, named as it ran ("Exporting wallet Treasury"), for the error to lead with. */
  failed: string | undefined;
  /**
   * Calls `channel` with `input` as the write labelled `label`; resolves with main's answer, or undefined after
   * showing its error. The reads its table entry names are marked stale once main answered, refused or not.
   */
  run: <C extends Channel>(label: string, channel: C, ...args: RunArgs<C>) => Promise<ChannelOutput<C> | undefined>;
  clearError: () => void;
}

/** One write as the mutation runs it: the label is what the progress indicator and the error name it by. */
export interface Write {
  label: string;
  channel: Channel;
  /** Emptied once sent: a mnemonic being imported must not stay with the write's error in the mutation's state. */
  input: unknown;
}

/** The one mutation every write runs through: it calls the channel, then marks its table entry's reads stale. */
export function writeOptions(client: QueryClient): MutationOptions<unknown, QkError, Write> {
  return {
    mutationFn: (write) => {
      const { channel, input } = write;
      write.input = undefined;
      return callChannel(channel, input);
    },
    // A refused write may still have changed something (an export that ended meanwhile, the Sandbox's state).
    onSettled: (_answer, _error, { channel }) => {
      for (const read of staleAfter(channel)) void client.invalidateQueries({ queryKey: [read] });
    },
  };
}

/** A screen's writes, one at a time, with their busy, error and failed state for the Progress and ErrorNotice. */
export function useAction(): Action {
  const client = useQueryClient();
  const { mutateAsync, reset, isPending, variables, error } = useMutation(writeOptions(client));
  const run = useCallback(
    async <C extends Channel>(label: string, channel: C, ...[input, answersError]: RunArgs<C>) => {
      try {
        const answer = (await mutateAsync({ label, channel, input })) as ChannelOutput<C>;
        // The answer lives where the screen keeps it (a revealed secret in its dialog only), not in the mutation.
        reset();
        return answer;
      } catch (thrown) {
        if (answersError?.(thrown as QkError) === true) reset();
        return undefined;
      }
    },
    [mutateAsync, reset],
  );
  return {
    busy: isPending ? variables?.label : undefined,
    error: error ?? undefined,
    failed: error === null ? undefined : variables?.label.replace(/…$/u, ''),
    run,
    clearError: reset,
  };
}
