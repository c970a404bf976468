/**
 * Main's passkey page in Debian's Chromium, with its virtual authenticator: once the page has answered (the key
 * touched, or the authenticator refusing), it says how it ended and offers no Cancel, since nothing is left to cancel.
 */
import { randomBytes } from 'node:crypto';
import { chromium, type Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertPasskeyOnPage, createPasskeyOnPage } from '../../src/main/passkeys/passkey-ceremonies';
import { findChromium } from '../support/chromium';
import { virtualSecurityKey, type VirtualSecurityKey } from '../support/virtual-authenticator';

let browser: Browser;
let key: VirtualSecurityKey;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  key = await virtualSecurityKey(await browser.newContext());
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe("the passkey page's Cancel", () => {
  it('is gone once the new key answered, the page saying it is done', async () => {
    const attestation = await createPasskeyOnPage(
      { openPage: key.openPasskeyPage },
      { challenge: randomBytes(32), userId: 'user-bea', userName: 'Bea', reading: ['A new security key named "yk" for user "Bea".'] },
    );
    expect(attestation.credentialId).not.toBe('');
    await expect.poll(() => key.page.locator('#status').innerText()).toBe('Done: you can close this window.');
    expect(await key.page.locator('#cancel').isHidden()).toBe(true);
  });

  it('is gone once the authenticator refused, with what it answered', async () => {
    const vote = assertPasskeyOnPage({ openPage: key.openPasskeyPage, timeoutMs: 5_000 });
    // A credential the virtual authenticator does not hold: it has nothing to sign with.
    const unknown = {
      name: 'lost key',
      credentialId: 'AAAAAAAAAAAAAAAAAAAAAA',
      publicKey: `04${'11'.repeat(64)}`,
      authenticatorId: 'authenticator-lost',
    };
    await expect(vote({ passkey: unknown, body: '{"type":"ACTIVITY_TYPE_APPROVE_ACTIVITY"}', reading: 'Approving "Send 1 ETH"' })).rejects.toThrow();
    await expect.poll(() => key.page.locator('#status').innerText()).toMatch(/^No answer: /);
    expect(await key.page.locator('#cancel').isHidden()).toBe(true);
  });
});
