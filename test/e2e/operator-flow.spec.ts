/**
 * An operator's day on the Sandbox with three profiles of one organization, through the screens only: users and a
 * root quorum set up on the Users screen; a quorum change read by another member as before → after with names; a
 * policy change read as a diff; an export approved, opened from its approval, saved to a file and read by the offline
 * Decrypt screen with the organization and key chosen from it; the list of who may still vote shrinking as votes come.
 */
import type { Page } from '@playwright/test';
import type { E2eHost } from '../support/e2e-host';
import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

async function switchProfile(page: Page, host: E2eHost, profileId: string, name: string): Promise<void> {
  await host.services.profiles.setActive(profileId);
  await page.reload();
  await expect(page.getByText(`Profile: ${name}`)).toBeVisible();
}

async function openPending(page: Page, title: string) {
  await openScreen(page, 'Approvals');
  await page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem').filter({ hasText: title }).getByRole('button').click();
  const card = page.getByRole('region', { name: title });
  await expect(card).toBeVisible();
  return card;
}

/** The page only asks; main's confirmation (answered by the host) is the one question, and names the activity. */
async function approve(page: Page, host: E2eHost, title: string): Promise<void> {
  const asked = host.confirmations.length;
  await page.getByRole('button', { name: 'Approve…' }).click();
  await expect.poll(() => host.confirmations.slice(asked).map((confirmation) => confirmation.title)).toEqual([`Approve: ${title}?`]);
}

