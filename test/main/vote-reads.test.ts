/**
 * What one vote reads of the service beyond itself (docs/performance.md#what-one-vote-costs), over the real
 * composition root and the Sandbox with a recording fetch: main's confirmation finds the activity voted on in the
 * activity feed's last listing instead of listing the queue again; the inbox reads the organization once for every
 * profile of it, and not again because of a vote, however old its read; and the activity event says whether the
 * organization may have changed, so the window re-reads the organization only then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import type { AppEvent } from '../../src/shared/ipc/events';
import { ORGANIZATION_READ_TTL_MS } from '../../src/main/organization/read-model';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ETHEREUM_WALLET_ACCOUNT } from '../support/vote-scenario';

let bed: DispatchBed;
/** The operation of every request main sent, in order. */
const sent: string[] = [];
const recordingFetch: typeof fetch = (input, init) => {
  sent.push(new URL(input instanceof Request ? input.url : String(input)).pathname.split('/').at(-1) ?? '');
  return fetch(input, init);
};
/** Main's and the Sandbox's clock: moved past the organization read's time to live where a test says so. */
let skewMs = 0;
const events: AppEvent[] = [];
/** The root user's own client, on the Sandbox profile's key; its requests are not main's, so not recorded. */
let root: ApiClient;

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

function countOf(operation: string): number {
  return sent.filter((sentOperation) => sentOperation === operation).length;
}

/**
 * A wallet proposed by the root user, waiting for two more of the 3-of-3 root quorum (Bea and Cy). Proposed past
 * main (as another desktop would), so main learns of it only by a look of the feed.
 */
async function walletWaiting(walletName: string): Promise<{ fingerprint: string; id: string }> {
  const proposed = await root.submit('create_wallet', { walletName, accounts: [ETHEREUM_WALLET_ACCOUNT] });
  if (proposed.state !== 'consensus-needed') throw new Error(`the wallet ${walletName} is ${proposed.state}`);
  return { fingerprint: proposed.activity.fingerprint, id: proposed.activity.id };
}

async function activate(name: string): Promise<void> {
  await bed.services.profiles.setActive((await bed.services.profiles.list()).find((profile) => profile.name === name)!.id);
}

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-vote-reads-', fetch: recordingFetch, now: () => Date.now() + skewMs });
  await call('sandbox.start', {});
  const userIds: string[] = [];
  for (const name of ['bea', 'cy']) {
    await call('keys.generateApiKey', { name });
    const created = await call('users.create', { userName: name, apiKey: { kind: 'keychain', keyName: name } });
    if (created.state !== 'completed') throw new Error(`creating ${name} is ${created.state}`);
    userIds.push(created.result.userId);
  }
  const rootUserId = (await call('approvals.whoami', {})).userId;
  const quorum = await call('organization.updateRootQuorum', { userIds: [rootUserId, ...userIds], threshold: 3 });
  if (quorum.state !== 'completed') throw new Error(`the quorum change is ${quorum.state}`);
  root = new ApiClient({ profile: (await bed.services.profiles.getActive())!, stamper: new Stamper(bed.services.keychain) });
  await bed.addSandboxProfile('Bea', 'bea');
  await bed.addSandboxProfile('Cy', 'cy');
  bed.services.events.subscribe((event) => events.push(event));
});

afterAll(() => bed.close());

describe("main's confirmation of a vote", () => {
  it('finds the activity in the feed’s last listing: no list of the queue of its own', async () => {
    await activate('Bea');
    const waiting = await walletWaiting('Seen');
    await bed.services.activityFeeds.check();
    bed.answerConfirmations(false);
    sent.length = 0;
    const before = bed.confirmations.length;
    expect(await bed.dispatch('approvals.approve', { fingerprint: waiting.fingerprint })).toMatchObject({
      ok: false,
      error: { code: 'USER_DECLINED' },
    });
    expect(bed.confirmations.slice(before).map((asked) => asked.reading?.title)).toEqual(['Create a wallet']);
    expect(countOf('list_activities')).toBe(0);
  });

  it('lists the queue when the feed has not seen the activity yet', async () => {
    // The feed is not running: nothing looks between the proposal and the vote.
    const waiting = await walletWaiting('Unseen');
    bed.answerConfirmations(false);
    sent.length = 0;
    const before = bed.confirmations.length;
    expect(await bed.dispatch('approvals.approve', { fingerprint: waiting.fingerprint })).toMatchObject({
      ok: false,
      error: { code: 'USER_DECLINED' },
    });
    expect(bed.confirmations.slice(before).map((asked) => asked.reading?.fingerprint)).toEqual([waiting.fingerprint]);
    expect(countOf('list_activities')).toBe(1);
  });
});

