/**
 * The inbox's notifier in the browser preview and the tests: what the OS would show, kept for the host to read, and
 * a click as the person would make it on one.
 */
import type { DesktopNotification, Notifier } from '../../src/main/inbox/notifier';

export interface RecordedNotification {
  readonly kind: DesktopNotification['kind'];
  readonly title: string;
  readonly body: string;
  /** Still shown: not clicked, and not taken back by a lock. */
  readonly shown: boolean;
}

export class NotificationRecorder implements Notifier {
  readonly #notifications: (DesktopNotification & { shown: boolean })[] = [];
  #badge = 0;

  show(notification: DesktopNotification): void {
    this.#notifications.push({ ...notification, shown: true });
  }

  withdrawAll(): void {
    for (const notification of this.#notifications) notification.shown = false;
  }

  setBadge(count: number): void {
    this.#badge = count;
  }

  /** Every notification shown so far, in order. */
  get notifications(): readonly RecordedNotification[] {
    return this.#notifications.map(({ kind, title, body, shown }) => ({ kind, title, body, shown }));
  }

  get badge(): number {
    return this.#badge;
  }

  /** Clicks the notification at `index` (of `notifications`), as the person would in the OS's notification centre. */
  click(index: number): void {
    const notification = this.#notifications[index];
    if (notification?.shown !== true) throw new Error(`notification ${index} is not shown`);
    notification.shown = false;
    notification.onClick();
  }
}
