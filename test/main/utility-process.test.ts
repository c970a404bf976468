/** The Electron glue of the Sandbox's utility process, against a mocked `utilityProcess`. */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { ToServiceMessage } from '../../src/shared/service-process';

const forked = vi.hoisted(() => [] as { modulePath: string; args: string[]; options: Record<string, unknown>; child: FakeUtilityProcess }[]);

interface FakeUtilityProcess extends EventEmitter {
  pid: number | undefined;
  stderr: PassThrough;
  posted: unknown[];
  postMessage(message: unknown): void;
  kill: ReturnType<typeof vi.fn>;
}

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  const { PassThrough: Pass } = await import('node:stream');
  return {
    utilityProcess: {
      fork: (modulePath: string, args: string[], options: Record<string, unknown>) => {
        const child = Object.assign(new Emitter(), {
          pid: undefined as number | undefined,
          stderr: new Pass(),
          posted: [] as unknown[],
          kill: vi.fn(() => true),
        });
        const fake = Object.assign(child, { postMessage: (message: unknown) => void child.posted.push(message) }) as FakeUtilityProcess;
        forked.push({ modulePath, args, options, child: fake });
        return fake;
      },
    },
  };
});

const { utilityServiceProcess } = await import('../../src/main/sandbox/utility-process');

describe('utilityServiceProcess', () => {
  it('forks the service entry with --parent-ipc, holds messages until the process is up, and relays the rest', async () => {
    const logged: string[] = [];
    const handle = utilityServiceProcess('/app/out/main/service.js', (line) => logged.push(line))();
    const [{ modulePath, args, options, child }] = forked.splice(0) as [(typeof forked)[number]];
    expect({ modulePath, args }).toEqual({ modulePath: '/app/out/main/service.js', args: ['--parent-ipc'] });
    expect(options).toMatchObject({ serviceName: 'QuorumKey Sandbox', stdio: ['ignore', 'ignore', 'pipe'] });

    const start: ToServiceMessage = { type: 'start', db: '/data/sandbox.db', port: 0, rootPublicKeys: [], clockOffsetMs: 0 };
    handle.send(start);
    expect(child.posted).toEqual([]);
    expect(handle.pid).toBeUndefined();
    child.pid = 4242;
    child.emit('spawn');
    handle.send({ type: 'stop' });
    expect(child.posted).toEqual([start, { type: 'stop' }]);
    expect(handle.pid).toBe(4242);

    const messages: unknown[] = [];
    handle.onMessage((message) => messages.push(message));
    child.emit('message', { type: 'log', line: 'hello' });
    expect(messages).toEqual([{ type: 'log', line: 'hello' }]);

    child.stderr.write('first line\nsecond line\n');
    await vi.waitFor(() => expect(logged).toEqual(['first line', 'second line']));

    const exits: (number | null)[] = [];
    handle.onExit((code) => exits.push(code));
    child.emit('exit', 3);
    child.emit('exit', 3);
    expect(exits).toEqual([3]);

    handle.kill();
    expect(child.kill).toHaveBeenCalledOnce();
  });
});
