/**
 * Consensus through the UI: the Sandbox's root quorum is made 2 of 3 (the Sandbox key plus two more operators'
 * keys in this keychain), the root proposes a policy, and another operator, switched to with their own profile,
 * approves or rejects it by fingerprint; or 2 of 2, the second vote stamped into a file offline and posted from it.
 */
import { readFile, stat } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import type { E2eHost } from '../support/e2e-host';
import { createKeyedUsers, test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

interface Quorum<Name extends string> {
  rootUserId: string;
  sandboxProfileId: string;
  /** Profile id of each further operator, by name. */
  profiles: Record<Name, string>;
}

/** Adds users with their own API keys and makes the root quorum 2 of the root and them, through the service's API. */
async function twoOf<Name extends string>(page: Page, host: E2eHost, names: readonly Name[]): Promise<Quorum<Name>> {
  const { rootUserId, organizationId, enclaveSignerPublicKey, baseUrl } = await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain) });
  const userIds = await createKeyedUsers(host, root, names);
  const quorum = await root.submit('update_root_quorum', { threshold: 2, userIds: [rootUserId, ...userIds] });
  if (quorum.state !== 'completed') throw new Error(`update_root_quorum ${quorum.state}`);
  const profiles = {} as Record<Name, string>;
  for (const name of names) {
    const profile = await host.services.profiles.add({ name, kind: 'hosted', baseUrl, organizationId, apiKeyName: name, enclaveSignerPublicKey });
    profiles[name] = profile.id;
  }
  return { rootUserId, sandboxProfileId: sandbox.id, profiles };
}

