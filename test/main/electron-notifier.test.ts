import { beforeEach, describe, expect, it, vi } from 'vitest';

const os = vi.hoisted(() => ({
  supported: true,
  badge: undefined as number | undefined,
  notifications: [] as { options: { title: string; body: string }; shown: boolean; closed: boolean; listeners: Map<string, () => void> }[],
}));

vi.mock('electron', () => {
  class Notification {
    static isSupported = () => os.supported;
    readonly record;
    constructor(options: { title: string; body: string }) {
      this.record = { options, shown: false, closed: false, listeners: new Map<string, () => void>() };
      os.notifications.push(this.record);
    }
    on(event: string, listener: () => void) {
      this.record.listeners.set(event, listener);
      return this;
    }
    show() {
      this.record.shown = true;
    }
    close() {
      this.record.closed = true;
      this.record.listeners.get('close')?.();
    }
  }
  return { Notification, app: { setBadgeCount: (count: number) => (os.badge = count) } };
});

const { electronNotifier } = await import('../../src/main/inbox/electron-notifier');

describe('electronNotifier', () => {
  beforeEach(() => {
    os.supported = true;
    os.notifications.length = 0;
  });

  it('shows a notification with its title and body, and tells the inbox when it is clicked', () => {
    const notifier = electronNotifier();
    const onClick = vi.fn();
    notifier.show({ kind: 'waiting', title: 'Your vote: Rename a user', body: 'On Acme (profile Bob).', onClick });
    expect(os.notifications).toEqual([
      expect.objectContaining({ options: { title: 'Your vote: Rename a user', body: 'On Acme (profile Bob).' }, shown: true }),
    ]);
    os.notifications[0]!.listeners.get('click')!();
    expect(onClick).toHaveBeenCalledOnce();
  });

  it('takes back every notification still shown, and none it no longer holds', () => {
    const notifier = electronNotifier();
    notifier.show({ kind: 'waiting', title: 'a', body: 'a', onClick: () => undefined });
    notifier.show({ kind: 'decided', title: 'b', body: 'b', onClick: () => undefined });
    os.notifications[0]!.listeners.get('click')!();
    notifier.withdrawAll();
    expect(os.notifications.map((notification) => notification.closed)).toEqual([false, true]);
  });

  it('shows nothing where the OS has no notifications, and sets the badge count', () => {
    os.supported = false;
    const notifier = electronNotifier();
    notifier.show({ kind: 'count', title: 'QuorumKey', body: '2 approvals waiting', onClick: () => undefined });
    expect(os.notifications).toEqual([]);
    notifier.setBadge(3);
    expect(os.badge).toBe(3);
    notifier.setBadge(0);
    expect(os.badge).toBe(0);
  });
});
