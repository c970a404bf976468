/**
 * A security key whose registration waits for approvals, against a real Sandbox over main's real composition root:
 * Bea's MFA policy asks her desk's API key for every create_authenticators, so the key she adds from her profile
 * waits in ACTIVITY_STATUS_AUTHENTICATORS_NEEDED. Once approved elsewhere (her desk key, not through this desktop),
 * the activity feed's next look attaches the key the service recorded to her profile; a rejected one is forgotten, and
 * so is one whose authenticator is not the credential made, and the window is told (main's `passkey` event, then its
 * words through `passkeys.notices`) which key, why and what to do. What is kept meanwhile is the credential id and
 * name, the file is bounded, and a look reads what is kept from memory.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FeedListener, SeenLook } from '../../src/main/activities/feed';
import { ApiClient } from '../../src/main/client/api-client';
import { endedPasskeyNotice, MAX_PENDING_PASSKEYS, PendingPasskeys, type PendingPasskeysOptions } from '../../src/main/passkeys/pending-passkeys';
import type { Profile } from '../../src/main/profiles/profiles';
import { Stamper } from '../../src/main/stamper/stamper';
import type { Activity } from '../../src/shared/api/activity-record';
import { QkError } from '../../src/shared/errors';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import type { AppEvent } from '../../src/shared/ipc/events';
import { findChromium } from '../support/chromium';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { virtualSecurityKey, type VirtualSecurityKey } from '../support/virtual-authenticator';

let browser: Browser;
let key: VirtualSecurityKey;
let bed: DispatchBed;
let bea: Profile;
/** Bea's second API key, which her MFA policy names: it approves her waiting registrations from "another desktop". */
let desk: ApiClient;

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

function completed<T extends { state: string }>(outcome: T): Extract<T, { state: 'completed' }> {
  if (outcome.state !== 'completed') throw new Error(`expected a completed activity, got ${outcome.state}`);
  return outcome as Extract<T, { state: 'completed' }>;
}

/** Bea adds a key from her profile; it waits for her desk key's step. */
async function addWaitingKey(name: string): Promise<{ fingerprint: string; id: string }> {
  const outcome = await call('users.addPasskey', { name });
  expect(outcome.state).toBe('pending');
  expect(outcome.activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
  return { fingerprint: outcome.activity.fingerprint, id: outcome.activity.id };
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  key = await virtualSecurityKey(await browser.newContext());
  bed = await startDispatchBed({ dataDirPrefix: 'qk-pending-passkey-', openPasskeyPage: key.openPasskeyPage });
  await call('sandbox.start', {});
  await call('keys.generateApiKey', { name: 'bea' });
  await call('keys.generateApiKey', { name: 'bea-desk' });
  const beaId = completed(await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } })).result.userId;
  const [deskKeyId] = completed(await call('users.addApiKey', { userId: beaId, apiKey: { kind: 'keychain', keyName: 'bea-desk' } })).result.apiKeyIds;
  completed(
    await call('policies.mfaCreate', {
      userId: beaId,
      name: 'Keys from the desk',
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2'",
      steps: [{ any: [{ type: 'AUTHENTICATION_TYPE_API_KEY', id: deskKeyId! }] }],
    }),
  );
  bea = await bed.addSandboxProfile('Bea', 'bea');
  await call('profiles.setActive', { id: bea.id });
  desk = new ApiClient({
    profile: { baseUrl: bea.baseUrl, organizationId: bea.organizationId, apiKeyName: 'bea-desk' },
    stamper: new Stamper(bed.services.keychain),
  });
}, 120_000);

afterAll(async () => {
  await bed?.close();
  await browser?.close();
});

