/**
 * The inbox against a real service: two of this desktop's users on one organization (2 of 3 root quorum with a third
 * user who has no profile here), what each sees and is told, the requests it costs, and how it behaves when a
 * service fails or the app locks.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityFeeds, MAX_BACK_OFF_MS } from '../../src/main/activities/feed';
import { ApiClient } from '../../src/main/client/api-client';
import { AppEvents } from '../../src/main/events/app-events';
import { EXPIRING_SOON_MS, Inbox } from '../../src/main/inbox/inbox';
import { Keychain } from '../../src/main/keychain/keychain';
import { AppLock } from '../../src/main/lock/lock';
import { Profiles, type Profile } from '../../src/main/profiles/profiles';
import { Settings } from '../../src/main/settings/settings';
import { Stamper } from '../../src/main/stamper/stamper';
import { QkError } from '../../src/shared/errors';
import type { AppEvent } from '../../src/shared/ipc/events';
import { MemoryStore } from '../support/memory-secret-store';
import { NotificationRecorder } from '../support/notification-recorder';
import { standInReadings } from '../support/stand-in-readings';
import { startTestService, type ApiPublicKey, type TestKey, type TestService } from '../support/service';

let dataDir: string;
let service: TestService<ApiPublicKey>;
let keychain: Keychain;
let profiles: Profiles;
let root: Profile;
let bob: Profile;
let carolKey: TestKey;
let rootUserId: string;
/** Every path the inbox's clients asked, in order. */
const asked: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-inbox-'));
  profiles = new Profiles({ dataDir });
  keychain = new Keychain({ dataDir, store: new MemoryStore(), profiles });
  const rootKey = await keychain.generateApiKey({ name: 'root' });
  const bobKey = await keychain.generateApiKey({ name: 'bob' });
  service = await startTestService({ rootPublicKey: { publicKey: rootKey.publicKey, curve: 'p256' } });
  const { info } = service;
  rootUserId = info.rootUserId;
  const bobUser = await service.addUser({ name: 'Bob', key: { publicKey: bobKey.publicKey, curve: 'p256' } });
  const carol = await service.addUser({ name: 'Carol' });
  carolKey = carol.key;
  await service.setRootQuorum(2, [info.rootUserId, bobUser.userId, carol.userId]);
  const common = {
    kind: 'hosted' as const,
    baseUrl: info.baseUrl,
    organizationId: info.organizationId,
    enclaveSignerPublicKey: info.enclaveSignerPublicKey,
  };
  root = await profiles.add({ ...common, name: 'Root', apiKeyName: 'root' });
  bob = await profiles.add({ ...common, name: 'Bob', apiKeyName: 'bob' });
});

afterAll(async () => {
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
});

function inboxOf({ lock = new AppLock(), failFor }: { lock?: AppLock; failFor?: Set<string> } = {}) {
  const notifications = new NotificationRecorder();
  const events = new AppEvents();
  const emitted: AppEvent[] = [];
  events.subscribe((event) => emitted.push(event));
  const stamper = new Stamper(keychain);
  const counting: typeof fetch = (input, init) => {
    asked.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
    return fetch(input, init);
  };
  const settings = new Settings({ dataDir });
  const feeds = new ActivityFeeds({
    profiles,
    clientFor: (profile) => {
      if (failFor?.has(profile.id)) throw new QkError('NETWORK_ERROR', `${profile.name}'s service is unreachable`);
      return new ApiClient({ profile, stamper, now: service.clock.now, fetch: counting });
    },
    settings,
    lock,
    events,
    now: service.clock.now,
    random: () => 0.5,
  });
  const inbox = new Inbox({
    feeds,
    profiles,
    // Main's readings, as the app makes them: each row's vote reading says who is asked and whose approval completes it.
    readingsFor: (profile) => standInReadings({ profileName: profile.name, client: () => clientOf(profile), now: service.clock.now }),
    settings,
    lock,
    notifier: notifications,
    events,
    now: service.clock.now,
  });
  return { inbox, notifications, emitted, lock };
}

async function propose(userName: string, key?: TestKey): Promise<{ id: string; fingerprint: string }> {
  const reply = await service.submit(
    'update_user_name',
    'ACTIVITY_TYPE_UPDATE_USER_NAME',
    { userId: rootUserId, userName },
    key === undefined ? {} : { key },
  );
  expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
  return { id: reply.body.activity.id as string, fingerprint: reply.body.activity.fingerprint as string };
}

function clientOf(profile: Profile): ApiClient {
  return new ApiClient({ profile, stamper: new Stamper(keychain), now: service.clock.now });
}

