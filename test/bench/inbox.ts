/**
 * The inbox's cost: 20 profiles (20 users of one organization, each with its own key) on a local service in its own
 * process, 5 activities waiting for votes. Counts the requests of each look (bound: one per profile) and measures
 * this process's event-loop delay p99 while the inbox polls every 2 s, beside the same window with polling off.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActivityFeeds } from '../../src/main/activities/feed.js';
import { ApiClient } from '../../src/main/client/api-client.js';
import { AppEvents } from '../../src/main/events/app-events.js';
import { Inbox } from '../../src/main/inbox/inbox.js';
import { Keychain } from '../../src/main/keychain/keychain.js';
import { AppLock } from '../../src/main/lock/lock.js';
import { Profiles, type Profile } from '../../src/main/profiles/profiles.js';
import { Settings } from '../../src/main/settings/settings.js';
import { Stamper } from '../../src/main/stamper/stamper.js';
import { stampPublicKeyOf } from '../../src/service/auth/stamp-public-key.js';
import { MemoryStore } from '../support/memory-secret-store.js';
import { NotificationRecorder } from '../support/notification-recorder.js';
import { standInReadings } from '../support/stand-in-readings.js';
import { loopDelayOver } from './loop-delay.js';
import { startServiceProcess, stopServiceProcess } from './service.js';

const PROFILES = 20;
const WAITING = 5;
const INTERVAL_SECONDS = 2;
const WINDOW_INTERVALS = 6;
/** Requests closer together than this belong to the same look. */
const SAME_LOOK_MS = (INTERVAL_SECONDS * 1000) / 2;

export async function run(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'quorumkey-bench-inbox-'));
  const profiles = new Profiles({ dataDir: directory });
  const keychain = new Keychain({ dataDir: directory, store: new MemoryStore(), profiles });
  const stamper = new Stamper(keychain);
  const keys = [];
  for (let index = 0; index < PROFILES; index++) keys.push(await keychain.generateApiKey({ name: `operator-${index}` }));
  const { child, info } = await startServiceProcess(directory, stampPublicKeyOf({ publicKey: keys[0]!.publicKey, curve: 'p256' }), undefined);
  try {
    const root = new ApiClient({ profile: { baseUrl: info.baseUrl, organizationId: info.organizationId, apiKeyName: 'operator-0' }, stamper });
    const created = await root.submit('create_users', {
      users: keys.slice(1).map((key, index) => ({
        userName: `Operator ${index + 1}`,
        apiKeys: [{ apiKeyName: key.name, publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      })),
    });
    if (created.state !== 'completed') throw new Error(`create_users ${created.state}`);
    const quorum = await root.submit('update_root_quorum', { threshold: 2, userIds: [info.rootUserId, ...created.result.userIds] });
    if (quorum.state !== 'completed') throw new Error(`update_root_quorum ${quorum.state}`);
    for (let index = 0; index < WAITING; index++) {
      const proposed = await root.submit('update_user_name', { userId: info.rootUserId, userName: `proposal ${index}` });
      if (proposed.state !== 'consensus-needed') throw new Error(`proposal ${proposed.state}`);
    }
    for (const [index, key] of keys.entries()) {
      await profiles.add({
        name: `Operator ${index}`,
        kind: 'hosted',
        baseUrl: info.baseUrl,
        organizationId: info.organizationId,
        apiKeyName: key.name,
        enclaveSignerPublicKey: info.enclaveSignerPublicKey,
      });
    }
    const settings = new Settings({ dataDir: directory });
    await settings.set({ inbox: { intervalSeconds: INTERVAL_SECONDS, notifyWaiting: true, notifyDecided: true, notifyExpiring: true } });

    const sent: number[] = [];
    const counting: typeof fetch = (input, init) => {
      sent.push(performance.now());
      return fetch(input, init);
    };
    const [lock, events] = [new AppLock(), new AppEvents()];
    // No profile is active here: each is looked at on the inbox's interval.
    const clientFor = (profile: Profile) => new ApiClient({ profile, stamper, fetch: counting });
    const feeds = new ActivityFeeds({
      profiles,
      clientFor,
      settings,
      lock,
      events,
      now: Date.now,
    });
    const inbox = new Inbox({
      feeds,
      profiles,
      // Main's readings, as the app makes them: a row is shown once main has read who may vote on it.
      readingsFor: (profile) => standInReadings({ profileName: profile.name, client: () => clientFor(profile), now: Date.now }),
      settings,
      lock,
      notifier: new NotificationRecorder(),
      events,
      now: Date.now,
    });

    const windowMs = WINDOW_INTERVALS * INTERVAL_SECONDS * 1000;
    const idle = (await loopDelayOver(windowMs)).p99Ms;
    inbox.start();
    feeds.start();
    // The first look also reads each waiting activity for its row; what is measured is the looks after it.
    while (inbox.list().profiles.filter((profile) => profile.items.length === WAITING).length < PROFILES) await sleep(50);
    await sleep(SAME_LOOK_MS);
    sent.length = 0;
    const polling = (await loopDelayOver(windowMs)).p99Ms;
    feeds.stop();
    // The window's edges may cut a look in two: the first and the last are left out.
    const looks = looksOf(sent).slice(1, -1);

    const perLook = looks.map((look) => look.length);
    console.log(
      `profiles ${PROFILES}, ${WAITING} activities waiting in each, interval ${INTERVAL_SECONDS} s, ${WINDOW_INTERVALS} intervals measured`,
    );
    console.log(
      `requests per look: ${perLook.join(', ')}   bound: ${PROFILES} (one per profile)   ${perLook.every((count) => count === PROFILES) ? 'met' : 'NOT MET'}`,
    );
    console.log(`main event-loop delay p99: ${polling.toFixed(2)} ms polling   beside ${idle.toFixed(2)} ms with polling off`);
  } finally {
    await stopServiceProcess(child);
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Request send times grouped into looks: a gap of more than half an interval starts the next look. */
function looksOf(times: readonly number[]): number[][] {
  const looks: number[][] = [];
  for (const time of times) {
    const current = looks.at(-1);
    if (current !== undefined && time - current.at(-1)! < SAME_LOOK_MS) current.push(time);
    else looks.push([time]);
  }
  return looks;
}

function sleep(ms: number): Promise<void> {
  return new Promise((settle) => setTimeout(settle, ms));
}
