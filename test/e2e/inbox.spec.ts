/**
 * One inbox across organizations: three profiles on two organizations (the Sandbox's root organization, 2 of 3, with
 * the root and Approver 2 on this desktop; a sub-organization, 2 of 2, with Branch op 1 on this desktop). Activities
 * proposed elsewhere reach the inbox and a notification each without a click; a notification's click opens the
 * activity on its profile; a vote there clears it everywhere; locking takes the content out of the notifications.
 */
import type { Page } from '@playwright/test';
import { ApiClient } from '../../src/main/client/api-client';
import type { Profile } from '../../src/main/profiles/profiles';
import { Stamper } from '../../src/main/stamper/stamper';
import type { E2eHost } from '../support/e2e-host';
import { test, expect, done, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

/** The first warning of a vote no policy allows, as every surface words it (src/main/approvals/vote-reading.ts). */
const OVERRIDE =
  '1 warning: No policy of this organization allows this request: your approval is a root quorum vote, which overrides every policy. Approve only if the organization means to make an exception. ';

/** The inbox looks every 2 s here (set on the Settings screen); "within two intervals" is this, with a margin for the page. */
const INTERVAL_SECONDS = 2;
const TWO_INTERVALS_MS = 2 * INTERVAL_SECONDS * 1000 + 1500;
/** A feed still looking would have told of an activity proposed now within this: its next look starts within an interval. */
const NEXT_LOOK_MS = INTERVAL_SECONDS * 1000 + 1500;

interface Desk {
  sandbox: Profile;
  approver2: Profile;
  branch1: Profile;
  /** Proposes, with the key of a user who has no profile here, in the root organization or the branch. */
  proposeInRoot: (userName: string) => Promise<{ fingerprint: string }>;
  proposeInBranch: (userName: string) => Promise<{ fingerprint: string }>;
}

async function desk(page: Page, host: E2eHost): Promise<Desk> {
  const { rootUserId, organizationId, enclaveSignerPublicKey, baseUrl } = await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const { keychain, profiles } = host.services;
  const stamper = new Stamper(keychain);
  const root = new ApiClient({ profile: sandbox, stamper });
  const key = async (name: string) => ({
    apiKeyName: name,
    publicKey: (await keychain.generateApiKey({ name })).publicKey,
    curveType: 'API_KEY_CURVE_P256' as const,
  });
  const user = async (name: string) => ({ userName: name, apiKeys: [await key(name)], authenticators: [], oauthProviders: [] });

  // The branch first, while the root quorum is still the root alone.
  const branch = await done(
    root.submit('create_sub_organization', {
      subOrganizationName: 'Branch office',
      rootUsers: [await user('Branch op 1'), await user('Branch op 2')],
      rootQuorumThreshold: 2,
    }),
  );
  const branchRootIds = branch.rootUserIds!;
  const created = await done(
    root.submit('create_users', {
      users: [
        { ...(await user('Approver 2')), userTags: [] },
        { ...(await user('Approver 3')), userTags: [] },
      ],
    }),
  );
  await done(root.submit('update_root_quorum', { threshold: 2, userIds: [rootUserId, ...created.userIds] }));

  const hosted = { kind: 'hosted' as const, baseUrl, enclaveSignerPublicKey };
  const approver2 = await profiles.add({ ...hosted, name: 'Approver 2', organizationId, apiKeyName: 'Approver 2' });
  const branch1 = await profiles.add({ ...hosted, name: 'Branch op 1', organizationId: branch.subOrganizationId, apiKeyName: 'Branch op 1' });
  // Approver 3 and Branch op 2 sign from elsewhere: a client of their own, no profile on this desktop.
  const approver3 = new ApiClient({ profile: { baseUrl, organizationId, apiKeyName: 'Approver 3' }, stamper });
  const branch2 = new ApiClient({ profile: { baseUrl, organizationId: branch.subOrganizationId, apiKeyName: 'Branch op 2' }, stamper });
  const propose = async (client: ApiClient, userId: string, userName: string) => {
    const proposed = await client.submit('update_user_name', { userId, userName });
    expect(proposed.state).toBe('consensus-needed');
    return { fingerprint: proposed.activity.fingerprint };
  };
  return {
    sandbox,
    approver2,
    branch1,
    proposeInRoot: (userName) => propose(approver3, rootUserId, userName),
    proposeInBranch: (userName) => propose(branch2, branchRootIds[0]!, userName),
  };
}

/** Sets the inbox's interval on the Settings screen, as a person would. */
async function setInboxInterval(page: Page, seconds: number): Promise<void> {
  await openScreen(page, 'Settings');
  const form = page.getByRole('form', { name: 'Inbox interval' });
  await form.getByLabel('Look every this many seconds').fill(String(seconds));
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved at' })).toBeVisible();
}

/** The notifications still shown, as "title | body". */
function shown(host: E2eHost): string[] {
  return host.notifications.notifications.filter((notification) => notification.shown).map(({ title, body }) => `${title} | ${body}`);
}

function indexOf(host: E2eHost, bodyPart: string): number {
  return host.notifications.notifications.findIndex((notification) => notification.shown && notification.body.includes(bodyPart));
}

test('three profiles on two organizations: told without a click, opened from the notification, cleared everywhere by one vote, and only a count while locked', async ({
  page,
  host,
}) => {
  test.setTimeout(120_000);
  const { approver2, branch1, proposeInRoot, proposeInBranch } = await desk(page, host);
  await setInboxInterval(page, INTERVAL_SECONDS);
  // Nothing waits yet: what the setup left is decided.
  await expect.poll(() => host.handlers['inbox.list']({}).then(({ profiles }) => profiles.length)).toBe(3);
  expect(host.notifications.notifications).toEqual([]);

  const inRoot = await proposeInRoot('renamed in the root organization');
  const inBranch = await proposeInBranch('renamed in the branch');
  // No click anywhere: within two intervals, one notification for each profile whose vote is asked.
  await expect
    .poll(() => shown(host).sort(), { timeout: TWO_INTERVALS_MS })
    .toEqual(
      [
        // Main's reading of each, as the Approvals screen has it: the summary, then the warnings' count and first.
        `Your vote: Root user → renamed in the root organization | ${OVERRIDE}Your approval completes it. Proposed by Approver 3, on Root organization (profile Sandbox).`,
        `Your vote: Root user → renamed in the root organization | ${OVERRIDE}Your approval completes it. Proposed by Approver 3, on Root organization (profile Approver 2).`,
        `Your vote: Branch op 1 → renamed in the branch | ${OVERRIDE}Your approval completes it. Proposed by Branch op 2, on Branch office (profile Branch op 1).`,
      ].sort(),
    );
  expect(host.notifications.badge).toBe(3);

  // The All profiles view, grouped by organization.
  await openScreen(page, 'Approvals');
  await page.getByRole('button', { name: 'All profiles' }).click();
  const inbox = page.getByRole('region', { name: 'All profiles' });
  await expect(inbox.getByRole('heading', { level: 2 })).toHaveText(['Root organization', 'Branch office']);
  for (const [where, count] of [
    ['Root organization as Sandbox', 1],
    ['Root organization as Approver 2', 1],
    ['Branch office as Branch op 1', 1],
  ] as const) {
    const list = inbox.getByRole('list', { name: `Waiting on ${where}` }).getByRole('listitem');
    await expect(list).toHaveCount(count);
    await expect(list).toContainText('your approval completes it');
  }
  await screenshotBothThemes(page, 'inbox-all-profiles');

  // The branch's notification opens its card on Branch op 1's profile; the vote there is asked by main, once.
  host.notifications.click(indexOf(host, '(profile Branch op 1)'));
  await expect(page.getByText('Profile: Branch op 1')).toBeVisible();
  const card = page.getByRole('region', { name: 'Rename a user' });
  await expect(card).toContainText(inBranch.fingerprint);
  const asked = host.confirmations.length;
  await card.getByRole('button', { name: 'Approve…' }).click();
  await expect(page.getByText('Nothing is waiting for votes.')).toBeVisible();
  expect(host.confirmations.slice(asked).map(({ title }) => title)).toEqual(['Approve: Rename a user?']);
  await expect.poll(() => host.notifications.badge).toBe(2);

  // The root organization's, from Approver 2: one vote completes it, and it leaves the Sandbox's inbox too.
  host.notifications.click(indexOf(host, '(profile Approver 2)'));
  await expect(page.getByText('Profile: Approver 2')).toBeVisible();
  await expect(card).toContainText(inRoot.fingerprint);
  await card.getByRole('button', { name: 'Approve…' }).click();
  await expect(page.getByText('Nothing is waiting for votes.')).toBeVisible();
  await expect.poll(() => host.notifications.badge).toBe(0);
  const everywhere = await host.handlers['inbox.list']({});
  expect(everywhere.profiles.flatMap((profile) => profile.items)).toEqual([]);
  expect(everywhere.waitingForMe).toBe(0);
  await page.getByRole('button', { name: 'All profiles' }).click();
  await expect(inbox.getByText('Nothing waits here.')).toHaveCount(3);
  expect((await host.services.profiles.getActive())?.id).toBe(approver2.id);

  // Locked: the notifications' content is taken back, one says only how many wait, and nothing new is read.
  await proposeInRoot('renamed before the lock');
  await expect.poll(() => shown(host).length, { timeout: TWO_INTERVALS_MS }).toBe(3);
  await host.handlers['app.lock']({});
  await expect.poll(() => shown(host)).toEqual(['QuorumKey | 2 approvals waiting']);
  const whileLocked = await proposeInBranch('renamed while locked');
  await page.waitForTimeout(NEXT_LOOK_MS);
  expect(shown(host)).toEqual(['QuorumKey | 2 approvals waiting']);

  // Unlocked: what came meanwhile is told, with its content.
  await host.handlers['app.unlock']({});
  await expect
    .poll(() => shown(host), { timeout: TWO_INTERVALS_MS })
    .toEqual([
      'QuorumKey | 2 approvals waiting',
      `Your vote: renamed in the branch → renamed while locked | ${OVERRIDE}Your approval completes it. Proposed by Branch op 2, on Branch office (profile Branch op 1).`,
    ]);

  // From the keyboard in the All profiles view: j moves down, a approves with that row's profile's key.
  await page.reload();
  await openScreen(page, 'Approvals');
  await page.getByRole('button', { name: 'All profiles' }).click();
  const rows = inbox.locator('button.approval-row-button');
  await expect(rows).toHaveCount(3);
  await rows.first().focus();
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  const votedBefore = host.confirmations.length;
  await page.keyboard.press('a');
  await expect(inbox.getByRole('status', { name: 'Your vote' })).toContainText('Approved as Branch op 1: Rename a user is completed.');
  expect(host.confirmations.slice(votedBefore).map(({ detail }) => detail)).toEqual([
    expect.stringContaining(`Fingerprint: ${whileLocked.fingerprint}`),
  ]);
  expect((await host.services.profiles.getActive())?.id).toBe(approver2.id);
  expect(branch1.organizationId).not.toBe(approver2.organizationId);
});
