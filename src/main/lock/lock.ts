import { QkError } from '../../shared/errors';
import type { Channel } from '../../shared/ipc/contract';
import type { IpcHandlers } from '../ipc/register';

/**
 * What the renderer may still ask while locked: enough to draw the lock screen and to unlock, and to say that a
 * revealed secret left the screen when the lock screen replaced it.
 */
export const CHANNELS_OPEN_WHILE_LOCKED: ReadonlySet<Channel> = new Set<Channel>([
  'app.unlock',
  'app.info',
  'app.getSettings',
  'app.setSecretOnScreen',
]);

/**
 * Whether the app is locked. The state lives in main, not in the renderer, so a locked app refuses work even if the
 * page's own state is tampered with. Unlocking goes through the Unlocker (src/main/lock), which asks for the unlock
 * passphrase once one is set; the OS keychain remains the guard of the secrets themselves.
 */
export class AppLock {
  #locked: boolean;
  readonly #onLock: (() => void)[] = [];
  readonly #onChange: ((locked: boolean) => void)[] = [];

  constructor({ locked = false }: { locked?: boolean } = {}) {
    this.#locked = locked;
  }

  get locked(): boolean {
    return this.#locked;
  }

  /** Runs `listener` every time the app locks, whoever locked it (the person, idle time, screen lock, suspend). */
  onLock(listener: () => void): void {
    this.#onLock.push(listener);
  }

  /** Runs `listener` every time the app locks or unlocks. */
  onChange(listener: (locked: boolean) => void): void {
    this.#onChange.push(listener);
  }

  lock(): void {
    const changed = !this.#locked;
    this.#locked = true;
    for (const listener of this.#onLock) listener();
    if (changed) for (const listener of this.#onChange) listener(true);
  }

  unlock(): void {
    const changed = this.#locked;
    this.#locked = false;
    if (changed) for (const listener of this.#onChange) listener(false);
  }
}

/** Wraps every handler so that, while `lock` is locked, it answers APP_LOCKED instead of running. */
export function guardWhileLocked(handlers: IpcHandlers, lock: AppLock): IpcHandlers {
  const guarded: Record<string, (input: never) => Promise<unknown>> = {};
  for (const [name, handler] of Object.entries(handlers) as [Channel, (input: never) => Promise<unknown>][]) {
    guarded[name] = CHANNELS_OPEN_WHILE_LOCKED.has(name)
      ? handler
      : async (input) => {
          if (lock.locked) throw new QkError('APP_LOCKED', `QuorumKey is locked; unlock it before ${name}`, { channel: name });
          return handler(input);
        };
  }
  return guarded as unknown as IpcHandlers;
}
