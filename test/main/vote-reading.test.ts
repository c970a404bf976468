/**
 * One answer at the last click: main's reading of an activity waiting for votes says who votes (user, profile,
 * organization), what their approval or rejection does, and, when no policy allows the request, that a root quorum
 * vote overrides the policies. The list row's reading and main's confirmation of the vote say the same words, through
 * the real composition root and the Sandbox, voting as a second profile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ETHEREUM_ACCOUNT } from '../support/valid-inputs';

let bed: DispatchBed;
let organizationName: string;
let sandboxProfileId: string;
let beaProfileId: string;
let walletCreation: string;
let signing: string;

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

/** The queue's item of `activityId` as the active profile reads it. */
async function pendingItem(activityId: string) {
  const item = (await call('approvals.pending', {})).find((entry) => entry.activityId === activityId);
  if (item === undefined) throw new Error(`activity ${activityId} does not wait for votes`);
  return item;
}

async function asProfile(profileId: string): Promise<void> {
  await bed.services.profiles.setActive(profileId);
}

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-vote-reading-' });
  await call('sandbox.start', {});
  bed.answerConfirmations(true);
  const wallet = await call('wallets.create', { name: 'Treasury', accounts: [ETHEREUM_ACCOUNT] });
  if (wallet.state !== 'completed') throw new Error(`the wallet is ${wallet.state}`);
  await call('keys.generateApiKey', { name: 'bea' });
  const bea = await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } });
  if (bea.state !== 'completed') throw new Error(`Bea is ${bea.state}`);
  const root = await call('approvals.whoami', {});
  organizationName = root.organizationName;
  // Creating wallets is allowed by a policy once two approve; signing is allowed by none.
  await call('policies.create', {
    name: 'Two create wallets',
    effect: 'EFFECT_ALLOW',
    condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'",
    consensus: 'approvers.count() >= 2',
    notes: '',
  });
  await call('organization.updateRootQuorum', { userIds: [root.userId, bea.result.userId], threshold: 2 });
  const sandbox = (await bed.services.profiles.getActive())!;
  sandboxProfileId = sandbox.id;
  const { id: _id, name: _name, apiKeyName: _key, ...rest } = sandbox;
  beaProfileId = (await bed.services.profiles.add({ ...rest, name: 'Bea', apiKeyName: 'bea' })).id;

  const proposed = await call('wallets.create', { name: 'Reserve', accounts: [ETHEREUM_ACCOUNT] });
  if (proposed.state !== 'consensus-needed') throw new Error(`the wallet creation is ${proposed.state}`);
  walletCreation = proposed.activity.id;
  const signed = await call('signing.submit', {
    request: {
      operation: 'sign_raw_payload',
      signWith: wallet.result.addresses[0]!,
      payload: 'pay the auditors',
      encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
      hashFunction: 'HASH_FUNCTION_KECCAK256',
    },
  });
  if (signed.state !== 'consensus-needed') throw new Error(`the signing request is ${signed.state}`);
  signing = signed.activity.id;
  await asProfile(beaProfileId);
});

afterAll(() => bed.close());

