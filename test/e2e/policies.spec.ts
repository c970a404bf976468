import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { createKeyedUsers, test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';
import { expectCaretsUnder } from './caret';

test('write a policy with a parse error, see it inline at its position, fix it, create it, then review an update as a diff', async ({
  page,
  host,
}) => {
  await startSandbox(page, host);
  await openScreen(page, 'Policies');
  await expect(page.getByText('No policies: only the root quorum can act.')).toBeVisible();
  await page.getByRole('button', { name: 'New policy' }).click();

  const editor = page.getByRole('form', { name: 'New policy' });
  await editor.getByLabel('Name').fill('export by ops');
  const condition = editor.getByLabel('Condition');
  await condition.fill("activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET' &&\n  wallet.idd == 'w-1'");
  const error = editor.getByRole('alert');
  // The checker's message, its line and column, and a caret under exactly the unknown field.
  await expect(error).toContainText("Line 2, column 10: Wallet has no field 'idd'");
  await expectCaretsUnder(error.locator('pre'), "  wallet.idd == 'w-1'", '^^^');
  await expect(condition).toHaveAttribute('aria-invalid', 'true');
  await expect(editor.getByRole('button', { name: 'Create policy' })).toBeDisabled();
  await screenshotBothThemes(page, 'policy-parse-error');

  // A misspelled type parses, but matches nothing: said inline, with the closest known type.
  await condition.fill("activity.type == 'ACTIVITY_TYPE_EXPORT_WALET'");
  await expect(error).toBeHidden();
  await expect(editor.getByRole('list', { name: 'Unknown activity types' })).toHaveText(
    'No activity has the type ACTIVITY_TYPE_EXPORT_WALET, so this never matches it. Did you mean ACTIVITY_TYPE_EXPORT_WALLET?',
  );
  await screenshotBothThemes(page, 'policy-unknown-type');
  await condition.fill("activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET' &&\n  wallet.id == 'w-1'");
  await expect(editor.getByRole('list', { name: 'Unknown activity types' })).toHaveCount(0);
  await expect(condition).toHaveAttribute('aria-invalid', 'false');
  await editor.getByLabel('Consensus').fill('approvers.count() >= 1');
  await editor.getByLabel('Notes').fill('ops may export w-1');
  await editor.getByRole('button', { name: 'Create policy' }).click();

  const row = page.getByRole('table', { name: 'Policies' }).getByRole('row', { name: /export by ops/ });
  await expect(row).toContainText('Allow');
  await expect(row).toContainText('ops may export w-1');
  const [stored] = await host.handlers['policies.list']({});
  expect(stored?.condition).toBe("activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET' &&\n  wallet.id == 'w-1'");
  await screenshotBothThemes(page, 'policies');

  await row.getByRole('button', { name: 'Edit export by ops' }).click();
  const update = page.getByRole('form', { name: 'Edit policy export by ops' });
  await update.getByLabel('Consensus').fill('approvers.count() >= 2');
  await update.getByRole('button', { name: 'Review changes…' }).click();
  const review = page.getByRole('dialog', { name: 'Review the update' });
  // Submitting takes a deliberate click: the review opens on Keep editing.
  await expect(review.getByRole('button', { name: 'Keep editing' })).toBeFocused();
  // Token by token: only the literal that changed is marked.
  await expect(review.locator('.diff-token-removed')).toHaveText('[removed: 1]');
  await expect(review.locator('.diff-token-added')).toHaveText('[added: 2]');
  // Only the changed field is in the diff.
  await expect(review.getByLabel('Changes').getByRole('heading')).toHaveText(['Consensus']);
  await screenshotBothThemes(page, 'policy-diff');
  await review.getByRole('button', { name: 'Submit update' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Update policy export by ops: done.' })).toBeVisible();
  await expect(row).toContainText('approvers.count() >= 2');
  await expect(row).toContainText('always active');

  // A time window is checked inline like the other expressions, down to the cron field at fault.
  await row.getByRole('button', { name: 'Edit export by ops' }).click();
  const timed = page.getByRole('form', { name: 'Edit policy export by ops' });
  const time = timed.getByLabel('Time window');
  await time.fill("CronSpan('0 9 * * MON-FRI', '8h', 'America/New_York')");
  const timeError = timed.getByRole('alert');
  await expect(timeError).toContainText('Line 1, column 19: CronSpan() schedule: day-of-week field: names are not supported');
  await expectCaretsUnder(timeError.locator('pre'), "CronSpan('0 9 * * MON-FRI', '8h', 'America/New_York')", '^^^^^^^');
  await expect(timed.getByRole('button', { name: 'Review changes…' })).toBeDisabled();
  await time.fill("CronSpan('0 9 * * 1-5', '8h', 'America/New_York')");
  await expect(timeError).toBeHidden();
  await timed.getByRole('button', { name: 'Review changes…' }).click();
  const timeReview = page.getByRole('dialog', { name: 'Review the update' });
  await expect(timeReview.getByLabel('Changes').getByRole('heading')).toHaveText(['Time window']);
  await timeReview.getByRole('button', { name: 'Submit update' }).click();
  await expect(row).toContainText("CronSpan('0 9 * * 1-5', '8h', 'America/New_York')");
  const [withTime] = await host.handlers['policies.list']({});
  expect(withTime?.time).toBe("CronSpan('0 9 * * 1-5', '8h', 'America/New_York')");
});

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

test('policies in words: the list names users instead of ids and reads amounts in units; an update marks the changed token, digits grouped', async ({
  page,
  host,
}) => {
  await startSandbox(page, host);
  const { users } = await host.handlers['organization.lookup']({});
  const root = users[0]!;
  await openScreen(page, 'Policies');
  await page.getByRole('button', { name: 'New policy' }).click();
  // The template picks users from a list, by name; the expression it writes holds their ids.
  await page.getByText('Start from a template').click();
  const template = page.getByRole('form', { name: 'Any N of these users' });
  await template.getByRole('checkbox', { name: root.userName }).check();
  await template.getByLabel('Approvals needed').fill('1');
  await template.getByRole('button').click();
  const editor = page.getByRole('form', { name: 'New policy' });
  await expect(editor.getByLabel('Consensus')).toHaveValue(`approvers.filter(user, user.id == '${root.userId}').count() >= 1`);
  await editor
    .getByRole('textbox', { name: 'Condition' })
    .fill(`activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '${USDC}' && eth.tx.contract_call_args['amount'] <= 1000000000`);
  await editor.getByRole('button', { name: 'Create policy' }).click();

  const row = page.getByRole('table', { name: 'Policies' }).getByRole('row', { name: new RegExp(`Any 1 of ${root.userName}`) });
  await expect(row).toContainText(`approvers.filter(user, user.id == user ${root.userName}).count() >= 1`);
  await expect(row).toContainText('1000000000 (1,000 USDC; known token list)');
  await expect(row).toContainText(`Allows what the condition selects once 1 of these users approve: ${root.userName}.`);
  // No UUID anywhere in the list: every id it holds is named.
  await expect(page.getByRole('table', { name: 'Policies' })).not.toContainText(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
  await screenshotBothThemes(page, 'policies-in-words');

  await row.getByRole('button', { name: `Edit Any 1 of ${root.userName}` }).click();
  const update = page.getByRole('form', { name: `Edit policy Any 1 of ${root.userName}` });
  const condition = update.getByRole('textbox', { name: 'Condition' });
  await condition.fill((await condition.inputValue()).replace('1000000000', '2000000000'));
  await update.getByRole('button', { name: 'Review changes…' }).click();
  const review = page.getByRole('dialog', { name: 'Review the update' });
  await expect(review.getByLabel('Changes').getByRole('heading')).toHaveText(['Condition']);
  await expect(review.locator('.diff-token-removed')).toHaveText('[removed: 1,000,000,000 (1,000 USDC; known token list)]');
  await expect(review.locator('.diff-token-added')).toHaveText('[added: 2,000,000,000 (2,000 USDC; known token list)]');
  await screenshotBothThemes(page, 'policy-token-diff');
});

test('a 2-of-2 root quorum of the two operators the policies ask for: Policies and Users say the policies protect nothing', async ({
  page,
  host,
}) => {
  const { rootUserId } = await startSandbox(page, host);
  const root = new ApiClient({ profile: (await host.services.profiles.getActive())!, stamper: new Stamper(host.services.keychain) });
  const [beaId] = await createKeyedUsers(host, root, ['Bea']);
  const operator = (userId: string) => `approvers.any(user, user.id == '${userId}')`;
  await host.handlers['policies.create']({
    name: 'USDC up to 1,000: one operator',
    effect: 'EFFECT_ALLOW',
    condition: "activity.resource == 'WALLET'",
    consensus: `${operator(rootUserId)} || ${operator(beaId!)}`,
  });
  await host.handlers['policies.create']({
    name: 'USDC above 1,000: both operators',
    effect: 'EFFECT_ALLOW',
    condition: "activity.resource == 'WALLET'",
    consensus: `${operator(rootUserId)} && ${operator(beaId!)}`,
  });
  const quorum = await host.handlers['organization.updateRootQuorum']({ userIds: [rootUserId, beaId!], threshold: 2 });
  expect(quorum.state).toBe('completed');
  await page.reload();

  const said =
    'The root quorum is Root user and Bea, the same people the policies ask for: the policies protect nothing against those two — together they can approve anything as the root quorum.';
  await openScreen(page, 'Policies');
  const notice = page.getByRole('note', { name: 'The policies and the root quorum' });
  await expect(notice).toContainText(said);
  await screenshotBothThemes(page, 'policies-root-overlap');
  await openScreen(page, 'Users');
  await expect(notice).toContainText(said);
});
