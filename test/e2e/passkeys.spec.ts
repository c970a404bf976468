/**
 * A security key votes, through the e2e host, with Chromium's virtual FIDO2 authenticator on a second page standing
 * in for main's passkey window: Bea adds a key on the Keys screen, then approves a wallet on the Approvals screen;
 * the touch happens on main's page only after the person went ahead at main's confirmation, and the service counts
 * the vote as her passkey's. The app's page cannot get an assertion by itself: its API offers none without main's
 * confirmation, and its origin cannot ask the authenticator for the credential. Then a key whose registration waits
 * for Bea's MFA step: the Keys screen says it is attached once approved, and it is once her desk key approves it
 * elsewhere; a signature waiting for her security key offers "Approve with your security key…", which completes it.
 * Last, a key that is not attached once its registration ended: every screen says which key, why and what to do.
 */
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { ApiClient } from '../../src/main/client/api-client';
import type { Profile } from '../../src/main/profiles/profiles';
import { Stamper } from '../../src/main/stamper/stamper';
import { WEBAUTHN_STAMP_SCHEME } from '../../src/service/auth/webauthn-stamp';
import type { E2eHost } from '../support/e2e-host';
import { virtualSecurityKey } from '../support/virtual-authenticator';
import { ETHEREUM_WALLET_ACCOUNT, openWaiting, voteDesk } from '../support/vote-scenario';
import { SCREENS_DIR, done, expect, screenshotBothThemes, test } from './fixtures';

// Setting up an organization through the Sandbox takes most of a minute on a loaded two-core machine.
test.describe.configure({ timeout: 180_000 });

/**
 * Gives Bea a second API key, "Bea desk" in this keychain, and an MFA policy under which her new credentials wait for
 * it; answers a client signing as Bea with that key, to approve them from elsewhere.
 */
