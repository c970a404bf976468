/**
 * The Sandbox package's programmatic entry (docs/sandbox.md#from-code): `startSandbox` hands each of its options to
 * the service it starts. The service is replaced here by a recorder of what it was started with.
 */
import { describe, expect, it, vi } from 'vitest';
import { startSandbox } from '../../src/service/sandbox';

const started = vi.hoisted(() => [] as unknown[]);

vi.mock('../../src/service/index', () => ({
  startService: (options: unknown) => {
    started.push(options);
    // A database path with no generated root key file beside it: the Sandbox holds no root key pair.
    return Promise.resolve({ info: {}, store: { path: '/nonexistent/sandbox.db' }, close: () => Promise.resolve() });
  },
}));

describe('startSandbox', () => {
  it('passes maxNodeFeeWei (--max-node-fee) to the service, and leaves it to its default when not given', async () => {
    await startSandbox({ maxNodeFeeWei: 10n ** 13n });
    await startSandbox();
    expect(started).toEqual([{ db: ':memory:', maxNodeFeeWei: 10n ** 13n }, { db: ':memory:' }]);
  });

  it('passes loadState and dumpState (--load-state, --dump-state) to the service', async () => {
    started.length = 0;
    await startSandbox({ loadState: 'seeded.state', dumpState: 'after.state' });
    expect(started).toEqual([{ db: ':memory:', loadState: 'seeded.state', dumpState: 'after.state' }]);
  });

  it('passes webhookAllowAnyHost (--webhook-allow-any-host) to the service', async () => {
    started.length = 0;
    await startSandbox({ webhookAllowAnyHost: true });
    expect(started).toEqual([{ db: ':memory:', webhookAllowAnyHost: true }]);
  });
});
