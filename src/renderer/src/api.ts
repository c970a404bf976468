/**
 * The renderer's only way to main: `window.quorumkey`, installed by the preload (or by the e2e host). Every call goes
 * through {@link call}, so whatever it rejects with arrives as a QkError, APP_LOCKED locks the UI at once, and
 * REAUTH_REQUIRED (a reveal after an old unlock) asks for the passphrase and then tries once more.
 */
import { QkError } from '../../shared/errors';
import { bridgeError, type QuorumKeyApi } from '../../shared/ipc/bridge';
import { splitChannel, type Channel, type ChannelOutput } from '../../shared/ipc/contract';
import { useUi } from './store';

export function bridge(): QuorumKeyApi {
  // Declared as always present, but a page opened outside the app window has no preload.
  const api = window.quorumkey as QuorumKeyApi | undefined;
  if (api === undefined) {
    throw new QkError(
      'INTERNAL',
      'window.quorumkey is missing: this page must run inside the QuorumKey window (npm start) or npm run preview:browser',
    );
  }
  return api;
}

export async function call<T>(request: (api: QuorumKeyApi) => Promise<T>): Promise<T> {
  try {
    return await request(bridge());
  } catch (thrown) {
    const error = bridgeError(thrown);
    if (error.code === 'APP_LOCKED') useUi.getState().setLocked(true);
    if (error.code === 'REAUTH_REQUIRED' && (await reauthenticated())) return callOnce(request);
    throw error;
  }
}

/** Calls `channel` by its name, as the query and mutation layers do, through {@link call}. */
export function callChannel<C extends Channel>(channel: C, input: unknown): Promise<ChannelOutput<C>> {
  const [namespace, method] = splitChannel(channel);
  return call((api) =>
    (api as unknown as Record<string, Record<string, (input?: unknown) => Promise<ChannelOutput<C>>>>)[namespace]![method]!(input),
  );
}

async function callOnce<T>(request: (api: QuorumKeyApi) => Promise<T>): Promise<T> {
  try {
    return await request(bridge());
  } catch (thrown) {
    throw bridgeError(thrown);
  }
}

/** Shows the re-authentication prompt; true once the person re-entered the passphrase, false if they cancelled. */
function reauthenticated(): Promise<boolean> {
  const { reauth, setReauth } = useUi.getState();
  // One prompt at a time: a newer reveal replaces an older one, which then fails with REAUTH_REQUIRED.
  reauth?.cancel();
  return new Promise((resolve) =>
    setReauth({
      done: () => {
        setReauth(undefined);
        resolve(true);
      },
      cancel: () => {
        setReauth(undefined);
        resolve(false);
      },
    }),
  );
}
