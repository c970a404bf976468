/**
 * A profile votes with a security key, against a real Sandbox over main's real composition root: Bea adds a key
 * (made by Chromium's virtual FIDO2 authenticator on main's passkey page, registered with create_authenticators),
 * then approves a root activity; the vote travels as X-Stamp-WebAuthn, the service counts it as her passkey's, and
 * the journal names the passkey. Her reads still go out stamped with her API key.
 */
import { chromium, type Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { WEBAUTHN_STAMP_SCHEME } from '../../src/service/auth/webauthn-stamp';
import { findChromium } from '../support/chromium';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ETHEREUM_ACCOUNT } from '../support/valid-inputs';
import { virtualSecurityKey, type VirtualSecurityKey } from '../support/virtual-authenticator';

let browser: Browser;
let key: VirtualSecurityKey;
let bed: DispatchBed;
/** The stamp header each request to the service carried, by path. */
const stamps: { path: string; header: 'X-Stamp' | 'X-Stamp-WebAuthn' }[] = [];
const recordingFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  stamps.push({
    path: new URL(input instanceof Request ? input.url : String(input)).pathname,
    header: headers.has('X-Stamp-WebAuthn') ? 'X-Stamp-WebAuthn' : 'X-Stamp',
  });
  return fetch(input, init);
};

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

function completed<T extends { state: string }>(outcome: T): Extract<T, { state: 'completed' }> {
  if (outcome.state !== 'completed') throw new Error(`expected a completed activity, got ${outcome.state}`);
  return outcome as Extract<T, { state: 'completed' }>;
}

let beaId: string;
let waiting: { fingerprint: string; id: string };

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  key = await virtualSecurityKey(await browser.newContext());
  bed = await startDispatchBed({ dataDirPrefix: 'qk-passkey-vote-', fetch: recordingFetch, openPasskeyPage: key.openPasskeyPage });
  await call('sandbox.start', {});
  await call('keys.generateApiKey', { name: 'bea' });
  beaId = completed(await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } })).result.userId;
  const rootUserId = (await call('approvals.whoami', {})).userId;
  completed(await call('organization.updateRootQuorum', { userIds: [rootUserId, beaId], threshold: 2 }));
  const reserve = await call('wallets.create', { name: 'Reserve', accounts: [ETHEREUM_ACCOUNT] });
  expect(reserve.state).toBe('consensus-needed');
  waiting = { fingerprint: reserve.activity.fingerprint, id: reserve.activity.id };
  const bea = await bed.addSandboxProfile('Bea', 'bea');
  await call('profiles.setActive', { id: bea.id });
}, 120_000);

afterAll(async () => {
  await bed?.close();
  await browser?.close();
});

describe('a profile that votes with a security key', () => {
  it('adds the key on main’s page, registered for its own user, and keeps it', async () => {
    const added = completed(await call('users.addPasskey', { name: 'yk-5' }));
    const [registration] = key.shown;
    expect(registration?.heading).toBe('Add a security key to vote with');
    expect(registration?.reading).toContain('A new security key named "yk-5" for user "Bea"');
    expect(registration?.url).toMatch(/^http:\/\/localhost:\d+\/passkey\//);
    const profile = await call('profiles.getActive', {});
    expect(profile?.passkey).toMatchObject({ name: 'yk-5', authenticatorId: added.result.authenticatorIds[0] });
    const [credential] = await key.credentials();
    expect(Buffer.from(credential!.credentialId, 'base64').toString('base64url')).toBe(profile?.passkey?.credentialId);
    const { credentials } = await call('users.credentials', { userId: beaId });
    expect(credentials.map((entry) => entry.name)).toContain('yk-5');
  });

  it('votes with it after the confirmation: the page restates the reading and the body fingerprint', async () => {
    const before = stamps.length;
    const confirmationsBefore = bed.confirmations.length;
    const decided = await call('approvals.approve', { fingerprint: waiting.fingerprint });
    expect(decided.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(bed.confirmations.length).toBe(confirmationsBefore + 1);
    const voting = key.shown.at(-1)!;
    expect(voting.heading).toMatch(/^Vote with security key "yk-5"/);
    expect(voting.reading).toContain(bed.confirmations.at(-1)!.message);
    expect(voting.bodyFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The vote alone went out as a passkey's stamp; the reads around it with the API key.
    const sent = stamps.slice(before);
    expect(sent.filter((stamp) => stamp.header === 'X-Stamp-WebAuthn').map((stamp) => stamp.path)).toEqual(['/public/v1/submit/approve_activity']);
    expect(sent.some((stamp) => stamp.header === 'X-Stamp' && stamp.path.startsWith('/public/v1/query/'))).toBe(true);
  });

  it('is counted by the service as Bea’s passkey vote, and journaled with the passkey', async () => {
    const profile = await call('profiles.getActive', {});
    const { activity } = await (await bed.services.active.services()).client.query('get_activity', { activityId: waiting.id });
    const vote = activity.votes.find((candidate) => candidate.userId === beaId);
    expect(vote).toMatchObject({ selection: 'VOTE_SELECTION_APPROVED', scheme: WEBAUTHN_STAMP_SCHEME, publicKey: profile?.passkey?.credentialId });
    const { entries } = await call('journal.list', { action: 'vote.approved' });
    const entry = entries.find((candidate) => candidate.action === 'vote.approved' && candidate.activityId === waiting.id);
    expect(entry?.credential).toMatchObject({
      kind: 'passkey',
      credentialId: profile?.passkey?.credentialId,
      publicKey: profile?.passkey?.publicKey,
    });
    expect(entry?.userId).toBe(beaId);
  });
});
