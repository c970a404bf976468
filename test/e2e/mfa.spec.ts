/**
 * An activity waiting for this user's MFA step (docs/architecture.md#one-answer-per-vote): Bea's MFA policy asks her
 * desk's API key for every signing request, she proposes one with her CI key, and it waits in
 * ACTIVITY_STATUS_AUTHENTICATORS_NEEDED. On her desk's profile the card says it needs her API key approval, main's
 * confirmation says which step the approval is, and approving completes it; the Policies screen reads the MFA policy
 * in words. Shot in both themes. Then an MFA policy written from that screen: created for a user chosen by name with
 * a step met by a passkey or an API key and a second step, edited, deleted, each through main's confirmation.
 */
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { ETHEREUM_WALLET_ACCOUNT, voteDesk } from '../support/vote-scenario';
import { done, expect, openScreen, screenshotBothThemes, test } from './fixtures';

// Setting up an organization through the Sandbox takes most of a minute on a loaded two-core machine.
test.describe.configure({ timeout: 120_000 });

test('a sign request waiting for the API key step of an MFA policy: the card says so, and the approval completes it', async ({ page, host }) => {
  const { root, sandbox, userIds, profiles } = await voteDesk(page, host, ['Bea']);
  const [beaId] = userIds as [string];
  const [beaDesk] = profiles as [(typeof profiles)[number]];
  const wallet = await done(root.submit('create_wallet', { walletName: 'Treasury', accounts: [ETHEREUM_WALLET_ACCOUNT] }));
  const ci = await host.services.keychain.generateApiKey({ name: 'Bea CI', curve: 'p256' });
  await done(
    root.submit('create_api_keys', { userId: beaId, apiKeys: [{ apiKeyName: 'ci', publicKey: ci.publicKey, curveType: 'API_KEY_CURVE_P256' }] }),
  );
  const { user } = await root.query('get_user', { userId: beaId });
  const deskKeyId = user.apiKeys.find((key) => key.apiKeyName === 'Bea')!.apiKeyId;
  // Bea may sign on her own; her MFA policy asks her desk's key for it.
  await done(
    root.submit('create_policy', {
      policyName: 'Bea signs',
      effect: 'EFFECT_ALLOW',
      condition: "activity.action == 'SIGN'",
      consensus: `approvers.any(user, user.id == '${beaId}')`,
      notes: '',
    }),
  );
  await done(
    root.submit('create_mfa_policy', {
      userId: beaId,
      mfaPolicyName: 'Signing from the desk',
      condition: "activity.action == 'SIGN'",
      requiredAuthenticationMethods: [{ any: [{ type: 'AUTHENTICATION_TYPE_API_KEY', id: deskKeyId }] }],
      order: '0',
    }),
  );
  const beaCi = new ApiClient({
    profile: { baseUrl: sandbox.baseUrl, organizationId: sandbox.organizationId, apiKeyName: 'Bea CI' },
    stamper: new Stamper(host.services.keychain),
  });
  const proposed = await beaCi.submit('sign_raw_payload', {
    signWith: wallet.addresses[0]!,
    payload: 'pay the auditors',
    encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
    hashFunction: 'HASH_FUNCTION_KECCAK256',
  });
  expect(proposed.activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');

  await host.services.profiles.setActive(beaDesk.id);
  await page.reload();
  await expect(page.getByText('Profile: Bea')).toBeVisible();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Approvals', exact: true }).click();
  const row = page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem');
  await expect(row).toContainText('Needs your API key approval');
  await row.getByRole('button').click();
  const step = page.getByRole('region', { name: 'Needs your API key approval' });
  await expect(step).toContainText('"Signing from the desk"');
  await expect(step).toContainText('the API key "Bea" of Bea');
  await expect(step).toContainText('this desktop stamps with it (profile "Bea")');
  await screenshotBothThemes(page, 'mfa-authenticator-needed', step);

  host.answerConfirmations('wait');
  await step.getByRole('button', { name: 'Approve with your API key…' }).click();
  const shown = await host.nextConfirmation();
  expect(shown.text).toContain('This approval is your API key step of MFA policy "Signing from the desk"; 1 of 1 steps');
  shown.answer(true);
  await expect(page.getByRole('status', { name: 'Your vote' })).toContainText('is done');
  const after = await root.query('get_activity', { activityId: proposed.activity.id });
  expect(after.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

  // The Policies screen reads the MFA policy in words, its condition read as a policy's.
  await openScreen(page, 'Policies');
  const mfaPolicies = page.getByRole('table', { name: 'MFA policies' });
  await expect(mfaPolicies.getByRole('row', { name: /Signing from the desk/ })).toContainText(
    'Activities where activity.action == \'SIGN\' need, in order: the API key "Bea" — for Bea',
  );
  await screenshotBothThemes(page, 'mfa-policies-in-words', mfaPolicies);
});

test('an MFA policy created, edited and deleted from the Policies screen, each write confirmed by main in words', async ({ page, host }) => {
  await voteDesk(page, host, ['Bea']);
  await page.reload();
  await openScreen(page, 'Policies');
  const panel = page.getByRole('region', { name: 'MFA policies' });
  await panel.getByRole('button', { name: 'New MFA policy' }).click();
  const form = panel.getByRole('form', { name: 'New MFA policy' });
  await form.getByLabel('Name').fill('Signing');
  await form.getByLabel('Condition').fill("activity.action == 'SIGN'");
  await form.getByRole('combobox', { name: 'For', exact: true }).selectOption({ label: 'Bea' });
  // A step is met by any one of the methods ticked: a passkey or an API key here. Its last method stays ticked.
  const firstStep = form.getByRole('group', { name: 'Step 1' });
  await expect(firstStep.getByRole('checkbox', { name: 'API key' })).toBeChecked();
  await expect(firstStep.getByRole('checkbox', { name: 'API key' })).toBeDisabled();
  await firstStep.getByRole('checkbox', { name: 'Passkey' }).check();
  await expect(firstStep.getByRole('checkbox', { name: 'API key' })).toBeEnabled();
  await form.getByRole('button', { name: 'Add a step' }).click();
  await expect(form.getByRole('group', { name: 'Step 2' }).getByRole('checkbox', { name: 'API key' })).toBeChecked();
  // "Add a step" keeps a button's height rather than the steps' (it once stretched to the row's).
  const addStep = await form.getByRole('button', { name: 'Add a step' }).boundingBox();
  const createButton = await form.getByRole('button', { name: 'Create MFA policy' }).boundingBox();
  expect(addStep!.height).toBeLessThanOrEqual(createButton!.height);
  await screenshotBothThemes(page, 'mfa-policy-form', form);
  host.answerConfirmations('wait');
  await form.getByRole('button', { name: 'Create MFA policy' }).click();
  const created = await host.nextConfirmation();
  expect(created.text).toContain("activity.action == 'SIGN'");
  expect(created.text).toContain('1. passkey or API key');
  expect(created.text).toContain('2. API key');
  expect(created.text).toContain('Bea');
  created.answer(true);
  const table = panel.getByRole('table', { name: 'MFA policies' });
  await expect(table.getByRole('row', { name: /Signing/ })).toContainText(
    "Activities where activity.action == 'SIGN' need, in order: a passkey or an API key, then an API key — for Bea",
  );
  await screenshotBothThemes(page, 'mfa-policy-several-methods', table);

  await table.getByRole('button', { name: 'Edit Signing' }).click();
  const edit = panel.getByRole('form', { name: 'Edit MFA policy Signing' });
  // The editor starts from the steps as saved, each method ticked.
  await expect(edit.getByRole('group', { name: 'Step 1' }).getByRole('checkbox', { name: 'Passkey' })).toBeChecked();
  await expect(edit.getByRole('group', { name: 'Step 1' }).getByRole('checkbox', { name: 'API key' })).toBeChecked();
  await edit.getByRole('group', { name: 'Step 1' }).getByRole('checkbox', { name: 'Passkey' }).uncheck();
  await edit.getByRole('button', { name: 'Remove step 2' }).click();
  await edit.getByRole('button', { name: 'Save MFA policy' }).click();
  const updated = await host.nextConfirmation();
  expect(updated.text).toContain('1. API key');
  expect(updated.text).not.toContain('2. ');
  updated.answer(true);
  await expect(table.getByRole('row', { name: /Signing/ })).toContainText('need, in order: an API key — for Bea');

  await table.getByRole('button', { name: 'Delete Signing' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete MFA policy' }).click();
  (await host.nextConfirmation()).answer(true);
  await expect(panel.getByText('No MFA policies')).toBeVisible();
});