function listActivitiesAsked(): number {
  return asked.splice(0).filter((path) => path.endsWith('/list_activities')).length;
}

describe('Inbox', () => {
  it('tells each of this desktop’s users once what waits for their vote, says whose approval completes it, and forgets it once decided', async () => {
    const { inbox, notifications, emitted } = inboxOf();
    await inbox.check();
    expect(inbox.list().profiles.map((profile) => [profile.profileName, profile.organizationName, profile.items.length])).toEqual([
      ['Root', expect.any(String), 0],
      ['Bob', expect.any(String), 0],
    ]);

    const proposed = await propose('proposed by carol', carolKey);
    asked.splice(0);
    await inbox.check();
    // One request per profile per look, once who the user is is known.
    expect(listActivitiesAsked()).toBe(2);
    const { waitingForMe, profiles: views } = inbox.list();
    expect(waitingForMe).toBe(2);
    for (const view of views) {
      expect(view.items).toEqual([
        expect.objectContaining({
          activityId: proposed.id,
          waitingForMe: true,
          proposedByMe: false,
          approvals: 1,
          progress: '1 of 2 approved',
          completesIt: true,
          requester: 'Carol',
          expiringSoon: false,
        }),
      ]);
    }
    // The profiles are looked at side by side: whichever answers first is notified first.
    const byProfile = notifications.notifications
      .map(({ kind, title, body }) => ({ kind, title, body }))
      .sort((a, b) => a.body.localeCompare(b.body));
    // Each in main's reading: its summary, and the override warning first (no policy allows a rename).
    expect(byProfile).toEqual(
      ['Bob', 'Root'].map((profileName) => ({
        kind: 'waiting',
        title: 'Your vote: Root user → proposed by carol',
        body: expect.stringMatching(
          new RegExp(
            `^1 warning: No policy of this organization allows this request: .* Your approval completes it\\. Proposed by Carol, on .+ \\(profile ${profileName}\\)\\.$`,
          ),
        ),
      })),
    );
    expect(notifications.badge).toBe(2);
    expect(emitted.filter((event) => event.type === 'inbox').length).toBeGreaterThan(0);

    // Looking again tells nothing new.
    await inbox.check();
    expect(notifications.notifications).toHaveLength(2);

    // Bob's vote completes it: it leaves both users' inboxes.
    await clientOf(bob).submit('approve_activity', { fingerprint: proposed.fingerprint });
    await inbox.check();
    expect(inbox.list().waitingForMe).toBe(0);
    expect(inbox.list().profiles.flatMap((profile) => profile.items)).toEqual([]);
    expect(notifications.badge).toBe(0);
  });

  it('tells the proposer how their proposal ended, and keeps it among the decided until cleared', async () => {
    const { inbox, notifications } = inboxOf();
    const proposed = await clientOf(root).submit('update_user_name', { userId: rootUserId, userName: 'proposed by root' });
    expect(proposed.state).toBe('consensus-needed');
    await inbox.check();
    const [rootView, bobView] = inbox.list().profiles;
    expect(rootView!.items).toEqual([expect.objectContaining({ proposedByMe: true, waitingForMe: false, completesIt: false })]);
    expect(bobView!.items).toEqual([expect.objectContaining({ proposedByMe: false, waitingForMe: true, completesIt: true })]);

    // One rejection from the quorum is enough to reject it.
    await service.submit('reject_activity', 'ACTIVITY_TYPE_REJECT_ACTIVITY', { fingerprint: proposed.activity.fingerprint }, { key: carolKey });
    await inbox.check();
    expect(notifications.notifications.filter((notification) => notification.kind === 'decided')).toEqual([
      expect.objectContaining({ title: 'Rejected: Rename a user', body: expect.stringMatching(/^You proposed it, on .+ \(profile Root\)\.$/) }),
    ]);
    expect(inbox.list().profiles[0]!.decided).toEqual([
      expect.objectContaining({ activityId: proposed.activity.id, status: 'ACTIVITY_STATUS_REJECTED' }),
    ]);
    inbox.clearDecided();
    expect(inbox.list().profiles[0]!.decided).toEqual([]);
  });

  it('marks and notifies once what expires within the hour, and sorts by time left', async () => {
    const { inbox, notifications } = inboxOf();
    const older = await propose('older', carolKey);
    service.clock.advance(60 * 60 * 1000);
    const newer = await propose('newer', carolKey);
    await inbox.check();
    expect(inbox.list().profiles[1]!.items.map((item) => item.activityId)).toEqual([older.id, newer.id]);
    expect(notifications.notifications.filter((notification) => notification.kind === 'expiring')).toEqual([]);

    // 23 h 30 min after the older one opened its window: it has 30 minutes left, the newer 1 h 30 min.
    service.clock.advance(22.5 * 60 * 60 * 1000);
    await inbox.check();
    const items = inbox.list().profiles[1]!.items;
    expect(items.map((item) => [item.activityId, item.expiringSoon, item.timeLeftMs <= EXPIRING_SOON_MS])).toEqual([
      [older.id, true, true],
      [newer.id, false, false],
    ]);
    await inbox.check();
    expect(notifications.notifications.filter((notification) => notification.kind === 'expiring').map((notification) => notification.title)).toEqual([
      'Expires within the hour: Rename a user',
      'Expires within the hour: Rename a user',
    ]);
    // Let both expire so later tests start from an empty inbox.
    service.clock.advance(2 * 60 * 60 * 1000);
    for (const { fingerprint } of [older, newer]) await clientOf(root).submit('reject_activity', { fingerprint });
  });

  it('backs off with jitter from a profile whose service fails, says why, and keeps telling about the others', async () => {
    const failFor = new Set([bob.id]);
    const { inbox, notifications } = inboxOf({ failFor });
    const proposed = await propose('while bob is unreachable', carolKey);
    await inbox.check();
    const [rootView, bobView] = inbox.list().profiles;
    expect(rootView!.items.map((item) => item.activityId)).toEqual([proposed.id]);
    expect(bobView!.error).toEqual({ code: 'NETWORK_ERROR', message: "Bob's service is unreachable", retryAtMs: service.clock.now() + 20_000 });
    expect(notifications.notifications.map((notification) => notification.body)).toEqual([expect.stringContaining('(profile Root)')]);

    // Backing off: a look before the retry time leaves it alone; the next failure doubles the wait, up to the cap.
    failFor.delete(bob.id);
    await inbox.check();
    expect(inbox.list().profiles[1]!.error).toBeDefined();
    service.clock.advance(20_000);
    await inbox.check();
    expect(inbox.list().profiles[1]!.error).toBeUndefined();
    expect(inbox.list().profiles[1]!.items.map((item) => item.activityId)).toEqual([proposed.id]);
    expect(MAX_BACK_OFF_MS).toBe(300_000);
    await clientOf(root).submit('approve_activity', { fingerprint: proposed.fingerprint });
  });

  it('asks nothing while locked, takes its notifications back and says only how many wait; tells what came meanwhile after the unlock', async () => {
    const lock = new AppLock();
    const { inbox, notifications } = inboxOf({ lock });
    const first = await propose('before the lock', carolKey);
    await inbox.check();
    expect(notifications.notifications.filter((notification) => notification.shown)).toHaveLength(2);

    lock.lock();
    await new Promise((settle) => setTimeout(settle, 10));
    expect(notifications.notifications.filter((notification) => notification.shown)).toEqual([
      { kind: 'count', title: 'QuorumKey', body: '2 approvals waiting', shown: true },
    ]);
    const second = await propose('while locked', carolKey);
    asked.splice(0);
    await inbox.check();
    expect(asked).toEqual([]);
    expect(notifications.notifications).toHaveLength(3);

    lock.unlock();
    await inbox.check();
    expect(notifications.notifications.slice(3).map((notification) => notification.kind)).toEqual(['waiting', 'waiting']);
    expect(inbox.list().waitingForMe).toBe(4);
    for (const { fingerprint } of [first, second]) await clientOf(root).submit('approve_activity', { fingerprint });
  });

  it('counts, but does not notify, what already waited when it started', async () => {
    const waiting = await propose('waiting before the start', carolKey);
    service.clock.advance(1);
    const { inbox, notifications } = inboxOf();
    inbox.start();
    await inbox.check();
    expect(inbox.list().waitingForMe).toBe(2);
    expect(notifications.notifications).toEqual([]);
    expect(notifications.badge).toBe(2);
    await clientOf(root).submit('approve_activity', { fingerprint: waiting.fingerprint });
  });

  it('opens the notified activity on its profile when the notification is clicked', async () => {
    const { inbox, notifications, emitted } = inboxOf();
    await profiles.setActive(root.id);
    const proposed = await propose('to be clicked', carolKey);
    await inbox.check();
    const forBob = notifications.notifications.findIndex((notification) => notification.body.includes('(profile Bob)'));
    notifications.click(forBob);
    await expect
      .poll(() => emitted.find((event) => event.type === 'open-activity'))
      .toEqual({ type: 'open-activity', profileId: bob.id, activityId: proposed.id });
    expect((await profiles.getActive())?.id).toBe(bob.id);
    await clientOf(root).submit('approve_activity', { fingerprint: proposed.fingerprint });
  });
});