describe('a security key whose registration waits for approvals', () => {
  it('is kept pending, with nothing but the credential id and its name', async () => {
    await addWaitingKey('yk-later');
    expect((await call('profiles.getActive', {}))?.passkey).toBeUndefined();
    const pending = await bed.services.pendingPasskeys.of(bea.id);
    const [credential] = await key.credentials();
    expect(pending).toMatchObject({ name: 'yk-later', credentialId: Buffer.from(credential!.credentialId, 'base64').toString('base64url') });
    const stored = JSON.parse(await readFile(join(bed.dataDir, 'pending-passkeys.json'), 'utf8')) as { pending: object[] };
    expect(stored.pending.map((entry) => Object.keys(entry).sort())).toEqual([['activityId', 'credentialId', 'name', 'organizationId', 'profileId']]);
  });

  it('is attached to the profile once approved elsewhere, as the service recorded it', async () => {
    const waiting = await bed.services.pendingPasskeys.of(bea.id);
    const { activity } = await desk.query('get_activity', { activityId: waiting!.activityId });
    const approved = await desk.submit('approve_activity', { fingerprint: activity.fingerprint });
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    await bed.services.activityFeeds.check();
    const profile = await call('profiles.getActive', {});
    const { authenticator } = await desk.query('get_authenticator', { authenticatorId: profile!.passkey!.authenticatorId });
    expect(profile?.passkey).toEqual({
      name: 'yk-later',
      credentialId: waiting!.credentialId,
      publicKey: authenticator.credential.publicKey,
      authenticatorId: authenticator.authenticatorId,
    });
    expect(authenticator.authenticatorName).toBe('yk-later');
    expect(await bed.services.pendingPasskeys.of(bea.id)).toBeUndefined();
  });

  it('stays while it waits, is forgotten once rejected, and the profile keeps the key it had', async () => {
    const before = (await call('profiles.getActive', {}))?.passkey;
    const waiting = await addWaitingKey('yk-refused');
    // The newer registration replaced nothing yet: the profile still votes with its key until this one completes.
    expect((await call('profiles.getActive', {}))?.passkey).toEqual(before);
    await bed.services.activityFeeds.check();
    expect(await bed.services.pendingPasskeys.of(bea.id)).toMatchObject({ activityId: waiting.id, name: 'yk-refused' });
    // Only a vote can reject it, and every vote it takes is Bea's, who proposed it: a look that finds it rejected.
    const { activity } = await desk.query('get_activity', { activityId: waiting.id });
    const { store, listener, endedChanges } = followerOf(bed.dataDir);
    await listener.look?.(lookAt({ ...activity, status: 'ACTIVITY_STATUS_REJECTED' }));
    expect(await store.of(bea.id)).toBeUndefined();
    expect(await store.ended()).toEqual([{ activityId: waiting.id, profileId: bea.id, name: 'yk-refused', reason: 'rejected' }]);
    expect(endedChanges()).toBe(1);
    expect((await call('profiles.getActive', {}))?.passkey).toEqual(before);
  });

  it.each([
    ['failed', { status: 'ACTIVITY_STATUS_FAILED' }, {}, 'its registration failed on the service'],
    ['moved', {}, { organizationId: 'another-organization' }, 'the profile now acts in another organization'],
  ] as const)('ends as %s, and main says why', async (reason, activityChange, profileChange, why) => {
    const waiting = await addWaitingKey(`yk-${reason}`);
    const { activity } = await desk.query('get_activity', { activityId: waiting.id });
    const { store, listener } = followerOf(await freshDir());
    await store.add((await bed.services.pendingPasskeys.of(bea.id))!);
    await listener.look?.({ ...lookAt({ ...activity, ...activityChange }), profile: { ...bea, ...profileChange } });
    const ended = await store.ended();
    expect(ended).toEqual([{ activityId: waiting.id, profileId: bea.id, name: `yk-${reason}`, reason }]);
    expect(endedPasskeyNotice(ended[0]!, 'Bea').what).toContain(why);
  });

  it('is forgotten with its profile', async () => {
    await addWaitingKey('yk-orphan');
    const { store, listener } = followerOf(bed.dataDir);
    listener.round?.((await bed.services.profiles.list()).filter((profile) => profile.id !== bea.id));
    await expect.poll(() => store.of(bea.id)).toBeUndefined();
  });

  it('is dropped, and the profile left as it was, when it completed with an authenticator that is not the credential made', async () => {
    const waiting = await addWaitingKey('yk-swapped');
    const made = await bed.services.pendingPasskeys.of(bea.id);
    const approved = await desk.submit('approve_activity', { fingerprint: waiting.fingerprint });
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { activity } = await desk.query('get_activity', { activityId: waiting.id });
    // This desktop remembers another credential than the one the service recorded for the activity.
    const { store, listener, updated } = followerOf(await freshDir());
    await store.add({ ...made!, credentialId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await listener.look?.(lookAt(activity));
      expect(logged).toHaveBeenCalledWith(expect.stringContaining('security key "yk-swapped" was not attached'));
    } finally {
      logged.mockRestore();
    }
    expect(await store.of(bea.id)).toBeUndefined();
    expect(await store.ended()).toEqual([{ activityId: waiting.id, profileId: bea.id, name: 'yk-swapped', reason: 'other-credential' }]);
    expect(updated).toEqual([]);
    // The next look has nothing left to ask the service about.
    const detail = vi.fn(async () => activity);
    await listener.look?.({ ...lookAt(activity), detail });
    expect(detail).not.toHaveBeenCalled();
  });

  it('is told to the window, in words that escape the key’s name, until the person dismisses it', async () => {
    const name = 'yk "blue"\u202e';
    const waiting = await addWaitingKey(name);
    const made = await bed.services.pendingPasskeys.of(bea.id);
    // The service will record the credential the key made, not the one this desktop remembers: it is not attached.
    await bed.services.pendingPasskeys.add({ ...made!, credentialId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    await desk.submit('approve_activity', { fingerprint: waiting.fingerprint });
    const events: AppEvent[] = [];
    const stop = bed.services.events.subscribe((event) => events.push(event));
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await bed.services.activityFeeds.check();
    } finally {
      logged.mockRestore();
      stop();
    }
    expect(events).toContainEqual({ type: 'passkey' });
    const notices = await call('passkeys.notices', {});
    const notice = notices.find((candidate) => candidate.activityId === waiting.id);
    expect(notice?.what).toBe(
      `Security key "yk \\"blue\\"\\u202E" was not added to profile "Bea": the service recorded another credential for it than the one this key made, so QuorumKey did not trust it (activity ${waiting.id}).`,
    );
    expect(notice?.next).toContain('remove an authenticator you do not recognise, then add the key again under Keys');
    expect((await call('profiles.getActive', {}))?.passkey?.name).not.toBe(name);

    await call('passkeys.dismissNotice', { activityId: waiting.id });
    expect((await call('passkeys.notices', {})).map((candidate) => candidate.activityId)).not.toContain(waiting.id);
    const stored = JSON.parse(await readFile(join(bed.dataDir, 'pending-passkeys.json'), 'utf8')) as { ended: { activityId: string }[] };
    expect(stored.ended.map((ended) => ended.activityId)).not.toContain(waiting.id);
  });

  it('stays, to be read again on the next look, when the service could not be asked about the authenticator', async () => {
    const waiting = await addWaitingKey('yk-unreachable');
    const kept = await bed.services.pendingPasskeys.of(bea.id);
    await desk.submit('approve_activity', { fingerprint: waiting.fingerprint });
    const { activity } = await desk.query('get_activity', { activityId: waiting.id });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { store, listener, updated } = followerOf(await freshDir());
    await store.add(kept!);
    const unreachable = {
      query: async () => {
        throw new QkError('NETWORK_ERROR', 'the service did not answer');
      },
    } as unknown as SeenLook['client'];
    await expect(listener.look?.({ ...lookAt(activity), client: unreachable })).rejects.toThrow('the service did not answer');
    expect(await store.of(bea.id)).toEqual(kept);
    expect(updated).toEqual([]);
  });
});

const madeDirs: string[] = [];
afterAll(async () => {
  await Promise.all(madeDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'qk-pending-file-'));
  madeDirs.push(dir);
  return dir;
}

/** A look at Bea's profile, answered by her desk key, where `activity` has left what waits. */
function lookAt(activity: Activity): SeenLook {
  return { ok: true, profile: bea, active: true, client: desk, waiting: [], newestCompleted: undefined, detail: async () => activity, fail: () => 0 };
}

/**
 * A store over `dataDir`'s file whose feed listener the test drives itself; the profile changes it makes are recorded
 * in `updated`, or made on the bed's profiles when `dataDir` is the bed's.
 */
function followerOf(dataDir: string): { store: PendingPasskeys; listener: FeedListener; updated: unknown[]; endedChanges: () => number } {
  let listener: FeedListener | undefined;
  const updated: unknown[] = [];
  let endedChanges = 0;
  const profiles: PendingPasskeysOptions['profiles'] =
    dataDir === bed.dataDir
      ? bed.services.profiles
      : {
          update: async (id, changes) => {
            updated.push({ id, changes });
            return bea;
          },
        };
  const store = new PendingPasskeys({
    dataDir,
    profiles,
    feeds: { subscribe: (added) => ((listener = added), () => true) },
    now: Date.now,
    onEndedChange: () => (endedChanges += 1),
  });
  return { store, listener: listener!, updated, endedChanges: () => endedChanges };
}

describe('the pending file', () => {
  const pending = (index: number) => ({
    activityId: `activity-${index}`,
    profileId: `profile-${index}`,
    organizationId: 'org',
    credentialId: `credential-${index}`,
    name: `key ${index}`,
  });

  it('keeps one registration per profile, the latest', async () => {
    const { store } = followerOf(await freshDir());
    await store.add(pending(1));
    await store.add({ ...pending(2), profileId: 'profile-1' });
    expect(await store.of('profile-1')).toEqual({ ...pending(2), profileId: 'profile-1' });
  });

  it(`keeps at most ${MAX_PENDING_PASSKEYS}, the oldest dropped, and what it kept survives a restart`, async () => {
    const dataDir = await freshDir();
    const { store } = followerOf(dataDir);
    for (let index = 0; index < MAX_PENDING_PASSKEYS + 5; index += 1) await store.add(pending(100 + index));
    const { store: restarted } = followerOf(dataDir);
    expect(await restarted.of('profile-104')).toBeUndefined();
    expect(await restarted.of('profile-105')).toEqual(pending(105));
    expect(await restarted.of(`profile-${100 + MAX_PENDING_PASSKEYS + 4}`)).toEqual(pending(100 + MAX_PENDING_PASSKEYS + 4));
  });

  it('reads the file once: a look after that reads what it keeps, and each change is written through', async () => {
    const dataDir = await freshDir();
    const { store } = followerOf(dataDir);
    await store.add(pending(1));
    // Replaced behind the store's back: a store that read the file again would see this one instead.
    await writeFile(join(dataDir, 'pending-passkeys.json'), JSON.stringify({ version: 1, pending: [pending(2)] }));
    expect(await store.of('profile-1')).toEqual(pending(1));
    expect(await store.of('profile-2')).toBeUndefined();
    await store.add(pending(3));
    const stored = JSON.parse(await readFile(join(dataDir, 'pending-passkeys.json'), 'utf8')) as { pending: unknown[] };
    expect(stored.pending).toEqual([pending(1), pending(3)]);
  });
});