describe('the vote reading of a second profile', () => {
  it('names who votes where, what the approval and the rejection do, for an activity a policy allows', async () => {
    const item = await pendingItem(walletCreation);
    const { reading } = item;
    expect(item.proposer).toBe('Root user');
    expect(reading.vote).toMatchObject({
      voter: `Bea (profile Bea) in ${organizationName}`,
      proposer: 'Root user',
      proposedByViewer: false,
      approvals: 1,
      required: 2,
      progress: '1 of 2 approved',
      verdict: 'policy "Two create wallets" matches and waits for its consensus',
      viewerCompletes: true,
      approveDoes: 'your approval completes it: the service then carries it out (Create a wallet)',
      rejectDoes: 'your rejection ends it: it will not run',
      warnings: [],
    });
  });

  it('says a signing request is signed by the service and not broadcast, and that the vote overrides every policy', async () => {
    const { reading } = await pendingItem(signing);
    expect(reading.vote?.approveDoes).toMatch(
      /^your approval completes it: the service signs this payload with Treasury.*; QuorumKey does not broadcast it$/,
    );
    expect(reading.vote?.verdict).toBe('no policy matches; the root quorum decides');
    expect(reading.vote?.warnings).toEqual([
      'No policy of this organization allows this request: your approval is a root quorum vote, which overrides every policy. Approve only if the organization means to make an exception.',
    ]);
  });

  it("main's confirmation of the vote restates the same reading, the override warning first", async () => {
    bed.answerConfirmations(false);
    const before = bed.confirmations.length;
    const { fingerprint } = await pendingItem(signing);
    expect(await bed.dispatch('approvals.approve', { fingerprint })).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    expect(await bed.dispatch('approvals.reject', { fingerprint })).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    const [approval, rejection] = bed.confirmations.slice(before);
    const { reading } = await pendingItem(signing);
    expect(approval?.message).toContain(`as Bea (profile Bea) in ${organizationName}?`);
    expect(approval?.detail).toContain(`Voting as: Bea (profile Bea) in ${organizationName}`);
    expect(approval?.detail).toContain(`This vote: ${reading.vote?.approveDoes}`);
    expect(approval?.reading?.warnings[0]).toBe(reading.vote?.warnings[0]);
    expect(rejection?.detail).toContain('This vote: your rejection ends it: it will not run');
    // A rejection overrides nothing: the warning is the approval's.
    expect(rejection?.reading?.warnings).not.toContain(reading.vote?.warnings[0]);
  });

  it("the inbox's rows say what the Approvals screen says: its summary and warnings, waiting items first", async () => {
    await bed.services.inbox.check();
    const { profiles, waitingForMe } = await call('inbox.list', {});
    const bea = profiles.find((profile) => profile.profileId === beaProfileId)!;
    const { reading } = await pendingItem(signing);
    const row = bea.items.find((item) => item.activityId === signing)!;
    expect(row.title).toBe(reading.title);
    expect(row.summary).toBe(reading.summary);
    expect(row.warnings[0]).toBe(reading.vote?.warnings[0]);
    expect(row).toMatchObject({ waitingForMe: true, completesIt: true, progress: reading.vote?.progress, requester: reading.vote?.proposer });
    // The proposer's own rows wait for nobody on this desktop but Bea: they come after hers and are not counted.
    const root = profiles.find((profile) => profile.profileId === sandboxProfileId)!;
    expect(root.items.every((item) => !item.waitingForMe && item.proposedByMe)).toBe(true);
    expect(waitingForMe).toBe(bea.items.filter((item) => item.waitingForMe).length);
    expect(bea.items.map((item) => item.waitingForMe)).toEqual([...bea.items.map((item) => item.waitingForMe)].sort((a, b) => Number(b) - Number(a)));
  });

  it('reads the proposer as having voted: another approval of theirs counts for nothing', async () => {
    await asProfile(sandboxProfileId);
    const { reading } = await pendingItem(walletCreation);
    expect(reading.vote).toMatchObject({
      voter: `Root user (profile Sandbox) in ${organizationName}`,
      proposedByViewer: true,
      viewerVote: 'approved',
      approveDoes: 'you approved it already: another approval from you does not count',
    });
    await asProfile(beaProfileId);
  });

  it("names each history entry's proposer in main, decided or waiting, for the window's requester filter", async () => {
    const history = await call('activities.list', {});
    const waiting = history.find((activity) => activity.id === walletCreation);
    expect(waiting?.proposer).toBe(waiting?.reading.vote?.proposer);
    const decided = history.filter((activity) => activity.status === 'ACTIVITY_STATUS_COMPLETED');
    expect(decided.length).toBeGreaterThan(0);
    // A decided entry has no vote reading; its proposer is still main's, from its first vote.
    expect(decided.map((activity) => [activity.reading.vote, activity.proposer])).toEqual(decided.map(() => [undefined, 'Root user']));
  });
});
