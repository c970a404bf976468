/**
 * The token PIN prompt main draws itself: its window's isolation, its page (one hashed script, every value escaped,
 * the reading and fingerprint it signs), and how an answer comes back (read and cleared, or none at all).
 */
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PinRequest } from '../../src/main/pkcs11/pkcs11-tokens';
import { FakeBrowserWindow, FakeSession, resetOwnWindowElectron } from '../support/own-window-electron';

vi.mock('electron', () => import('../support/own-window-electron'));

const { askPinInWindow } = await import('../../src/main/pkcs11/pin-window');
const { promptPage } = await import('../../src/main/pkcs11/pin-page');

const token: PinRequest = { module: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'yk' };
const signing = {
  reading: 'Approve "Sign an Ethereum transaction" as Bea (profile Bea)? Send 1 ETH to Bob on Ethereum',
  bodyFingerprint: `sha256:${'ab'.repeat(32)}`,
};
const parentWindow = { id: 'the app window' };

beforeEach(resetOwnWindowElectron);

/** Opens a prompt over the app window and answers the window it drew. */
function prompt(request: PinRequest = { ...token, signing }) {
  const answer = askPinInWindow(() => parentWindow as never)(request);
  const [window] = FakeBrowserWindow.created;
  return { answer, window: window! };
}

describe('the PIN window', () => {
  it('is a modal child of the app window, with no preload, its own session, isolated, sandboxed and kept out of captures', () => {
    const { window } = prompt();
    expect(window.options).toMatchObject({ parent: parentWindow, modal: true, show: false, resizable: false });
    const preferences = window.options.webPreferences;
    expect(preferences).not.toHaveProperty('preload');
    expect(preferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, devTools: false });
    expect(preferences.session).toBe(FakeSession.byPartition.get('qk-pin-prompt'));
    expect(window.contentProtection).toBe(true);
    expect(window.url.startsWith('data:text/html;charset=utf-8,')).toBe(true);
  });

  it('is a window of its own when there is no app window to be modal over', () => {
    void askPinInWindow(() => undefined)(token);
    const [window] = FakeBrowserWindow.created;
    expect(window!.options).not.toHaveProperty('parent');
    expect(window!.options).not.toHaveProperty('modal');
  });

  it('denies every permission, navigation and new window', () => {
    const { window } = prompt();
    const session = FakeSession.byPartition.get('qk-pin-prompt')!;
    const granted = vi.fn();
    session.permissionRequest!({}, 'media', granted);
    expect(granted).toHaveBeenCalledWith(false);
    expect(session.permissionCheck!({}, 'clipboard-read')).toBe(false);
    const navigation = { preventDefault: vi.fn() };
    window.contentListeners.get('will-navigate')!(navigation, 'https://evil.example/');
    expect(navigation.preventDefault).toHaveBeenCalledOnce();
    expect(window.windowOpenHandler!()).toEqual({ action: 'deny' });
  });

  it('answers the PIN read from the field, clears the field and closes', async () => {
    const { answer, window } = prompt();
    window.scriptResult = '123456';
    window.setPageTitle('qk-pin:submit');
    await expect(answer).resolves.toBe('123456');
    expect(window.scriptsRun).toHaveLength(1);
    expect(window.scriptsRun[0]).toContain("field.value = ''");
    expect(window.close).toHaveBeenCalledOnce();
  });

  it('answers no PIN on Cancel or Escape (the page titles both the same), and closes', async () => {
    const { answer, window } = prompt();
    window.setPageTitle('qk-pin:cancel');
    await expect(answer).resolves.toBeUndefined();
    expect(window.scriptsRun).toEqual([]);
    expect(window.close).toHaveBeenCalledOnce();
  });

  it('answers no PIN when the window is closed without an answer, and only once', async () => {
    const { answer, window } = prompt();
    window.listeners.get('closed')!();
    window.scriptResult = 'late';
    window.setPageTitle('qk-pin:submit');
    await expect(answer).resolves.toBeUndefined();
  });

  it('answers no PIN when the field cannot be read as text', async () => {
    const { answer, window } = prompt();
    window.scriptResult = { not: 'a PIN' };
    window.setPageTitle('qk-pin:submit');
    await expect(answer).resolves.toBeUndefined();
  });

  it('ignores any other title the page sets', async () => {
    const { answer, window } = prompt();
    window.setPageTitle('qk-pin:submit-now');
    window.setPageTitle('PIN for token yk');
    expect(window.close).not.toHaveBeenCalled();
    window.setPageTitle('qk-pin:cancel');
    await expect(answer).resolves.toBeUndefined();
  });
});

describe('the PIN page', () => {
  it('runs only its one script, whose hash its policy names, and loads nothing else', () => {
    const page = promptPage({ ...token, signing });
    const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(page)![1]!;
    expect(policy).toMatch(/^default-src 'none'; /);
    expect(policy).toContain("form-action 'none'");
    const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    expect(scripts).toHaveLength(1);
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    expect(policy).toContain(`script-src 'sha256-${hash}';`);
    expect(policy.match(/'sha256-/g)).toHaveLength(1);
  });

  it('restates the reading and the body fingerprint it will sign', () => {
    const page = promptPage({ ...token, signing });
    expect(page).toContain(`<code id="body-fingerprint">${signing.bodyFingerprint}</code>`);
    expect(page).toContain('It will sign: <strong id="reading">Approve &#34;Sign an Ethereum transaction&#34; as Bea');
  });

  it('says it signs nothing when it is asked to list or make keys', () => {
    const page = promptPage(token);
    expect(page).toContain('it signs nothing now');
    expect(page).not.toContain('body-fingerprint');
  });

  it('escapes the token label, module, reading and fingerprint, so none of them can add markup or a script', () => {
    const hostile = '"><script>alert(1)</script><img src=x onerror=alert(2)>\'&';
    const page = promptPage({
      module: `/tmp/${hostile}.so`,
      tokenLabel: hostile,
      signing: { reading: hostile, bodyFingerprint: hostile },
    });
    expect(page.match(/<script>/g)).toHaveLength(1);
    expect(page).not.toContain('<img');
    expect(page).not.toContain(hostile);
    expect(page).toContain('&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#60;img src=x onerror=alert(2)&#62;&#39;&#38;');
  });
});
