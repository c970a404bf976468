/**
 * The session of a small window main draws itself (a token's PIN prompt, a passkey ceremony) rather than the app's
 * page: in memory, by partition, so nothing of the app window's (storage, cache) is shared with it.
 */
import { session as electronSession, type Session } from 'electron';

/** The in-memory session of `partition`, refusing every permission request and check the page may make. */
export function ownWindowSession(partition: string): Session {
  const session = electronSession.fromPartition(partition);
  // WebAuthn and a typed PIN need no permission; anything else (camera, notifications, clipboard) is refused.
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  return session;
}
