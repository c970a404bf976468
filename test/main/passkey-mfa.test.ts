/**
 * A passkey step of an MFA policy, against a real Sandbox over main's real composition root: Bea's MFA policy asks
 * her security key (made by Chromium's virtual FIDO2 authenticator on main's passkey page) for every signing request.
 * Her request waits in ACTIVITY_STATUS_AUTHENTICATORS_NEEDED; main's reading says her profile's key meets the step;
 * an approval stamped with her API key is refused, and the app's approval, stamped with the passkey, completes it.
 */
import { chromium, type Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { findChromium } from '../support/chromium';
import { completed } from '../support/completed-outcome';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ETHEREUM_ACCOUNT } from '../support/valid-inputs';
import { virtualSecurityKey, type VirtualSecurityKey } from '../support/virtual-authenticator';

let browser: Browser;
let key: VirtualSecurityKey;
let bed: DispatchBed;
let signRequest: { fingerprint: string; id: string };
let beaApiKeyOnly: ApiClient;

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  key = await virtualSecurityKey(await browser.newContext());
  bed = await startDispatchBed({ dataDirPrefix: 'qk-passkey-mfa-', openPasskeyPage: key.openPasskeyPage });
  await call('sandbox.start', {});
  const root = (await bed.services.active.services()).client;
  await call('keys.generateApiKey', { name: 'bea' });
  const beaId = completed(await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } })).result.userId;
  const reserve = completed(await call('wallets.create', { name: 'Reserve', accounts: [ETHEREUM_ACCOUNT] }));
  // Bea may sign on her own; her MFA policy then asks her security key for it.
  await root.submit('create_policy', {
    policyName: 'Bea signs',
    effect: 'EFFECT_ALLOW',
    condition: "activity.action == 'SIGN'",
    consensus: `approvers.any(user, user.id == '${beaId}')`,
    notes: '',
  });
  const bea = await bed.addSandboxProfile('Bea', 'bea');
  await call('profiles.setActive', { id: bea.id });
  const [authenticatorId] = completed(await call('users.addPasskey', { name: 'yk-5' })).result.authenticatorIds;
  await root.submit('create_mfa_policy', {
    userId: beaId,
    mfaPolicyName: 'Signing with the key',
    condition: "activity.action == 'SIGN'",
    requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_PASSKEY', id: authenticatorId! }] }],
    order: '0',
  });
  // Bea's API key alone, as a tool without her passkey would stamp.
  beaApiKeyOnly = new ApiClient({
    profile: { baseUrl: bea.baseUrl, organizationId: bea.organizationId, apiKeyName: 'bea' },
    stamper: new Stamper(bed.services.keychain),
  });
  const proposed = await beaApiKeyOnly.submit('sign_raw_payload', {
    signWith: reserve.result.addresses[0]!,
    payload: 'pay the auditors',
    encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
    hashFunction: 'HASH_FUNCTION_KECCAK256',
  });
  expect(proposed.activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
  signRequest = { fingerprint: proposed.activity.fingerprint, id: proposed.activity.id };
}, 120_000);

afterAll(async () => {
  await bed?.close();
  await browser?.close();
});

describe('an MFA policy that asks for a security key', () => {
  it("reads the profile's passkey as meeting the step", async () => {
    const pending = await call('approvals.pending', {});
    const step = pending.find((item) => item.fingerprint === signRequest.fingerprint)?.reading.vote?.authenticators;
    expect(step).toMatchObject({
      headline: 'Needs your security key',
      approveLabel: 'Approve with your security key…',
      heldHere: true,
      credential: 'the security key "yk-5" of Bea',
    });
    expect(step?.approvalIs).toBe('This approval is your security key step of MFA policy "Signing with the key"; 1 of 1 steps');
  });

  it('refuses an approval stamped with the API key', async () => {
    await expect(beaApiKeyOnly.submit('approve_activity', { fingerprint: signRequest.fingerprint })).rejects.toMatchObject({
      code: 'AUTHENTICATOR_NOT_ACCEPTED',
    });
  });

  it("completes on the app's approval, stamped with the passkey", async () => {
    const decided = await call('approvals.approve', { fingerprint: signRequest.fingerprint });
    expect(decided.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(key.shown.at(-1)?.heading).toMatch(/^Vote with security key "yk-5"/);
    expect(bed.confirmations.at(-1)?.detail).toContain('This vote: This approval is your security key step of MFA policy "Signing with the key"');
    expect(bed.confirmations.at(-1)?.detail).toContain('Signed with: security key "yk-5"');
  });
});
