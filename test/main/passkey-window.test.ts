/**
 * The window main opens its passkey page in: isolated from the app's page (no preload, a session of its own), kept on
 * main's loopback page, and closed by main once the ceremony is over.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBrowserWindow, FakeSession, resetOwnWindowElectron } from '../support/own-window-electron';

vi.mock('electron', () => import('../support/own-window-electron'));

const { openPasskeyWindow } = await import('../../src/main/passkeys/passkey-window');

const PAGE_URL = 'http://localhost:43123/passkey/Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
const parentWindow = { id: 'the app window' };

beforeEach(resetOwnWindowElectron);

describe('the passkey window', () => {
  it("opens main's page modal over the app window, with no preload and a session of its own", async () => {
    await openPasskeyWindow(() => parentWindow as never)(PAGE_URL);
    const [window] = FakeBrowserWindow.created;
    expect(window!.url).toBe(PAGE_URL);
    expect(window!.options).toMatchObject({ parent: parentWindow, modal: true, show: false });
    const preferences = window!.options.webPreferences;
    expect(preferences).not.toHaveProperty('preload');
    expect(preferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, devTools: false });
    expect(preferences.session).toBe(FakeSession.byPartition.get('qk-passkey'));
  });

  it('denies every permission, navigation and new window', async () => {
    await openPasskeyWindow(() => undefined)(PAGE_URL);
    const [window] = FakeBrowserWindow.created;
    const session = FakeSession.byPartition.get('qk-passkey')!;
    const granted = vi.fn();
    session.permissionRequest!({}, 'media', granted);
    expect(granted).toHaveBeenCalledWith(false);
    expect(session.permissionCheck!({}, 'hid')).toBe(false);
    const navigation = { preventDefault: vi.fn() };
    window!.contentListeners.get('will-navigate')!(navigation, 'https://evil.example/');
    expect(navigation.preventDefault).toHaveBeenCalledOnce();
    expect(window!.windowOpenHandler!()).toEqual({ action: 'deny' });
    expect(window!.options).not.toHaveProperty('parent');
  });

  it('is closed by main once, and tells main when the person closed it', async () => {
    const shown = await openPasskeyWindow(() => undefined)(PAGE_URL);
    const [window] = FakeBrowserWindow.created;
    let closed = false;
    void shown.closed.then(() => (closed = true));
    shown.close();
    shown.close();
    await shown.closed;
    expect(closed).toBe(true);
    expect(window!.close).toHaveBeenCalledOnce();
  });

  it("opens nothing but main's loopback passkey page", async () => {
    for (const url of [
      'https://evil.example/passkey/x',
      'http://127.0.0.1:43123/passkey/x',
      'http://localhost:43123/index.html',
      'file:///etc/passwd',
    ]) {
      await expect(openPasskeyWindow(() => undefined)(url)).rejects.toMatchObject({ code: 'INTERNAL' });
    }
    expect(FakeBrowserWindow.created).toEqual([]);
  });
});
