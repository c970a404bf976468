/**
 * Where the inbox's desktop notifications and waiting count go: the OS in the app (electron-notifier.ts), a recorder
 * in the browser preview and the tests. The inbox decides what is said; a notifier only shows it.
 */

/**
 * What a notification is about: one of the inbox's kinds, or a bare count (of what waits, while the app is locked; of
 * what a look had to tell beyond its share of notifications).
 */
export type NotificationKind = 'waiting' | 'decided' | 'expiring' | 'count';

export interface DesktopNotification {
  kind: NotificationKind;
  title: string;
  body: string;
  /** Told when the person clicks the notification. */
  onClick: () => void;
}

export interface Notifier {
  show(notification: DesktopNotification): void;
  /** Takes back every notification still shown (their content must not outlive an unlock). */
  withdrawAll(): void;
  /** The dock / taskbar / tray count: how many approvals wait for this user (0 clears it). */
  setBadge(count: number): void;
}
