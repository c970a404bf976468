/**
 * Users → a user's credentials, and the move of the Sandbox profile from its keychain key to a key on a SoftHSM2
 * token: generate it there, add it to the user, switch the profile, then remove the keychain key. Before, main's
 * lock-out guard refuses that removal; after, main's confirmation names the token key and the body's fingerprint.
 * Skipped, saying so, only where softhsm2 is not installed (.ci/run installs it).
 */
import { initSoftHsmToken, SOFTHSM_MODULE, softhsmPresent } from '../support/softhsm';
import { test, expect, openScreen, screenshotBothThemes, startSandbox } from './fixtures';

const TOKEN_LABEL = 'qk-cred';
const PIN = '864200';

test.skip(!softhsmPresent, 'softhsm2 is not installed');

test("a user's credentials by kind, and the guided move to a hardware key", async ({ page, host }) => {
  const removeToken = await initSoftHsmToken(TOKEN_LABEL, PIN);
  try {
    await startSandbox(page, host);
    const root = (await host.handlers['approvals.whoami']({})).userId;
    const lookup = await host.handlers['organization.lookup']({});
    const rootName = lookup.users.find((user) => user.userId === root)!.userName;
    await openScreen(page, 'Users');
    await page.getByRole('button', { name: `Credentials of ${rootName}` }).click();
    const dialog = page.getByRole('dialog', { name: `Credentials of ${rootName}` });
    const list = dialog.getByRole('table', { name: `Credentials of ${rootName}` });
    const keychainRow = list.getByRole('row').nth(1);
    await expect(keychainRow).toContainText("API key in this desktop's keychain");
    await expect(keychainRow).toContainText('Sandbox');
    await expect(keychainRow).toContainText('Refused: it removes API key');
    await expect(keychainRow.getByRole('button', { name: /^Remove API key/ })).toBeDisabled();

    const move = dialog.getByRole('region', { name: /to a hardware key$/ });
    host.answerPinPrompts(PIN);
    await move.getByLabel('Module').selectOption(SOFTHSM_MODULE);
    await move.getByLabel('Token label').fill(TOKEN_LABEL);
    await move.getByRole('button', { name: 'Open token' }).click();
    await move.getByLabel('New key label').fill('desk');
    await move.getByRole('button', { name: 'Generate on token' }).click();
    await expect(move.getByLabel('Token key', { exact: true })).toHaveValue(/^0[23]/);
    await move.getByRole('button', { name: `Add it to ${rootName} as an API key` }).click();
    await expect(move.getByText('Added.')).toBeVisible();
    const tokenRow = list.getByRole('row', { name: /desk on qk-cred/ });
    await expect(tokenRow).toContainText('API key held elsewhere');
    await move.getByRole('button', { name: 'Sign Sandbox with it' }).click();

    // Now the token key signs for the profile: it is named as this desktop's, and the keychain key may go.
    await expect(tokenRow).toContainText(`API key on hardware token "${TOKEN_LABEL}" (key "desk") of this desktop`);
    await expect(keychainRow).not.toContainText('Refused');
    await screenshotBothThemes(page, 'users-credentials', dialog);
    const before = host.confirmations.length;
    await keychainRow.getByRole('button', { name: /^Remove API key/ }).click();
    await expect(list.getByRole('row')).toHaveCount(2);
    const asked = host.confirmations.slice(before).find((request) => request.reading?.activityType === 'ACTIVITY_TYPE_DELETE_API_KEYS');
    expect(asked?.reading?.signedBy?.credential).toMatch(new RegExp(`^PKCS#11 token "${TOKEN_LABEL}" key "desk" \\(CKA_ID [0-9a-f]{32}\\)$`));
    expect(asked?.detail).toContain(`It signs the body with fingerprint: ${asked?.reading?.signedBy?.bodyFingerprint}`);
    expect(await page.content()).not.toContain(PIN);
  } finally {
    await host.services.pkcs11.close();
    await removeToken();
  }
});
