/**
 * Main's passkey page shown in a Chromium page of its own, with Chromium's virtual FIDO2 authenticator (CDP
 * `WebAuthn.addVirtualAuthenticator`: CTAP2 over USB, with user verification) standing in for the person's security
 * key: the `openPasskeyPage` of the e2e host and of vitest tests against a real Sandbox. The one page is navigated
 * to each ceremony's URL, so the same authenticator (and the credential it made) serves every ceremony.
 */
import type { BrowserContext, Page } from '@playwright/test';
import type { OpenPasskeyPage } from '../../src/main/passkeys/passkey-page';

/** What a ceremony's page stated when it was shown, as a person read it. */
export interface ShownPasskeyCeremony {
  url: string;
  heading: string;
  reading: string;
  bodyFingerprint: string | undefined;
}

export interface VirtualSecurityKey {
  /** The page main's passkey pages are shown in. */
  readonly page: Page;
  readonly openPasskeyPage: OpenPasskeyPage;
  /** Every ceremony page shown, in order. */
  readonly shown: readonly ShownPasskeyCeremony[];
  /** The credentials the virtual authenticator holds (CDP's view: base64 id, sign count). */
  credentials(): Promise<{ credentialId: string; signCount: number }[]>;
}

export async function virtualSecurityKey(context: BrowserContext): Promise<VirtualSecurityKey> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'usb',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const shown: ShownPasskeyCeremony[] = [];
  let closedListeners: (() => void)[] = [];
  page.on('close', () => closedListeners.forEach((listener) => listener()));
  return {
    page,
    shown,
    openPasskeyPage: async (url) => {
      await page.goto(url);
      shown.push({
        url,
        heading: await page.locator('h1').innerText(),
        reading: await page.locator('#reading').innerText(),
        bodyFingerprint: (await page.locator('#body-fingerprint').count()) > 0 ? await page.locator('#body-fingerprint').innerText() : undefined,
      });
      const closed = new Promise<void>((done) => closedListeners.push(done));
      return {
        // Main is done with the ceremony: the page leaves it, as a closed window would (the authenticator stays).
        close: () => {
          closedListeners = [];
        },
        closed,
      };
    },
    async credentials() {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials.map(({ credentialId, signCount }) => ({ credentialId, signCount }));
    },
  };
}
