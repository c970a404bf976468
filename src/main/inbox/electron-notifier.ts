/**
 * The inbox's notifications as the OS shows them (Electron's Notification), and the waiting count as the dock's or
 * taskbar's badge (app.setBadgeCount: macOS and Linux launchers that show one; Windows has no count badge).
 */
import { app, Notification } from 'electron';
import type { Notifier } from './notifier';

export function electronNotifier(): Notifier {
  // Kept until clicked or closed, so a lock can take back what is still shown (and so none is collected early).
  const shown = new Set<Notification>();
  return {
    show({ title, body, onClick }) {
      if (!Notification.isSupported()) return;
      const notification = new Notification({ title, body });
      shown.add(notification);
      notification.on('click', () => {
        shown.delete(notification);
        onClick();
      });
      notification.on('close', () => shown.delete(notification));
      notification.show();
    },
    withdrawAll() {
      for (const notification of shown) notification.close();
      shown.clear();
    },
    setBadge(count) {
      app.setBadgeCount(count);
    },
  };
}