describe("the organization's reads around a vote", () => {
  beforeAll(async () => {
    // Running, so that main's own vote is applied to what each profile's feed saw.
    bed.services.activityFeeds.start();
    await bed.services.activityFeeds.check();
  });

  it('are made once for the three profiles of one organization, and not again because of a vote', async () => {
    const waiting = await walletWaiting('Voted');
    // Every profile's reads are older than their time to live: a look that finds a new activity reads the
    // organization once for all three profiles (who each user is was asked before, once).
    skewMs += ORGANIZATION_READ_TTL_MS + 1;
    sent.length = 0;
    await bed.services.activityFeeds.check();
    expect(countOf('get_organization')).toBe(1);
    expect(countOf('list_wallet_accounts')).toBe(1);
    expect(countOf('list_smart_contract_interfaces')).toBe(1);
    expect(countOf('whoami')).toBe(0);

    // Bea's vote, once those reads are old again: main's confirmation reads the organization anew (it restates the
    // policies as they are), but the three inboxes read the vote with what they kept.
    skewMs += ORGANIZATION_READ_TTL_MS + 1;
    bed.answerConfirmations(true);
    sent.length = 0;
    events.length = 0;
    const voted = await call('approvals.approve', { fingerprint: waiting.fingerprint });
    expect(voted.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    await bed.services.activityFeeds.check();
    expect(countOf('get_organization')).toBe(1);
    expect(countOf('whoami')).toBe(0);
    expect(countOf('approve_activity')).toBe(1);
    const inboxes = bed.services.inbox.list().profiles;
    expect(inboxes.map((inbox) => inbox.items.find((item) => item.activityId === waiting.id)?.approvals)).toEqual([2, 2, 2]);
    // A vote changes no user, policy or wallet: the window is told so.
    expect(events.filter((event) => event.type === 'activity')).toEqual([
      expect.objectContaining({ activityId: waiting.id, status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED', organizationChanged: false }),
    ]);
  });

  it("read another operator's vote, seen by a look however old the reads are, with what they kept", async () => {
    const waiting = await walletWaiting('Elsewhere');
    await bed.services.activityFeeds.check();
    // Bea votes from another desktop; every read here is old by the time a look sees her vote.
    const beaElsewhere = new ApiClient({
      profile: (await bed.services.profiles.list()).find((profile) => profile.name === 'Bea')!,
      stamper: new Stamper(bed.services.keychain),
    });
    const voted = await beaElsewhere.submit('approve_activity', { fingerprint: waiting.fingerprint });
    expect(voted.state).toBe('consensus-needed');
    skewMs += ORGANIZATION_READ_TTL_MS + 1;
    sent.length = 0;
    await bed.services.activityFeeds.check();
    expect(countOf('get_organization')).toBe(0);
    expect(countOf('whoami')).toBe(0);
    const inboxes = bed.services.inbox.list().profiles;
    expect(inboxes.map((inbox) => inbox.items.find((item) => item.activityId === waiting.id)?.approvals)).toEqual([2, 2, 2]);
  });

  it('say that the organization changed once an activity that changes it completed', async () => {
    const waiting = await walletWaiting('Completed');
    bed.answerConfirmations(true);
    for (const name of ['Bea', 'Cy']) {
      await activate(name);
      await bed.services.activityFeeds.check();
      events.length = 0;
      await call('approvals.approve', { fingerprint: waiting.fingerprint });
    }
    expect(events.filter((event) => event.type === 'activity')).toEqual([
      expect.objectContaining({ activityId: waiting.id, status: 'ACTIVITY_STATUS_COMPLETED', organizationChanged: true }),
    ]);
  });
});
