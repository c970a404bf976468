/**
 * Main's side of the IPC contract: one `ipcMain.handle` per channel, each going through {@link createDispatch},
 * which checks the sender, validates the input, runs the handler, validates the output and turns every failure into
 * a typed `{ok: false, error}`. Nothing thrown ever reaches Electron.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import type { z } from 'zod';
import { QkError, toQkError } from '../../shared/errors';
import {
  channels,
  describeIssues,
  ipcContract,
  isChannel,
  issuePath,
  type Channel,
  type HandlerInput,
  type IpcContract,
  type IpcResult,
} from '../../shared/ipc/contract';

/** One handler per channel: a missing entry is a type error here and a registration error at run time. */
export type IpcHandlers = {
  readonly [C in Channel]: (input: HandlerInput<C>) => Promise<z.input<IpcContract[C]['output']>>;
};

export interface DispatchOptions {
  handlers: IpcHandlers;
  /** Whether a request from this page URL may be served (see createRendererUrlCheck). */
  isTrustedSender: (url: string) => boolean;
}

/**
 * The transport-free request path, shared by Electron's ipcMain and the e2e harness. `senderUrl` is the URL of the
 * top-level frame that sent the request, or undefined when it is unknown (a destroyed frame, a subframe).
 */
export type Dispatch = (channel: string, input: unknown, senderUrl: string | undefined) => Promise<IpcResult>;

export function createDispatch({ handlers, isTrustedSender }: DispatchOptions): Dispatch {
  for (const name of channels) {
    if (typeof handlers[name] !== 'function') {
      throw new QkError('INTERNAL', `no IPC handler for channel ${name}; add it to the handler table`, { channel: name });
    }
  }
  return async (channel, input, senderUrl) => {
    try {
      return { ok: true, value: await serve(handlers, isTrustedSender, channel, input, senderUrl) };
    } catch (error) {
      return { ok: false, error: toQkError(error).toData() };
    }
  };
}

async function serve(
  handlers: IpcHandlers,
  isTrustedSender: (url: string) => boolean,
  channel: string,
  input: unknown,
  senderUrl: string | undefined,
): Promise<unknown> {
  if (senderUrl === undefined || !isTrustedSender(senderUrl)) {
    throw new QkError(
      'IPC_SENDER_REJECTED',
      senderUrl === undefined
        ? `IPC request ${String(channel).slice(0, 100)} came from no known top-level frame; only the QuorumKey window may call main`
        : `IPC request ${String(channel).slice(0, 100)} came from ${senderUrl.slice(0, 200)}, which is not the QuorumKey renderer`,
    );
  }
  if (!isChannel(channel)) {
    throw new QkError('OPERATION_NOT_FOUND', `there is no IPC channel named ${JSON.stringify(String(channel).slice(0, 100))}`);
  }
  const { input: inputSchema, output: outputSchema } = ipcContract[channel];
  const parsedInput = inputSchema.safeParse(input);
  if (!parsedInput.success) {
    throw new QkError('REQUEST_INVALID', `invalid input for ${channel}: ${describeIssues(parsedInput.error)}`, {
      channel,
      issues: parsedInput.error.issues.slice(0, 10).map((issue) => ({ path: issuePath(issue), code: issue.code })),
    });
  }
  const handler = handlers[channel] as (input: unknown) => Promise<unknown>;
  const value = await handler(parsedInput.data);
  const parsedOutput = outputSchema.safeParse(value);
  if (!parsedOutput.success) {
    // Paths and codes only: the rejected value may be exactly what must not leave main.
    const where = parsedOutput.error.issues
      .slice(0, 10)
      .map(
        (issue) =>
          `${issuePath(issue).join('.') || '(root)'} ${issue.code}${issue.code === 'unrecognized_keys' ? ` ${issue.keys.join(',').slice(0, 200)}` : ''}`,
      )
      .join('; ');
    throw new QkError('INTERNAL', `the ${channel} handler returned a result outside the IPC contract (${where}); this is a bug`, {
      channel,
    });
  }
  return parsedOutput.data;
}

export interface RegisterOptions extends DispatchOptions {
  ipcMain: Pick<IpcMain, 'handle'>;
}

/** Registers one handler per contract channel and returns the dispatch they share. */
export function registerIpcHandlers({ ipcMain, handlers, isTrustedSender }: RegisterOptions): Dispatch {
  const dispatch = createDispatch({ handlers, isTrustedSender });
  for (const name of channels) {
    ipcMain.handle(name, (event: IpcMainInvokeEvent, input: unknown) => dispatch(name, input, topFrameUrl(event)));
  }
  return dispatch;
}

/** The sending frame's URL when it is a live top-level frame; subframes and vanished frames get undefined. */
function topFrameUrl(event: IpcMainInvokeEvent): string | undefined {
  try {
    const frame = event.senderFrame;
    if (frame === null || frame.parent !== null) return undefined;
    return frame.url;
  } catch {
    return undefined;
  }
}