async function proposePolicy(page: Page, name: string): Promise<string> {
  await openScreen(page, 'Policies');
  await page.getByRole('button', { name: 'New policy' }).click();
  const editor = page.getByRole('form', { name: 'New policy' });
  await editor.getByLabel('Name').fill(name);
  await editor.getByLabel('Condition').fill("activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'");
  await editor.getByRole('button', { name: 'Create policy' }).click();
  // A waiting state, not an error: what waits, its fingerprint, and who may still vote.
  const waiting = page.getByRole('status', { name: 'Waiting for votes' });
  await expect(waiting).toContainText(`Waiting for votes: Create policy ${name}`);
  await expect(waiting).toContainText('Who may still vote:');
  await expect(page.getByRole('alert')).toHaveCount(0);
  const fingerprint = (await waiting.locator('code.fingerprint').innerText()).trim();
  expect(fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  return fingerprint;
}

async function switchProfile(page: Page, host: E2eHost, profileId: string, name: string): Promise<void> {
  await host.services.profiles.setActive(profileId);
  await page.reload();
  await expect(page.getByText(`Profile: ${name}`)).toBeVisible();
}

test('2-of-3: the root proposes a policy, sees its own vote, and the second approver completes it', async ({ page, host }) => {
  const { profiles } = await twoOf(page, host, ['Approver 2', 'Approver 3']);
  const fingerprint = await proposePolicy(page, 'signing needs two');
  await screenshotBothThemes(page, 'policy-consensus-needed');

  await openScreen(page, 'Approvals');
  const queue = page.getByRole('list', { name: 'Activities waiting for votes' });
  const row = queue.getByRole('listitem');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Create a policy');
  await expect(row).toContainText('1 of 2 approved');
  await expect(row).toContainText('you approved');
  await row.getByRole('button').click();
  const detail = page.getByRole('region', { name: 'Create a policy' });
  await expect(detail).toContainText('signing needs two');
  await expect(detail).toContainText(fingerprint);
  await expect(detail).toContainText(/23 h 5\d min of the 24 h window/);
  await expect(detail.getByRole('status')).toContainText('You already voted: you approved this activity');
  // Who may still vote, by name: the two other quorum members, not the root who proposed it.
  const stillToVote = detail.getByRole('list', { name: 'Still to vote' }).getByRole('listitem');
  await expect(stillToVote).toHaveText(['Approver 2 · root quorum member', 'Approver 3 · root quorum member']);
  await expect(detail.getByRole('button', { name: 'Approve…' })).toHaveCount(0);
  await screenshotBothThemes(page, 'approvals');

  await switchProfile(page, host, profiles['Approver 2'], 'Approver 2');
  await openScreen(page, 'Approvals');
  await page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem').getByRole('button').click();
  // The page asks nothing of its own: main's confirmation, restating its reading, is the one question.
  const asked = host.confirmations.length;
  await page.getByRole('button', { name: 'Approve…' }).click();
  await expect(page.getByText('Nothing is waiting for votes.')).toBeVisible();
  expect(host.confirmations.slice(asked).map(({ title, detail }) => ({ title, detail }))).toEqual([
    { title: 'Approve: Create a policy?', detail: expect.stringContaining(`Fingerprint: ${fingerprint}`) },
  ]);
  await expect(page.getByRole('status', { name: 'Your vote' })).toContainText('Approved — Create a policy is done.');

  await page.getByRole('button', { name: 'History' }).click();
  await page.getByLabel('Status').selectOption('ACTIVITY_STATUS_COMPLETED');
  const history = page.getByRole('list', { name: 'Activity history' }).getByRole('listitem');
  await expect(history.filter({ hasText: 'Create a policy' })).toContainText('2 approved');
  await screenshotBothThemes(page, 'approvals-history');
  expect((await host.handlers['policies.list']({})).map((policy) => policy.policyName)).toEqual(['signing needs two']);
});

test('2-of-3: the third approver rejects a proposal by its fingerprint', async ({ page, host }) => {
  const { profiles } = await twoOf(page, host, ['Approver 2', 'Approver 3']);
  const fingerprint = await proposePolicy(page, 'refused policy');

  await switchProfile(page, host, profiles['Approver 3'], 'Approver 3');
  await openScreen(page, 'Approvals');
  await page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem').getByRole('button').click();
  // Cancel first, at main's confirmation: no vote without it.
  host.answerConfirmations('wait');
  await page.getByRole('button', { name: 'Reject…' }).click();
  const declined = await host.nextConfirmation();
  expect(declined.request.title).toBe('Reject: Create a policy?');
  expect(declined.text).toContain(`Fingerprint: ${fingerprint}`);
  declined.answer(false);
  await expect(page.getByRole('alert')).toContainText('declined in QuorumKey');
  expect(await host.handlers['approvals.pending']({})).toHaveLength(1);
  await page.getByRole('alert').getByRole('button', { name: 'Dismiss' }).click();
  await page.getByRole('button', { name: 'Reject…' }).click();
  (await host.nextConfirmation()).answer(true);
  await expect(page.getByText('Nothing is waiting for votes.')).toBeVisible();

  await page.getByRole('button', { name: 'History' }).click();
  await page.getByLabel('Status').selectOption('ACTIVITY_STATUS_REJECTED');
  const rejected = page.getByRole('list', { name: 'Activity history' }).getByRole('listitem');
  await expect(rejected).toHaveCount(1);
  await expect(rejected).toContainText('Rejected');
  expect(await host.handlers['policies.list']({})).toEqual([]);
});

test('2-of-2 offline: the second approver stamps an approval into a file, and posting that file completes the activity', async ({ page, host }) => {
  const { sandboxProfileId, profiles } = await twoOf(page, host, ['Approver 2']);
  const fingerprint = await proposePolicy(page, 'approved offline');

  await switchProfile(page, host, profiles['Approver 2'], 'Approver 2');
  await openScreen(page, 'Approvals');
  await page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem').getByRole('button').click();
  const offline = page.getByRole('region', { name: 'Offline voting' });
  const save = offline.getByRole('form', { name: 'Save a stamped approval' });
  await save.getByLabel('File name to write').fill('approval-1.json');
  await save.getByRole('button', { name: 'Save stamped approval' }).click();
  const saved = offline.getByRole('status');
  await expect(saved).toContainText('Saved to');
  await screenshotBothThemes(page, 'approvals-offline-saved');

  // Stamping touched no network: the vote is in the file only, readable by its owner alone.
  expect(await host.handlers['approvals.pending']({})).toHaveLength(1);
  const file = (await saved.locator('code').first().innerText()).trim();
  expect(file).toMatch(/approval-1\.json$/);
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  const stamped = await readFile(file, 'utf8');
  expect(stamped).toContain(fingerprint);
  expect(stamped).toContain('ACTIVITY_TYPE_APPROVE_ACTIVITY');

  // An existing file is never overwritten.
  await save.getByRole('button', { name: 'Save stamped approval' }).click();
  await expect(page.getByRole('alert')).toContainText('approval-1.json');
  expect(await readFile(file, 'utf8')).toBe(stamped);
  await page.getByRole('alert').getByRole('button', { name: 'Dismiss' }).click();

  // Posted under another profile, as from the connected machine: the stamp, not the poster, is the vote.
  await switchProfile(page, host, sandboxProfileId, 'Sandbox');
  await openScreen(page, 'Approvals');
  const post = page.getByRole('form', { name: 'Post a stamped file' });
  await post.getByLabel('Stamped file name').fill('approval-1.json');
  await post.getByRole('button', { name: 'Post stamped file' }).click();
  await expect(page.getByText('Nothing is waiting for votes.')).toBeVisible();
  await expect(post.getByLabel('Stamped file name')).toHaveValue('');
  expect((await host.handlers['policies.list']({})).map((policy) => policy.policyName)).toEqual(['approved offline']);

  await page.getByRole('button', { name: 'History' }).click();
  await page.getByLabel('Status').selectOption('ACTIVITY_STATUS_COMPLETED');
  await expect(page.getByRole('list', { name: 'Activity history' }).getByRole('listitem').filter({ hasText: 'Create a policy' })).toContainText(
    '2 approved',
  );
});

test('History pages back to the oldest activity, and a new filter starts again from the newest page', async ({ page, host }) => {
  const { rootUserId } = await startSandbox(page, host);
  const root = new ApiClient({ profile: (await host.services.profiles.getActive())!, stamper: new Stamper(host.services.keychain) });
  const existing = (await host.handlers['activities.list']({ limit: 100 })).length;
  // Filtered or not, the history then takes three pages of 100: the newest and two older ones.
  const renames = 201;
  expect(existing).toBeLessThan(99);
  for (let index = 0; index < renames; index += 1) {
    const renamed = await root.submit('update_user_name', { userId: rootUserId, userName: `operator ${index}` });
    if (renamed.state !== 'completed') throw new Error(`update_user_name ${renamed.state}`);
  }

  await openScreen(page, 'Approvals');
  await page.getByRole('button', { name: 'History' }).click();
  const history = page.getByRole('region', { name: 'History' });
  await expect(history.getByRole('list', { name: 'Activity history' }).getByRole('listitem').first()).toContainText('Rename a user');
  await history.getByRole('button', { name: 'Load older activities' }).click();
  await expect(history.getByRole('button', { name: 'Load older activities' })).toBeEnabled();
  await history.getByRole('button', { name: 'Load older activities' }).click();
  await expect(history).toContainText(`${existing + renames} activities, the oldest included.`);
  await expect(history.getByRole('button', { name: 'Load older activities' })).toHaveCount(0);
  await screenshotBothThemes(page, 'approvals-history-oldest');

  // The filter asks the service again: older pages loaded for the unfiltered list are dropped.
  await page.getByLabel('Type').selectOption('ACTIVITY_TYPE_UPDATE_USER_NAME');
  await expect(history.getByRole('button', { name: 'Load older activities' })).toBeVisible();
  await history.getByRole('button', { name: 'Load older activities' }).click();
  await expect(history.getByRole('button', { name: 'Load older activities' })).toBeEnabled();
  await history.getByRole('button', { name: 'Load older activities' }).click();
  await expect(history).toContainText(`${renames} activities, the oldest included.`);
});

test('approvals expire with their 24 h window: a new approval opens the next, the proposer approves again and completes it', async ({
  page,
  host,
}) => {
  const { profiles, sandboxProfileId } = await twoOf(page, host, ['Approver 2', 'Approver 3']);
  await proposePolicy(page, 'approved in a new window');
  host.advanceClock(25 * 60 * 60 * 1000);

  await openScreen(page, 'Approvals');
  const row = page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem');
  await expect(row).toContainText('0 of 2 approved');
  await expect(row).toContainText('approvals expired');
  await expect(row).not.toContainText('you approved');
  await row.getByRole('button').click();
  const detail = page.getByRole('region', { name: 'Create a policy' });
  await expect(detail).toContainText('the approvals expired; the next approval opens a new 24 h window');
  await expect(detail.getByRole('list', { name: 'Votes' })).toContainText('approval expired');
  await expect(detail.getByRole('button', { name: 'Approve…' })).toBeVisible();
  await screenshotBothThemes(page, 'approvals-expired');

  const approve = async () => {
    await page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem').getByRole('button').click();
    await page.getByRole('button', { name: 'Approve…' }).click();
  };
  await switchProfile(page, host, profiles['Approver 2'], 'Approver 2');
  await openScreen(page, 'Approvals');
  await approve();
  await expect(row).toContainText('1 of 2 approved');
  await expect(row).toContainText('you approved');
  await expect(row).toContainText('by Root user');
  await expect(detail).toContainText(/2[34] h( \d+ min)? of the 24 h window/);

  // The proposer's approval expired, so they vote again; the list still names them as the requester.
  await switchProfile(page, host, sandboxProfileId, 'Sandbox');
  await openScreen(page, 'Approvals');
  await approve();
  await expect(page.getByText('Nothing is waiting for votes.')).toBeVisible();
  expect((await host.handlers['policies.list']({})).map((policy) => policy.policyName)).toEqual(['approved in a new window']);
  await page.getByRole('button', { name: 'History' }).click();
  await page.getByLabel('Status').selectOption('ACTIVITY_STATUS_COMPLETED');
  const completed = page.getByRole('list', { name: 'Activity history' }).getByRole('listitem').filter({ hasText: 'Create a policy' });
  await expect(completed).toContainText('by Root user');
  await expect(completed).toContainText('2 approved');
});

test('live: a proposal and a vote made elsewhere reach the open Approvals screen and the navigation count, with no Refresh', async ({
  page,
  host,
}) => {
  const { rootUserId, profiles } = await twoOf(page, host, ['Approver 2', 'Approver 3']);
  const stamper = new Stamper(host.services.keychain);
  const clientOf = async (profileId: string) => new ApiClient({ profile: await host.services.profiles.get(profileId), stamper });
  await openScreen(page, 'Approvals');
  await expect(page.getByText('Nothing is waiting for votes.')).toBeVisible();
  const navigation = page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Approvals', exact: true });
  await expect(navigation).toHaveAccessibleDescription('0 waiting for votes');

  // Approver 2 proposes with their own key, straight to the service: main learns of it only by watching.
  const proposed = await (await clientOf(profiles['Approver 2'])).submit('update_user_name', { userId: rootUserId, userName: 'renamed elsewhere' });
  expect(proposed.state).toBe('consensus-needed');
  const row = page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('1 of 2 approved');
  await expect(navigation).toHaveAccessibleDescription('1 waiting for votes');
  await expect(navigation).toContainText('1');

  // The card stays open in the history whatever is decided: open it there, waiting for votes.
  await page.getByRole('button', { name: 'History' }).click();
  await page
    .getByRole('list', { name: 'Activity history' })
    .getByRole('listitem')
    .filter({ hasText: 'renamed elsewhere' })
    .getByRole('button')
    .click();
  const card = page.getByRole('region', { name: 'Rename a user' });
  const votes = card.getByRole('list', { name: 'Votes', exact: true }).getByRole('listitem');
  await expect(votes).toHaveText([/^approved Approver 2/]);
  await expect(card).toContainText('Waiting for votes');

  // Approver 3 approves, also elsewhere: the open card shows the vote and the outcome, and the count drops.
  const approved = await (await clientOf(profiles['Approver 3'])).submit('approve_activity', { fingerprint: proposed.activity.fingerprint });
  expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  await expect(votes).toHaveText([/^approved Approver 2/, /^approved Approver 3/]);
  await expect(card.getByRole('definition').filter({ hasText: /^Completed$/ })).toHaveCount(1);
  await expect(navigation).toHaveAccessibleDescription('0 waiting for votes');
});
