/**
 * The Keys screen's token panel against a real SoftHSM2 token: choose the module main offers, open the token (main
 * asks the PIN on its own surface, played here by the host), generate a key there and see it listed as kept on the
 * hardware. Skipped, saying so, only where softhsm2 is not installed (.ci/run installs it).
 */
import { initSoftHsmToken, SOFTHSM_MODULE, softhsmPresent } from '../support/softhsm';
import { test, expect, openScreen, screenshotBothThemes } from './fixtures';

const TOKEN_LABEL = 'qk-e2e';
const PIN = '975310';

test.skip(!softhsmPresent, 'softhsm2 is not installed');

test('generate a key on a token from the Keys screen, the PIN asked by main and never by the page', async ({ page, host }) => {
  const removeToken = await initSoftHsmToken(TOKEN_LABEL, PIN);
  try {
    await openScreen(page, 'Keys');
    const panel = page.getByRole('region', { name: 'Keys on hardware tokens' });
    await panel.getByLabel('Module').selectOption(SOFTHSM_MODULE);
    const tokens = panel.getByRole('table', { name: 'Tokens' });
    await expect(tokens.getByRole('row', { name: new RegExp(TOKEN_LABEL) })).toContainText('SoftHSM project');
    expect(host.pinPrompts).toEqual([]);

    // Cancelled at main's prompt: nothing opens, and the page says why.
    await tokens.getByRole('button', { name: `Open token ${TOKEN_LABEL}` }).click();
    await expect(panel.getByRole('alert')).toContainText('PIN');
    expect(host.pinPrompts).toEqual([{ module: SOFTHSM_MODULE, tokenLabel: TOKEN_LABEL }]);

    host.answerPinPrompts(PIN);
    await tokens.getByRole('button', { name: `Open token ${TOKEN_LABEL}` }).click();
    await expect(panel.getByText(`Token ${TOKEN_LABEL} holds no P-256 key yet.`)).toBeVisible();
    const generate = panel.getByRole('form', { name: `Generate a key on token ${TOKEN_LABEL}` });
    await generate.getByLabel('Key label').fill('desk');
    await generate.getByRole('button', { name: 'Generate on token' }).click();

    const keys = panel.getByRole('table', { name: `Keys on token ${TOKEN_LABEL}` });
    const row = keys.getByRole('row', { name: /desk/ });
    await expect(row).toContainText('on hardware: not extractable');
    await expect(row).toContainText('no profile');
    const [onToken] = await host.services.pkcs11.listKeys({ module: SOFTHSM_MODULE, tokenLabel: TOKEN_LABEL });
    await expect(row.locator('code[title]')).toHaveAttribute('title', onToken!.publicKey);
    // One session for the token: the second open asked once more after the cancel, generating asked nothing.
    expect(host.pinPrompts).toHaveLength(2);
    expect(await page.content()).not.toContain(PIN);
    await screenshotBothThemes(page, 'keys-token', panel);
  } finally {
    await host.services.pkcs11.close();
    await removeToken();
  }
});