async function deskKeyMfa(root: ApiClient, host: E2eHost, bea: Profile, beaId: string): Promise<ApiClient> {
  const deskKey = await host.services.keychain.generateApiKey({ name: 'Bea desk', curve: 'p256' });
  const [deskKeyId] = (
    await done(
      root.submit('create_api_keys', {
        userId: beaId,
        apiKeys: [{ apiKeyName: 'desk', publicKey: deskKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
      }),
    )
  ).apiKeyIds;
  await done(
    root.submit('create_mfa_policy', {
      userId: beaId,
      mfaPolicyName: 'Keys from the desk',
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2'",
      requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_API_KEY', id: deskKeyId! }] }],
      order: '0',
    }),
  );
  return new ApiClient({ profile: { ...bea, apiKeyName: 'Bea desk' }, stamper: new Stamper(host.services.keychain) });
}

/** As Bea, on the Keys screen, asks to add a security key named `name`; answers the screen's security key panel. */
async function addSecurityKey(page: Page, host: E2eHost, bea: Profile, name: string): Promise<Locator> {
  await host.services.profiles.setActive(bea.id);
  await page.reload();
  await page.getByText(`Profile: ${bea.name}`).waitFor();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Keys' }).click();
  const panel = page.getByRole('region', { name: 'Security key to vote with' });
  await panel.getByLabel('Key name').fill(name);
  await panel.getByRole('button', { name: 'Add a security key to vote with' }).click();
  return panel;
}

test('Bea adds a security key, votes with it on main’s page, and the vote counts as her passkey’s', async ({ page, host }) => {
  const key = await virtualSecurityKey(page.context());
  host.showPasskeyPages(key.openPasskeyPage);
  const { root, rootUserId, userIds, profiles } = await voteDesk(page, host, ['Bea']);
  const [beaId] = userIds;
  const bea = profiles[0]!;
  const quorum = await root.submit('update_root_quorum', { threshold: 2, userIds: [rootUserId, beaId!] });
  expect(quorum.state).toBe('completed');

  // On the Keys screen, as Bea: the key is made on main's page and registered for her user.
  const panel = await addSecurityKey(page, host, bea, 'yk-5');
  await expect(panel.getByText('votes with security key')).toBeVisible({ timeout: 60_000 });
  expect(key.shown.map((shown) => shown.heading)).toEqual(['Add a security key to vote with']);
  const passkey = (await host.services.profiles.get(bea.id)).passkey!;
  expect(passkey.name).toBe('yk-5');

  // The root proposes a wallet; Bea approves it on the Approvals screen.
  const proposed = await root.submit('create_wallet', { walletName: 'Reserve', accounts: [ETHEREUM_WALLET_ACCOUNT] });
  expect(proposed.state).toBe('consensus-needed');
  await openWaiting(page, host, bea, 'Create a wallet');
  host.answerConfirmations('wait');
  await page.getByRole('button', { name: 'Approve…' }).click();
  const confirmation = await host.nextConfirmation();
  // Nothing asks the key before the person went ahead on main's surface.
  expect(key.shown).toHaveLength(1);
  confirmation.answer(true);
  await page.getByRole('status', { name: 'Your vote' }).filter({ hasText: 'Approved' }).waitFor();
  const voting = key.shown[1]!;
  expect(voting.heading).toMatch(/^Vote with security key "yk-5"/);
  expect(voting.reading).toContain(confirmation.request.message);
  expect(voting.bodyFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);

  // The service counted it as Bea's passkey's vote, and the activity ran.
  const { activity } = await root.query('get_activity', { activityId: proposed.activity.id });
  expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  expect(activity.votes.find((vote) => vote.userId === beaId)).toMatchObject({
    selection: 'VOTE_SELECTION_APPROVED',
    scheme: WEBAUTHN_STAMP_SCHEME,
    publicKey: passkey.credentialId,
  });

  // Main's passkey page as the person saw it, in both themes: it restates the confirmation's reading.
  await mkdir(SCREENS_DIR, { recursive: true });
  for (const theme of ['light', 'dark'] as const) {
    await key.page.emulateMedia({ colorScheme: theme });
    await key.page.screenshot({ path: join(SCREENS_DIR, `passkey-vote-${theme}.png`) });
  }

  // The page alone: its API stamps no vote without main's confirmation, so the key is never asked.
  const again = await root.submit('create_wallet', { walletName: 'Spare', accounts: [ETHEREUM_WALLET_ACCOUNT] });
  expect(again.state).toBe('consensus-needed');
  host.answerConfirmations('cancel');
  const declined = await page.evaluate(
    (fingerprint) =>
      window.quorumkey.approvals.approve({ fingerprint }).then(
        () => 'approved',
        (error: { code: string }) => error.code,
      ),
    again.activity.fingerprint,
  );
  expect(declined).toBe('USER_DECLINED');
  expect(key.shown).toHaveLength(2);

  // And its origin cannot ask an authenticator for the credential: the relying party is main's localhost page.
  const asked = await page.evaluate(async (credentialId) => {
    const id = Uint8Array.from(atob(credentialId.replace(/-/g, '+').replace(/_/g, '/')), (character) => character.charCodeAt(0));
    try {
      await navigator.credentials.get({
        publicKey: { rpId: 'localhost', challenge: new Uint8Array(32), allowCredentials: [{ type: 'public-key', id }], timeout: 5_000 },
      });
      return 'answered';
    } catch (error) {
      return (error as Error).name;
    }
  }, passkey.credentialId);
  expect(asked).toBe('SecurityError');
});

test('a key whose registration waits for an MFA step is attached once approved, then meets a security key step', async ({ page, host }) => {
  const key = await virtualSecurityKey(page.context());
  host.showPasskeyPages(key.openPasskeyPage);
  const { root, userIds, profiles } = await voteDesk(page, host, ['Bea']);
  const [beaId] = userIds as [string];
  const bea = profiles[0]!;
  const wallet = await done(root.submit('create_wallet', { walletName: 'Treasury', accounts: [ETHEREUM_WALLET_ACCOUNT] }));
  // Bea's new credentials wait for her desk key.
  const desk = await deskKeyMfa(root, host, bea, beaId);
  await done(
    root.submit('create_policy', {
      policyName: 'Bea signs',
      effect: 'EFFECT_ALLOW',
      condition: "activity.action == 'SIGN'",
      consensus: `approvers.any(user, user.id == '${beaId}')`,
      notes: '',
    }),
  );

  const panel = await addSecurityKey(page, host, bea, 'yk-7');
  const waiting = panel.getByRole('status').filter({ hasText: 'waits for approvals' });
  await expect(waiting).toContainText('QuorumKey attaches it to this profile', { timeout: 60_000 });
  expect((await host.services.profiles.get(bea.id)).passkey).toBeUndefined();
  await screenshotBothThemes(page, 'passkey-registration-waiting', panel);

  // Her desk key approves it elsewhere; the feed's next look at her profile attaches the key the service recorded.
  const [registration] = (await desk.query('list_activities', { filterByStatus: ['ACTIVITY_STATUS_AUTHENTICATORS_NEEDED'] })).activities;
  await done(desk.submit('approve_activity', { fingerprint: registration!.fingerprint }));
  await expect(panel.getByText('votes with security key yk-7')).toBeVisible({ timeout: 30_000 });
  await expect(waiting).toHaveCount(0);
  await screenshotBothThemes(page, 'passkey-registration-attached', panel);

  // Once she has it, her signatures wait for a security key: one she proposes with her API key, and the button says so.
  await done(
    root.submit('create_mfa_policy', {
      userId: beaId,
      mfaPolicyName: 'Signing with the key',
      condition: "activity.action == 'SIGN'",
      requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_PASSKEY' }] }],
      order: '1',
    }),
  );
  const proposed = await new ApiClient({ profile: bea, stamper: new Stamper(host.services.keychain) }).submit('sign_raw_payload', {
    signWith: wallet.addresses[0]!,
    payload: 'pay the auditors',
    encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
    hashFunction: 'HASH_FUNCTION_KECCAK256',
  });
  expect(proposed.activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Approvals', exact: true }).click();
  const row = page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem').filter({ hasText: 'Needs your security key' });
  await row.getByRole('button').first().click();
  const step = page.getByRole('region', { name: 'Needs your security key' });
  const approve = step.getByRole('button', { name: 'Approve with your security key…' });
  await expect(approve).toBeVisible();
  await screenshotBothThemes(page, 'mfa-security-key-needed', step);
  host.answerConfirmations('wait');
  await approve.click();
  (await host.nextConfirmation()).answer(true);
  await expect(page.getByRole('status', { name: 'Your vote' })).toContainText('is done', { timeout: 60_000 });
  const { activity } = await root.query('get_activity', { activityId: proposed.activity.id });
  expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
});

test('a key not attached once its registration ended is told on every screen: which key, why, what to do', async ({ page, host }) => {
  const key = await virtualSecurityKey(page.context());
  host.showPasskeyPages(key.openPasskeyPage);
  const { root, userIds, profiles } = await voteDesk(page, host, ['Bea']);
  const [beaId] = userIds as [string];
  const bea = profiles[0]!;
  const desk = await deskKeyMfa(root, host, bea, beaId);
  const panel = await addSecurityKey(page, host, bea, 'yk-<b>8</b>');
  await expect(panel.getByRole('status').filter({ hasText: 'waits for approvals' })).toBeVisible({ timeout: 60_000 });

  // This desktop remembers another credential than the one the service will record: once approved, it is not attached.
  const made = await host.services.pendingPasskeys.of(bea.id);
  await host.services.pendingPasskeys.add({ ...made!, credentialId: 'AAAAAAAAAAAAAAAAAAAAAA' });
  const [registration] = (await desk.query('list_activities', { filterByStatus: ['ACTIVITY_STATUS_AUTHENTICATORS_NEEDED'] })).activities;
  await done(desk.submit('approve_activity', { fingerprint: registration!.fingerprint }));

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Wallets' }).click();
  const notice = page.getByRole('status', { name: 'Security key not added' });
  await expect(notice).toContainText(`Security key "yk-<b>8</b>" was not added to profile "${bea.name}"`, { timeout: 30_000 });
  await expect(notice).toContainText('the service recorded another credential for it than the one this key made');
  await expect(notice).toContainText('Check the user’s credentials under Users');
  // The name is text, never markup.
  await expect(notice.locator('b')).toHaveCount(0);
  expect((await host.services.profiles.get(bea.id)).passkey).toBeUndefined();
  await screenshotBothThemes(page, 'passkey-registration-not-attached', notice);

  await notice.getByRole('button', { name: 'Open Keys' }).click();
  await expect(panel).toBeVisible();
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notice).toHaveCount(0);
  expect(await host.services.pendingPasskeys.ended()).toEqual([]);
});
