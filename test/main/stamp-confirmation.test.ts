/**
 * Main stamps an activity or a vote only once a person confirmed main's reading on its own surface. Every channel of
 * the IPC contract is called from the page, over the real composition root and the Sandbox, while the person answers
 * Cancel: no activity submission may reach the service and no stamped file may be written, whichever channel it is.
 * The channels are enumerated from the contract (with one valid input each), so a new channel that stamps without
 * asking fails here. Then: a lock-out refused with its reason, and a root quorum change read before → after.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBMIT_PREFIX } from '../../src/shared/api';
import { channels, type Channel, type ChannelInput, type ChannelOutput } from '../../src/shared/ipc/contract';
import { STAMPED_REQUESTS_DIR } from '../../src/main/services';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ETHEREUM_ACCOUNT, validInputs } from '../support/valid-inputs';

let bed: DispatchBed;
/** Every URL a profile's client sent a request to. */
const sent: string[] = [];
const recordingFetch: typeof fetch = (input, init) => {
  sent.push(input instanceof Request ? input.url : String(input));
  return fetch(input, init);
};

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

function completed<T extends { state: string }>(outcome: T): Extract<T, { state: 'completed' }> {
  if (outcome.state !== 'completed') throw new Error(`expected a completed activity, got ${outcome.state}`);
  return outcome as Extract<T, { state: 'completed' }>;
}

/** Channels that stop the Sandbox or lock the app: walked last, so the others still reach a running service. */
const LAST: readonly Channel[] = ['sandbox.stop', 'sandbox.reset', 'app.setUnlockPassphrase', 'app.lock'];

let rootUserId: string;
let beaId: string;
let pending: { fingerprint: string; id: string };
let walletId: string;
let address: string;
/** An export sealed to a one-time key, waiting for Bea: withdrawing it asks on main's surface too. */
let exportWaiting: string;

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-stamp-confirm-', fetch: recordingFetch });
  await call('sandbox.start', {});
  // Set up with the person going ahead: a wallet, a second root quorum member, then an activity waiting for both.
  const wallet = completed(await call('wallets.create', { name: 'Treasury', accounts: [ETHEREUM_ACCOUNT] })).result;
  walletId = wallet.walletId;
  address = wallet.addresses[0]!;
  await call('keys.generateApiKey', { name: 'bea' });
  beaId = completed(await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } })).result.userId;
  rootUserId = (await call('approvals.whoami', {})).userId;
  completed(await call('organization.updateRootQuorum', { userIds: [rootUserId, beaId], threshold: 2 }));
  const waiting = await call('wallets.create', { name: 'Reserve', accounts: [ETHEREUM_ACCOUNT] });
  expect(waiting.state).toBe('consensus-needed');
  pending = { fingerprint: waiting.activity.fingerprint, id: waiting.activity.id };
  const asked = await call('exports.reveal', { subject: { kind: 'wallet', walletId }, target: { kind: 'ephemeral' } });
  if (asked.state !== 'consensus-needed') throw new Error(`the export is ${asked.state}`);
  exportWaiting = asked.activity.id;
});

afterAll(() => bed.close());

