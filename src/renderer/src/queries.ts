/**
 * The window's data layer (docs/architecture.md#events-from-main): every read of main goes through TanStack Query,
 * one query per IPC channel and input, keyed by the channel, the input and (for the channels that act for it) the
 * active profile, so screens reading the same thing share one request and one cached answer. Nothing here polls:
 * main's events (src/shared/ipc/events.ts) say what changed, and {@link channelsToInvalidate} says, in this one
 * place, which reads that makes stale.
 */
import {
  partialMatchKey,
  QueryClient,
  useInfiniteQuery,
  useQueries,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryKey,
  type UseInfiniteQueryResult,
  type UseQueryOptions,
  type UseQueryResult,
} from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { isWaitingForApprovals } from '../../shared/approvals/voting';
import type { QkError } from '../../shared/errors';
import { channels, splitChannel, type Channel, type ChannelInput, type ChannelOutput, type NoInputChannel } from '../../shared/ipc/contract';
import { appEventSchema, type AppEvent } from '../../shared/ipc/events';
import { bridge, callChannel as read } from './api';
import { useUi } from './store';

/** Namespaces whose channels answer from this computer (keychain, profiles, settings…), whichever profile is active. */
const APP_WIDE_NAMESPACES: ReadonlySet<string> = new Set([
  'app',
  'clipboard',
  'inbox',
  'journal',
  'keys',
  'passkeys',
  'profiles',
  'requests',
  'sandbox',
  'tokens',
]);

/** Whether `channel` acts for the active profile (its organization, its key), so its answer belongs to that profile. */
export function isProfileScoped(channel: Channel): boolean {
  return !APP_WIDE_NAMESPACES.has(splitChannel(channel)[0]);
}

const PROFILE_SCOPED: readonly Channel[] = channels.filter(isProfileScoped);

/** What this desktop's journal answers: an entry is written for each activity it posts, each unlock, each profile change. */
const JOURNAL_READS: readonly Channel[] = ['journal.list', 'journal.verify'];

/** The reads any activity event makes stale: the queue, the history, its card. */
const ACTIVITY_READS: readonly Channel[] = [
  'approvals.pending',
  'activities.list',
  'activities.get',
  'signing.describe',
  'signing.result',
  ...JOURNAL_READS,
];

/** The reads `event` makes stale; the screens showing them read again. */
export function channelsToInvalidate(event: AppEvent): readonly Channel[] {
  switch (event.type) {
    case 'activity':
      // Only an activity that completed a change of users, policies, wallets, keys or the quorum (main says which)
      // makes the organization's reads stale; a vote, a rejection or a signature leaves them as they were.
      return event.organizationChanged ? [...PROFILE_SCOPED, ...JOURNAL_READS] : ACTIVITY_READS;
    case 'export':
      // An export this desktop asked for was approved, ended or withdrawn: its request, and the wallet or key it marks exported.
      return ['exports.requests', 'wallets.list', 'privateKeys.list'];
    case 'sandbox':
      // A (re)started Sandbox moves the Sandbox profile to its new address: what failed to read may read now.
      return ['sandbox.status', 'profiles.list', 'profiles.get', 'profiles.getActive', ...PROFILE_SCOPED];
    case 'profile':
      // Keys list the profiles that use them; every profile-scoped read may now act for another profile.
      // A notice of a security key names its profile, and goes with it.
      return ['profiles.list', 'profiles.get', 'profiles.getActive', 'keys.listApiKeys', 'passkeys.notices', ...PROFILE_SCOPED, ...JOURNAL_READS];
    case 'lock':
      return ['app.info', 'inbox.list', ...JOURNAL_READS];
    case 'passkey':
      return ['passkeys.notices'];
    case 'inbox':
      return ['inbox.list'];
    case 'requests':
      // It carries the list itself (applyEvent): nothing is read again.
      return [];
    case 'open-activity':
      return [];
  }
}

/** A query's key: the channel first, so a channel's reads are invalidated together whatever their input. */
export function queryKeyOf(channel: Channel, input: unknown, activeProfileId: string | null): QueryKey {
  return isProfileScoped(channel) ? [channel, input ?? {}, activeProfileId] : [channel, input ?? {}];
}

/** Applies one event from main: marks what it made stale, and hides the window's data at once when the app locked. */
export function applyEvent(client: QueryClient, event: AppEvent): void {
  if (event.type === 'lock' && event.locked) {
    useUi.getState().setLocked(true);
    // Nothing read before the lock outlives it in memory; the lock screen reads what it needs again. What the app
    // is and how it looks (its settings) are answered while locked and hold nothing of an organization.
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'app.info' && query.queryKey[0] !== 'app.getSettings' });
    client.getMutationCache().clear();
  }
  if (event.type === 'open-activity') useUi.getState().openActivity({ profileId: event.profileId, activityId: event.activityId });
  if (event.type === 'requests') client.setQueryData(PENDING_REQUESTS_KEY, event.pending);
  const closed = cardClosedBy(event);
  for (const channel of channelsToInvalidate(event)) {
    if (channel === 'signing.describe' && closed !== undefined) {
      // Stale all the same: a screen that shows it again, or goes on showing it, reads it then.
      void client.invalidateQueries({ queryKey: closed, refetchType: 'none' });
      void client.invalidateQueries({ queryKey: [channel], predicate: (query) => !partialMatchKey(query.queryKey, closed) });
    } else void client.invalidateQueries({ queryKey: [channel] });
  }
}

/**
 * The card an activity event closes: a decided activity leaves the queue, and its card on the Approvals screen with
 * it, so reading it again would be a call for nothing (History shows it decided, and reads it then, once its list
 * says so).
 */
