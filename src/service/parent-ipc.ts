/**
 * The service entry run by main as the Sandbox's own process: it waits for main's `start` message, serves, forwards
 * its log lines, and stops when told to (or when main goes away). The channel is Electron's parentPort in a utility
 * process, the IPC channel of a Node child process otherwise.
 */
import { isErrorCode, QkError, toQkError } from '../shared/errors';
import { fromServiceMessageSchema, toServiceMessageSchema, type FromServiceMessage } from '../shared/service-process';
import { startService, type RunningService, type ServiceSecret } from './index';

interface ParentChannel {
  /** Resolves once the message has left this process. */
  send(message: FromServiceMessage): Promise<void>;
  onMessage(listener: (message: unknown) => void): void;
  /** Called when main can no longer talk to this process. */
  onGone(listener: () => void): void;
}

interface ElectronParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
}

function parentChannel(): ParentChannel | undefined {
  const port = (process as { parentPort?: ElectronParentPort }).parentPort;
  if (port !== undefined) {
    // Electron ends a utility process with its parent, so there is no disconnect to watch for.
    return {
      send: async (message) => port.postMessage(message),
      onMessage: (listener) => port.on('message', ({ data }) => listener(data)),
      onGone: () => undefined,
    };
  }
  const send = process.send?.bind(process);
  if (send === undefined) return undefined;
  return {
    send: (message) => new Promise((sent) => void send(message, undefined, undefined, () => sent())),
    onMessage: (listener) => process.on('message', listener),
    onGone: (listener) => process.once('disconnect', listener),
  };
}

/** Serves main over its IPC channel; answers false when there is none (the entry was not started by main). */
export function serveParent(): boolean {
  const channel = parentChannel();
  if (channel === undefined) return false;
  let service: RunningService | undefined;
  let clockOffsetMs = 0;
  let secretWanted: { resolve: (secret: ServiceSecret) => void; reject: (error: Error) => void } | undefined;
  const send = (message: FromServiceMessage) => channel.send(fromServiceMessageSchema.parse(message));
  const exit = (code: number) => (message: FromServiceMessage) => void send(message).finally(() => process.exit(code));
  const stop = async (): Promise<void> => {
    await service?.close();
    service = undefined;
  };

  channel.onMessage((raw) => {
    const parsed = toServiceMessageSchema.safeParse(raw);
    if (!parsed.success) {
      void send({ type: 'log', line: `ignored a malformed message from main: ${parsed.error.issues[0]?.message ?? 'invalid'}` });
      return;
    }
    const message = parsed.data;
    if (message.type === 'clock') {
      clockOffsetMs = message.clockOffsetMs;
    } else if (message.type === 'service-secret') {
      secretWanted?.resolve({ secret: message.secret, createdAtMs: message.createdAtMs });
      secretWanted = undefined;
    } else if (message.type === 'service-secret-failed') {
      secretWanted?.reject(new QkError(isErrorCode(message.code) ? message.code : 'INTERNAL', message.message));
      secretWanted = undefined;
    } else if (message.type === 'start') {
      if (service !== undefined) {
        void send({ type: 'started', info: service.info });
        return;
      }
      clockOffsetMs = message.clockOffsetMs;
      startService({
        db: message.db,
        port: message.port,
        rootPublicKeys: message.rootPublicKeys,
        now: () => Date.now() + clockOffsetMs,
        log: (line) => void send({ type: 'log', line }),
        serviceSecret: (databaseHoldsSealedData) =>
          new Promise<ServiceSecret>((resolve, reject) => {
            secretWanted = { resolve, reject };
            void send({ type: 'service-secret-request', databaseHoldsSealedData });
          }),
      }).then(
        (started) => {
          service = started;
          void send({ type: 'started', info: started.info });
        },
        (error: unknown) => {
          const failure = toQkError(error);
          exit(1)({ type: 'start-failed', code: failure.code, message: failure.message });
        },
      );
    } else {
      void stop().then(
        () => exit(0)({ type: 'stopped' }),
        (error: unknown) => exit(1)({ type: 'log', line: `the service did not stop cleanly: ${toQkError(error).message}` }),
      );
    }
  });
  channel.onGone(() => void stop().finally(() => process.exit(0)));
  return true;
}