describe('governance', () => {
  it('refuses, with the reason and before any question, removing the key this profile signs with or the last credential of a quorum member', async () => {
    bed.answerConfirmations(true);
    const before = bed.confirmations.length;
    const { users } = await call('organization.lookup', {});
    const root = users.find((user) => user.userId === rootUserId)!;
    const bea = users.find((user) => user.userId === beaId)!;
    expect(await bed.dispatch('users.removeApiKeys', { userId: rootUserId, apiKeyIds: [root.apiKeys[0]!.apiKeyId] })).toMatchObject({
      ok: false,
      error: {
        code: 'FAILED_PRECONDITION',
        message: expect.stringMatching(/the key profile "Sandbox" signs with: QuorumKey could no longer act for that profile/),
      },
    });
    expect(await bed.dispatch('users.removeApiKeys', { userId: beaId, apiKeyIds: [bea.apiKeys[0]!.apiKeyId] })).toMatchObject({
      ok: false,
      error: {
        code: 'FAILED_PRECONDITION',
        message: expect.stringMatching(/the last credential of Bea, a member of the root quorum \(2 of 2\), who could never vote again/),
      },
    });
    expect(await bed.dispatch('users.delete', { userIds: [rootUserId] })).toMatchObject({
      ok: false,
      error: { code: 'FAILED_PRECONDITION', message: expect.stringMatching(/deletes Root user, the user profile "Sandbox" signs as/) },
    });
    expect(bed.confirmations.length).toBe(before);
  });

  it('shows a root quorum change with its members and threshold before → after, and the votes it still needs', async () => {
    bed.answerConfirmations(false);
    const before = bed.confirmations.length;
    const refused = await bed.dispatch('organization.updateRootQuorum', { userIds: [rootUserId], threshold: 1 });
    expect(refused).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    const [shown] = bed.confirmations.slice(before);
    expect(shown?.title).toBe('Submit: Change the root quorum?');
    expect(shown?.reading).toMatchObject({ action: 'submit', activityType: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM' });
    expect(shown?.detail).toContain('Members: Root user, Bea → Root user');
    expect(shown?.detail).toContain('Approvals needed: 2 of 2 → 1 of 1');
    expect(shown?.detail).toContain('Policy verdict: no policy matches; the root quorum decides');
    expect(shown?.detail).toContain('After this one it still needs: no policy allows it: needs 1 more root quorum approval');
  });
});

describe('every channel from the page, with the person answering Cancel', () => {
  it('stamps nothing: no submission reaches the service and no stamped file is written', async () => {
    const bea = (await call('organization.lookup', {})).users.find((user) => user.userId === beaId)!;
    const sandboxProfile = (await call('profiles.getActive', {}))!;
    // Inputs that name what exists, so a channel that skipped the confirmation would really stamp.
    const real: { [C in Channel]?: ChannelInput<C> } = {
      'approvals.approve': { fingerprint: pending.fingerprint },
      'approvals.reject': { fingerprint: pending.fingerprint },
      'approvals.stampToFile': { fingerprint: pending.fingerprint, file: 'approval.json' },
      'inbox.vote': { profileId: sandboxProfile.id, fingerprint: pending.fingerprint, vote: 'approve' },
      'signing.submit': {
        request: {
          operation: 'sign_raw_payload',
          signWith: address,
          payload: 'hello',
          encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
          hashFunction: 'HASH_FUNCTION_KECCAK256',
        },
      },
      'signing.stampToFile': {
        request: {
          operation: 'sign_raw_payload',
          signWith: address,
          payload: 'hello',
          encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
          hashFunction: 'HASH_FUNCTION_KECCAK256',
        },
        file: 'sign-1.json',
      },
      'organization.updateRootQuorum': { userIds: [rootUserId], threshold: 1 },
      'users.delete': { userIds: [beaId] },
      'users.setTags': { userId: beaId, tagIds: [validInputs['users.setTags'].userId] },
      'users.createTag': { tagName: 'ops', userIds: [beaId] },
      'users.addApiKey': { userId: beaId, apiKey: { kind: 'public-key', apiKeyName: 'bea 2', publicKey: '02' + 'ab'.repeat(32), curve: 'p256' } },
      'users.removeApiKeys': { userId: beaId, apiKeyIds: [bea.apiKeys[0]!.apiKeyId] },
      'wallets.createAccounts': { walletId, accounts: [{ ...ETHEREUM_ACCOUNT, path: "m/44'/60'/0'/0/1" }] },
      'exports.reveal': { subject: { kind: 'wallet', walletId }, target: { kind: 'ephemeral' } },
      'exports.withdraw': { activityId: exportWaiting },
    };
    bed.answerConfirmations(false);
    // Walked last in this file: it stops the Sandbox and locks the app at its end.
    const asked = new Set<Channel>();
    const order = [...channels.filter((name) => !LAST.includes(name)), ...LAST];
    expect(new Set(order)).toEqual(new Set(channels));
    for (const name of order) {
      const before = { sent: sent.length, confirmations: bed.confirmations.length };
      const result = await bed.dispatch(name, real[name] ?? validInputs[name]);
      const submitted = sent.slice(before.sent).filter((url) => new URL(url).pathname.startsWith(SUBMIT_PREFIX));
      expect(submitted, `${name} sent an activity to the service without a person's confirmation`).toEqual([]);
      if (bed.confirmations.length > before.confirmations) {
        asked.add(name);
        expect(result, `${name} went on although the person cancelled`).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
      }
    }
    expect(await readdir(join(bed.dataDir, STAMPED_REQUESTS_DIR)).catch(() => [])).toEqual([]);
    // The channels whose input named something real all reached the confirmation, and stopped there.
    expect([...asked].sort()).toEqual(
      expect.arrayContaining([
        'approvals.approve',
        'approvals.reject',
        'approvals.stampToFile',
        'exports.reveal',
        'exports.withdraw',
        'organization.updateRootQuorum',
        'policies.create',
        'policies.mfaCreate',
        'privateKeys.create',
        'signing.stampToFile',
        'signing.submit',
        'users.addApiKey',
        'users.create',
        'users.createTag',
        'users.setTags',
        'wallets.create',
        'wallets.createAccounts',
      ]),
    );
  });
});