function cardClosedBy(event: AppEvent): QueryKey | undefined {
  return event.type === 'activity' && !isWaitingForApprovals(event.status) ? ['signing.describe', { activityId: event.activityId }] : undefined;
}

/** The requests main waits on: read once, then kept current by main's `requests` events alone, never dropped. */
const PENDING_REQUESTS_KEY = queryKeyOf('requests.pending', undefined, null);

export function createQueryClient(): QueryClient {
  const client = new QueryClient({
    defaultOptions: {
      queries: {
        // Main's errors are specific (locked, not found, no profile): asking again at once would say the same.
        retry: false,
        // Main's events keep the reads current; focus alone changes nothing.
        refetchOnWindowFocus: false,
      },
      // A write's answer (a revealed secret) is the screen's to keep: the cache lets it go once no screen watches it.
      mutations: { gcTime: 0 },
    },
  });
  client.setQueryDefaults(PENDING_REQUESTS_KEY, { staleTime: Infinity, gcTime: Infinity });
  return client;
}

/** Follows main's events for as long as the window is open; an event outside the contract is reported, not applied. */
export function useMainEvents(): void {
  const client = useQueryClient();
  useEffect(
    () =>
      bridge().onEvent((event) => {
        const parsed = appEventSchema.safeParse(event);
        if (parsed.success) applyEvent(client, parsed.data);
        else console.error('main sent an event outside the contract', parsed.error.issues);
      }),
    [client],
  );
}

type InputArgs<C extends Channel> = C extends NoInputChannel ? [] : [input: ChannelInput<C>];

/** The active profile as main last answered; undefined until first read. Main's profile events keep it current. */
export function useActiveProfile(): ChannelOutput<'profiles.getActive'> | undefined {
  // Not through useChannel: that keys profile-scoped reads by this very answer.
  return useQuery<ChannelOutput<'profiles.getActive'>, QkError>({
    queryKey: queryKeyOf('profiles.getActive', undefined, null),
    queryFn: () => read('profiles.getActive', undefined),
  }).data;
}

function useActiveProfileId(): string | null {
  return useActiveProfile()?.id ?? null;
}

/**
 * The service requests main waits on, oldest first: read once (not while locked, when main answers only the lock
 * channels), then kept current by main's `requests` events, so a slow vote asks main nothing for its progress line.
 */
export function usePendingRequests(): ChannelOutput<'requests.pending'> {
  const locked = useUi((state) => state.locked);
  return (
    useQuery<ChannelOutput<'requests.pending'>, QkError>({
      queryKey: PENDING_REQUESTS_KEY,
      queryFn: () => read('requests.pending', undefined),
      enabled: !locked,
    }).data ?? NOTHING_PENDING
  );
}

const NOTHING_PENDING: ChannelOutput<'requests.pending'> = [];

/** Reads `channel` with `input` through the shared cache. */
export function useChannel<C extends Channel>(channel: C, ...[input]: InputArgs<C>): UseQueryResult<ChannelOutput<C>, QkError> {
  const activeProfileId = useActiveProfileId();
  return useQuery<ChannelOutput<C>, QkError>({
    queryKey: queryKeyOf(channel, input, activeProfileId),
    queryFn: () => read(channel, input),
  });
}

/** Reads `channel` once per input (the accounts of each wallet), each through the shared cache. */
export function useChannelEach<C extends Channel>(channel: C, inputs: readonly ChannelInput<C>[]): UseQueryResult<ChannelOutput<C>, QkError>[] {
  const activeProfileId = useActiveProfileId();
  return useQueries({
    queries: inputs.map((input): UseQueryOptions<ChannelOutput<C>, QkError> => ({
      queryKey: queryKeyOf(channel, input, activeProfileId),
      queryFn: () => read(channel, input),
    })),
  });
}

/** The service answers at most this many activities per history page. */
export const HISTORY_PAGE_SIZE = 100;

type ActivityPage = ChannelOutput<'activities.list'>;
type HistoryFilter = Omit<ChannelInput<'activities.list'>, 'limit' | 'before'>;

/**
 * The activity history under `filter`, newest first, a page at a time: each older page continues from the oldest
 * activity of the one before, and a short page is the last. Invalidated with `activities.list`, all loaded pages
 * are read again.
 */
export function useActivityHistory(filter: HistoryFilter): UseInfiniteQueryResult<InfiniteData<ActivityPage, string | undefined>, QkError> {
  const activeProfileId = useActiveProfileId();
  return useInfiniteQuery<ActivityPage, QkError, InfiniteData<ActivityPage, string | undefined>, QueryKey, string | undefined>({
    // Paged, so not the same entry as a plain read of the channel with this input.
    queryKey: [...queryKeyOf('activities.list', filter, activeProfileId), 'pages'],
    queryFn: ({ pageParam }) =>
      read('activities.list', { ...filter, limit: HISTORY_PAGE_SIZE, ...(pageParam === undefined ? {} : { before: pageParam }) }),
    initialPageParam: undefined,
    getNextPageParam: (page) => (page.length < HISTORY_PAGE_SIZE ? undefined : page.at(-1)?.id),
  });
}

/** Marks the reads of `channels` stale when the person asks to refresh; what a write changes, mutations.ts marks. */
export function useInvalidate(): (...channels: Channel[]) => void {
  const client = useQueryClient();
  return useCallback(
    (...changed: Channel[]) => {
      for (const channel of changed) void client.invalidateQueries({ queryKey: [channel] });
    },
    [client],
  );
}
