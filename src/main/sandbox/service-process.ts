/**
 * Runs the Sandbox service in its own process, so a slow or hostile request never blocks main (and with it the
 * window). What launches the process is passed in: Electron's utilityProcess in the app (utility-process.ts), a Node
 * child process in tests and the browser preview (node-process.ts). Both run the service entry with --parent-ipc.
 */
import { setPriority } from 'node:os';
import { isErrorCode, QkError, toQkError } from '../../shared/errors';
import { fromServiceMessageSchema, type ToServiceMessage } from '../../shared/service-process';
import type { SandboxService, SandboxServiceOptions, StartSandboxService } from './sandbox';

/** A launched service process, whichever API launched it. */
export interface ServiceProcess {
  /** The process id, once the process is running. */
  readonly pid: number | undefined;
  send(message: ToServiceMessage): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once, when the process has ended (`code` null when a signal ended it). */
  onExit(listener: (code: number | null) => void): void;
  kill(): void;
}

export type LaunchServiceProcess = () => ServiceProcess;

/**
 * The Sandbox's CPU priority (a nice value; lower than the app's 0): when the machine is busy, the window's process
 * gets the CPU first, so a flood of requests slows the Sandbox rather than the app.
 */
export const SANDBOX_PRIORITY = 10;

/** How long a stopping service may take to finish in-flight requests before it is killed. */
const STOP_TIMEOUT_MS = 10_000;

/** Starts each Sandbox service in a new process from `launch`. */
export function startInOwnProcess(launch: LaunchServiceProcess): StartSandboxService {
  return (options) => startServiceProcess(launch, options);
}

function startServiceProcess(
  launch: LaunchServiceProcess,
  { db, port, serviceSecret, rootPublicKeys, log, now }: SandboxServiceOptions,
): Promise<SandboxService> {
  const child = launch();
  // A Node child has its pid at once; a utility process only once it is up, so by its first message at the latest.
  let prioritised = lowerPriority(child, log);
  const clockOffsetMs = () => (now === undefined ? 0 : Math.round(now() - Date.now()));
  let exited: { code: number | null } | undefined;
  const exitListeners: ((code: number | null) => void)[] = [];
  child.onExit((code) => {
    exited = { code };
    for (const listener of exitListeners.splice(0)) listener(code);
  });
  const whenExited = () => new Promise<number | null>((resolve) => (exited === undefined ? exitListeners.push(resolve) : resolve(exited.code)));

  return new Promise<SandboxService>((resolve, reject) => {
    let started = false;
    let stopping: Promise<void> | undefined;
    let onUnexpectedExit: ((reason: string) => void) | undefined;
    child.onMessage((raw) => {
      prioritised ||= lowerPriority(child, log);
      const parsed = fromServiceMessageSchema.safeParse(raw);
      if (!parsed.success) {
        log?.(`the sandbox process sent a malformed message: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
        return;
      }
      const message = parsed.data;
      if (message.type === 'service-secret-request') {
        serviceSecret(message.databaseHoldsSealedData).then(
          ({ secret, createdAtMs }) => {
            // The message is copied as it is sent; main's copy is wiped at once.
            child.send({ type: 'service-secret', secret, createdAtMs });
            secret.fill(0);
          },
          (error: unknown) => {
            const failure = toQkError(error);
            child.send({ type: 'service-secret-failed', code: failure.code, message: failure.message });
          },
        );
      } else if (message.type === 'log') log?.(message.line);
      // The service's own code is kept (a locked keychain stays KEYCHAIN_LOCKED, with its next step).
      else if (message.type === 'start-failed')
        reject(new QkError(isErrorCode(message.code) ? message.code : 'SANDBOX_UNAVAILABLE', `the sandbox did not start: ${message.message}`));
      else if (message.type === 'started' && !started) {
        started = true;
        resolve({
          info: message.info,
          syncClock: () => child.send({ type: 'clock', clockOffsetMs: clockOffsetMs() }),
          onExit: (listener) => (onUnexpectedExit = listener),
          stop: () => {
            stopping ??= (async () => {
              if (exited !== undefined) return;
              child.send({ type: 'stop' });
              const timer = setTimeout(() => child.kill(), STOP_TIMEOUT_MS);
              await whenExited();
              clearTimeout(timer);
            })();
            return stopping;
          },
        });
      }
    });
    child.onExit((code) => {
      const reason = `the sandbox process ended (${code === null ? 'killed by a signal' : `exit code ${code}`})`;
      if (!started) reject(new QkError('SANDBOX_UNAVAILABLE', `${reason} before it started`));
      else if (stopping === undefined) onUnexpectedExit?.(reason);
    });
    child.send({ type: 'start', db, port, rootPublicKeys: [...rootPublicKeys], clockOffsetMs: clockOffsetMs() });
  });
}

/** Answers whether it is done (tried, whatever the outcome), false while the process has no pid yet. */
function lowerPriority(child: ServiceProcess, log: ((line: string) => void) | undefined): boolean {
  if (child.pid === undefined) return false;
  try {
    setPriority(child.pid, SANDBOX_PRIORITY);
  } catch (error) {
    // Not fatal: the Sandbox still runs in its own process, only at the app's priority.
    log?.(`could not lower the sandbox process's priority: ${(error as Error).message}`);
  }
  return true;
}