test('two members set up a quorum, read changes as before → after, and take an export to the offline desktop', async ({ page, host }) => {
  test.setTimeout(180_000);
  const { organizationId, baseUrl, enclaveSignerPublicKey } = await startSandbox(page, host);
  const sandboxProfile = (await host.services.profiles.getActive())!;
  await host.handlers['keys.generateEncryptionKey']({ name: 'offline desk' });

  // The Users screen: two more operators, each with an API key made in this desktop's keychain, and a tag.
  await openScreen(page, 'Users');
  for (const name of ['Bea', 'Cy']) {
    const form = page.getByRole('form', { name: 'Create user' });
    await form.getByLabel('User name').fill(name);
    await form.getByLabel('API key name').fill(name.toLowerCase());
    await form.getByRole('button', { name: 'Create user' }).click();
    await expect(page.getByRole('status').filter({ hasText: `Create user ${name}: done.` })).toBeVisible();
  }
  const tagForm = page.getByRole('form', { name: 'Create tag' });
  await tagForm.getByLabel('Tag name').fill('operators');
  await tagForm.getByLabel('Bea').check();
  await tagForm.getByLabel('Cy').check();
  await tagForm.getByRole('button', { name: 'Create tag' }).click();
  const users = page.getByRole('table', { name: 'People and machines' });
  await expect(users.getByRole('row', { name: /Bea/ })).toContainText('operators');
  await expect(users.getByRole('row', { name: /Bea/ })).toContainText('bea');
  await screenshotBothThemes(page, 'users');
  // The row's dialogs end as every dialog form does: progress and error, then Cancel and the submit button.
  await users.getByRole('button', { name: 'Edit tags of Bea' }).click();
  const tags = page.getByRole('dialog', { name: 'Tags of Bea' });
  await tags.getByLabel('operators').uncheck();
  await expect(tags.getByRole('button', { name: 'Save tags' })).toBeDisabled();
  await screenshotBothThemes(page, 'users-tags-dialog');
  await tags.getByRole('button', { name: 'Cancel' }).click();
  await expect(tags).toHaveCount(0);
  await users.getByRole('button', { name: 'Add API key for Cy' }).click();
  const addKey = page.getByRole('dialog', { name: 'Add an API key for Cy' });
  await screenshotBothThemes(page, 'users-add-api-key-dialog');
  await addKey.getByRole('button', { name: 'Cancel' }).click();
  await expect(addKey).toHaveCount(0);

  // A 2-of-2 root quorum of the root user and Bea: the root alone still decides this one.
  const quorumForm = page.getByRole('form', { name: 'Change the root quorum' });
  await quorumForm.getByLabel('Bea').check();
  await quorumForm.getByLabel('Approvals needed').fill('2');
  await quorumForm.getByRole('button', { name: 'Propose this quorum' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Change the root quorum: done.' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Root quorum' })).toContainText('Now: 2 of 2 — Root user, Bea.');
  await screenshotBothThemes(page, 'root-quorum');

  const profiles: Record<string, string> = {};
  for (const name of ['Bea', 'Cy']) {
    profiles[name] = (
      await host.services.profiles.add({ name, kind: 'hosted', baseUrl, organizationId, apiKeyName: name.toLowerCase(), enclaveSignerPublicKey })
    ).id;
  }

  // Now the root proposes a 3-of-3 quorum with Cy: it waits for Bea, and says so.
  await page.getByRole('form', { name: 'Change the root quorum' }).getByLabel('Cy').check();
  await page.getByRole('form', { name: 'Change the root quorum' }).getByLabel('Approvals needed').fill('3');
  await page.getByRole('form', { name: 'Change the root quorum' }).getByRole('button', { name: 'Propose this quorum' }).click();
  const waiting = page.getByRole('status', { name: 'Waiting for votes' });
  await expect(waiting).toContainText('Waiting for votes: Change the root quorum');
  await expect(waiting).toContainText('Who may still vote: Bea (root quorum member).');
  await screenshotBothThemes(page, 'waiting-for-votes');

  // Bea reads it as before → after, with names.
  await switchProfile(page, host, profiles['Bea']!, 'Bea');
  const quorumCard = await openPending(page, 'Change the root quorum');
  const changes = quorumCard.getByRole('table', { name: 'What changes' });
  const members = changes.getByRole('row', { name: /Members/ }).getByRole('cell');
  await expect(members.nth(0)).toContainText('Root user');
  await expect(members.nth(0)).toContainText('Bea');
  await expect(members.nth(0)).not.toContainText('Cy');
  await expect(members.nth(1).locator('.ref-added')).toContainText('Cy (added)');
  await expect(changes.getByRole('row', { name: /Approvals needed/ })).toContainText('2 of 2');
  await expect(changes.getByRole('row', { name: /Approvals needed/ })).toContainText('3 of 3');
  await expect(quorumCard.getByRole('list', { name: 'Still to vote' }).getByRole('listitem')).toHaveText(['Bea · root quorum member']);
  await screenshotBothThemes(page, 'approval-root-quorum');
  await approve(page, host, 'Change the root quorum');
  await expect(page.getByRole('status', { name: 'Your vote' })).toHaveText(/Approved — Change the root quorum is done\./);

  // The root changes a policy; Bea sees the diff against the stored policy, and who may still vote shrinks per vote.
  await switchProfile(page, host, sandboxProfile.id, 'Sandbox');
  await openScreen(page, 'Policies');
  await page.getByRole('button', { name: 'New policy' }).click();
  const editor = page.getByRole('form', { name: 'New policy' });
  await editor.getByLabel('Name').fill('operators export');
  await editor.getByLabel('Condition').fill("activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'");
  await editor.getByLabel('Consensus').fill('approvers.count() >= 3');
  await editor.getByLabel('Notes').fill('exports need three');
  await editor.getByRole('button', { name: 'Create policy' }).click();
  await expect(page.getByRole('status', { name: 'Waiting for votes' })).toContainText(
    'Who may still vote: Bea (root quorum member), Cy (root quorum member).',
  );
  for (const [name, approvals] of [
    ['Bea', 'Approved — 2 approved so far; it still waits for votes.'],
    ['Cy', 'Approved — Create a policy is done.'],
  ] as const) {
    await switchProfile(page, host, profiles[name]!, name);
    const card = await openPending(page, 'Create a policy');
    await expect(card.getByRole('list', { name: 'Still to vote' }).getByRole('listitem')).toHaveText(
      name === 'Bea' ? ['Bea · root quorum member', 'Cy · root quorum member'] : ['Cy · root quorum member'],
    );
    await approve(page, host, 'Create a policy');
    await expect(page.getByRole('status', { name: 'Your vote' })).toHaveText(new RegExp(approvals.replace(/[.;]/g, '\\$&')));
  }

  await switchProfile(page, host, sandboxProfile.id, 'Sandbox');
  await openScreen(page, 'Policies');
  const row = page.getByRole('table', { name: 'Policies' }).getByRole('row', { name: /operators export/ });
  await row.getByRole('button', { name: 'Edit operators export' }).click();
  const update = page.getByRole('form', { name: 'Edit policy operators export' });
  await update.getByLabel('Consensus').fill('approvers.count() >= 2');
  await update.getByRole('button', { name: 'Review changes…' }).click();
  await page.getByRole('dialog', { name: 'Review the update' }).getByRole('button', { name: 'Submit update' }).click();
  await expect(page.getByRole('status', { name: 'Waiting for votes' })).toBeVisible();

  await switchProfile(page, host, profiles['Bea']!, 'Bea');
  const policyCard = await openPending(page, 'Change a policy');
  await expect(policyCard.getByRole('definition').filter({ hasText: 'operators export' }).first()).toBeVisible();
  const diff = policyCard.getByRole('table', { name: 'What changes' }).getByRole('row', { name: /Consensus/ });
  await expect(diff).toContainText('approvers.count() >= 3');
  await expect(diff).toContainText('approvers.count() >= 2');
  await expect(policyCard.getByRole('table', { name: 'What changes' }).getByRole('row')).toHaveCount(2);
  await screenshotBothThemes(page, 'approval-policy-diff');
  await approve(page, host, 'Change a policy');
  await switchProfile(page, host, profiles['Cy']!, 'Cy');
  await openPending(page, 'Change a policy');
  await approve(page, host, 'Change a policy');
  await expect(page.getByRole('status', { name: 'Your vote' })).toContainText('Change a policy is done.');

  // An export of a wallet to this desktop's export key: approved by Bea and Cy, then opened and saved.
  await switchProfile(page, host, sandboxProfile.id, 'Sandbox');
  const created = await host.handlers['wallets.create']({
    name: 'treasury',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  expect(created.state).toBe('consensus-needed');
  for (const name of ['Bea', 'Cy']) {
    await host.services.profiles.setActive(profiles[name]!);
    await host.handlers['approvals.approve']({ fingerprint: created.activity.fingerprint });
  }
  await switchProfile(page, host, sandboxProfile.id, 'Sandbox');
  await openScreen(page, 'Wallets');
  await page.getByRole('button', { name: 'Export treasury…' }).click();
  const exportDialog = page.getByRole('dialog', { name: 'Export wallet treasury' });
  await exportDialog.getByLabel('Encrypt to').selectOption('offline desk');
  await exportDialog.getByRole('button', { name: 'Export and reveal' }).click();
  await expect(exportDialog.getByRole('status', { name: 'Waiting for votes' })).toContainText('exporting wallet treasury');
  await page.keyboard.press('Escape');

  // The policy lets two approvers export: Bea's vote completes it.
  await switchProfile(page, host, profiles['Bea']!, 'Bea');
  const exportCard = await openPending(page, 'Export a wallet');
  await expect(exportCard).toContainText('this desktop’s export key');
  await expect(exportCard).toContainText('offline desk');
  await expect(exportCard.locator('code.fingerprint').first()).toHaveText(/^sha256:[0-9a-f]{64}$/);
  await screenshotBothThemes(page, 'approval-export');
  await approve(page, host, 'Export a wallet');
  await expect(page.getByRole('status', { name: 'Your vote' })).toContainText('Export a wallet is done.');

  // Opened from its history row, then saved for the offline desktop.
  await page.getByRole('button', { name: 'History' }).click();
  await page.getByRole('list', { name: 'Activity history' }).getByRole('listitem').filter({ hasText: 'Export a wallet' }).getByRole('button').click();
  const done = page.getByRole('region', { name: 'Export a wallet' });
  await done.getByRole('button', { name: 'Open the bundle' }).click();
  const secret = page.getByRole('dialog', { name: 'The exported secret' });
  await expect(secret.getByRole('list', { name: 'Mnemonic words' }).locator('code')).toHaveCount(12);
  await secret.getByRole('button', { name: 'Hide and forget' }).click();
  await page.keyboard.press('Escape');
  await done.getByLabel('File name').fill('treasury-export.json');
  await done.getByRole('button', { name: 'Save bundle to file' }).click();
  const saved = done.getByRole('status').filter({ hasText: 'Saved to' });
  const savedPath = (await saved.locator('code').innerText()).trim();
  expect(savedPath.endsWith('treasury-export.json')).toBe(true);
  await screenshotBothThemes(page, 'approval-export-done');
  await expect(page.getByRole('table', { name: /Totals/ }).getByRole('row', { name: /All shown/ })).toBeVisible();
  await screenshotBothThemes(page, 'approvals-history-totals');

  // The offline Decrypt screen reads the file and chooses the organization, the key and the format from it.
  await openScreen(page, 'Offline decrypt');
  await page.getByLabel('Or open a bundle file').setInputFiles(savedPath);
  await expect(page.getByRole('status').filter({ hasText: 'An export of a wallet' })).toContainText(organizationId);
  await expect(page.getByLabel('Organization (from profile)').locator('option:checked')).toContainText(organizationId);
  await expect(page.getByLabel('Encryption key the bundle was sealed to')).toHaveValue('offline desk');
  await expect(page.getByLabel('The bundle holds')).toHaveValue('mnemonic');
  await screenshotBothThemes(page, 'decrypt-preselected');
  await page.getByRole('button', { name: 'Verify and decrypt' }).click();
  await expect(page.getByRole('heading', { name: 'Verified and decrypted' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Mnemonic words' }).locator('code')).toHaveCount(12);
});
