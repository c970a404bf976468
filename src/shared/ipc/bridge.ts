/**
 * The renderer's API, built from the IPC contract: one named async method per channel (`api.keys.listApiKeys()`),
 * plus `onEvent` for the events main pushes (src/shared/ipc/events.ts), and nothing else. The same builder serves the
 * preload (invoke = ipcRenderer.invoke, events from ipcRenderer.on) and the e2e harness (a Playwright binding and
 * page.evaluate), so both expose exactly the same API.
 */
import { z } from 'zod';
import { QkError, toQkError, type ErrorData } from '../errors';
import {
  channels,
  describeIssues,
  errorDataSchema,
  ipcContract,
  splitChannel,
  type Channel,
  type ChannelInput,
  type ChannelOutput,
  type NoInputChannel,
} from './contract';

/** Sends one request to main; resolves with main's `IpcResult` envelope (still unvalidated). */
export type Invoke = (channel: Channel, input: unknown) => Promise<unknown>;

/**
 * Hands every event main pushes to `listener`, as it arrived (the renderer validates it, as main validates inputs);
 * answers the function that stops listening.
 */
export type SubscribeToEvents = (listener: (event: unknown) => void) => () => void;

type MethodFor<C extends Channel> = C extends NoInputChannel
  ? () => Promise<ChannelOutput<C>>
  : (input: ChannelInput<C>) => Promise<ChannelOutput<C>>;

type NamespaceOf<C extends Channel> = C extends `${infer N}.${string}` ? N : never;

export type QuorumKeyApi = {
  readonly [N in NamespaceOf<Channel>]: {
    readonly [C in Channel as C extends `${N}.${infer M}` ? M : never]: MethodFor<C>;
  };
} & { readonly onEvent: SubscribeToEvents };

type Methods = Record<string, (input?: unknown) => Promise<unknown>>;

declare global {
  interface Window {
    readonly quorumkey: QuorumKeyApi;
  }
}

export function createBridgeApi(invoke: Invoke, subscribe: SubscribeToEvents): QuorumKeyApi {
  const api: Record<string, Methods> = {};
  for (const name of channels) {
    const [namespace, method] = splitChannel(name);
    api[namespace] ??= {};
    api[namespace][method] = (input?: unknown) => call(invoke, name, input);
  }
  return { ...api, onEvent: (listener: (event: unknown) => void) => subscribe(listener) } as unknown as QuorumKeyApi;
}

async function call(invoke: Invoke, name: Channel, input: unknown): Promise<unknown> {
  let envelope: unknown;
  try {
    envelope = await invoke(name, input === undefined ? {} : input);
  } catch (error) {
    throw new QkError('INTERNAL', `IPC call ${name} failed in transport: ${toQkError(error).message}`, { channel: name });
  }
  const result = resultSchemaFor(name).safeParse(envelope);
  if (!result.success) {
    throw new QkError('RESPONSE_INVALID', `main answered ${name} with an unexpected shape: ${describeIssues(result.error)}`, {
      channel: name,
    });
  }
  if (!result.data.ok) throw QkError.fromData(result.data.error);
  return result.data.value;
}

const resultSchemas = new Map<Channel, z.ZodType<{ ok: true; value: unknown } | { ok: false; error: ErrorData }>>();

function resultSchemaFor(name: Channel) {
  let schema = resultSchemas.get(name);
  if (schema === undefined) {
    schema = z.discriminatedUnion('ok', [
      z.strictObject({ ok: z.literal(true), value: ipcContract[name].output }),
      z.strictObject({ ok: z.literal(false), error: errorDataSchema }),
    ]);
    resultSchemas.set(name, schema);
  }
  return schema;
}

/**
 * Electron's contextBridge copies a thrown Error as `new Error(message)`, dropping `code` and `details`, but copies
 * plain objects intact. So the API handed to contextBridge rejects with `ErrorData`, and the renderer turns that back
 * into a QkError with {@link bridgeError}.
 */
export function withPlainErrors(api: QuorumKeyApi): QuorumKeyApi {
  const { onEvent, ...namespaces } = api;
  const plain: Record<string, Methods> = {};
  for (const [namespace, methods] of Object.entries(namespaces as unknown as Record<string, Methods>)) {
    plain[namespace] = {};
    for (const [method, fn] of Object.entries(methods)) {
      plain[namespace][method] = (input?: unknown) =>
        fn(input).catch((error: unknown) => {
          // Plain data on purpose: contextBridge would strip an Error down to its message.
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          throw toQkError(error).toData();
        });
    }
  }
  return { ...plain, onEvent } as unknown as QuorumKeyApi;
}

/** Whatever a bridge method rejected with (a QkError, or its ErrorData after crossing contextBridge), as a QkError. */
export function bridgeError(error: unknown): QkError {
  if (error instanceof QkError) return error;
  const data = errorDataSchema.safeParse(error);
  return data.success ? QkError.fromData(data.data) : toQkError(error);
}
