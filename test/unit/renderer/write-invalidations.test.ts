import { MutationObserver, QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { channels, type Channel } from '../../../src/shared/ipc/contract';
import { READ_CHANNELS, STALE_AFTER_WRITE, staleAfter, writeOptions, type Write } from '../../../src/renderer/src/mutations';
import { queryKeyOf } from '../../../src/renderer/src/queries';

const reads: ReadonlySet<Channel> = new Set(READ_CHANNELS);
const writes = Object.keys(STALE_AFTER_WRITE) as Channel[];

describe("the window's writes and what they make stale", () => {
  it('lists every channel of the contract once: as a read, or as a write with its entry', () => {
    expect([...READ_CHANNELS, ...writes].sort()).toEqual([...channels].sort());
    expect(new Set(READ_CHANNELS).size).toBe(READ_CHANNELS.length);
  });

  it('makes stale only read channels of the contract', () => {
    for (const write of writes) {
      const stale = STALE_AFTER_WRITE[write as keyof typeof STALE_AFTER_WRITE];
      const notReads = stale.filter((channel) => !reads.has(channel) || !channels.includes(channel));
      expect(notReads, write).toEqual([]);
    }
  });

  it('makes nothing stale after a read asked on a click', () => {
    expect(staleAfter('policies.dryRun')).toEqual([]);
    expect(staleAfter('exports.decryptBundle')).toEqual([]);
  });

  it('marks what each write changes stale', () => {
    expect(staleAfter('policies.update')).toEqual(expect.arrayContaining(['policies.list', 'organization.lookup']));
    expect(staleAfter('addressBook.rename')).toEqual(expect.arrayContaining(['addressBook.list', 'signing.describe']));
    expect(staleAfter('profiles.setActive')).toEqual(expect.arrayContaining(['profiles.getActive', 'profiles.list']));
    expect(staleAfter('app.setSettings')).toEqual(expect.arrayContaining(['app.getSettings', 'tokens.catalog']));
  });
});

/** A client holding one answered read per channel given, and a bridge whose `policies.update` answers or refuses. */
function windowWith(reads: readonly Channel[], update: () => Promise<unknown>) {
  const client = new QueryClient();
  for (const channel of reads) client.setQueryData(queryKeyOf(channel, undefined, 'profile-1'), { read: channel });
  const sent: unknown[] = [];
  vi.stubGlobal('window', {
    quorumkey: {
      policies: {
        update: (input: unknown) => {
          sent.push(input);
          return update();
        },
      },
    },
  });
  const stale = () => reads.filter((channel) => client.getQueryState(queryKeyOf(channel, undefined, 'profile-1'))?.isInvalidated === true);
  return { observer: new MutationObserver(client, writeOptions(client)), sent, stale };
}

describe('the write mutation', () => {
  afterEach(() => vi.unstubAllGlobals());
  const input = { policyId: 'policy-1', changes: { policyName: 'USDC up to 1,000' } };

  it("sends the input, then marks the entry's reads stale and no other", async () => {
    const { observer, sent, stale } = windowWith(['policies.list', 'organization.lookup', 'wallets.list'], async () => ({ state: 'completed' }));
    const write: Write = { label: 'Updating…', channel: 'policies.update', input };
    await expect(observer.mutate(write)).resolves.toEqual({ state: 'completed' });
    expect(sent).toEqual([input]);
    expect(stale()).toEqual(['policies.list', 'organization.lookup']);
    // Sent once, the input is not kept with the write.
    expect(observer.getCurrentResult().variables?.input).toBeUndefined();
  });

  it('marks them stale after a refusal too, and keeps the error for the notice', async () => {
    const { observer, stale } = windowWith(['policies.list', 'wallets.list'], () =>
      Promise.reject(Object.assign(new Error('the service refused'), { code: 'SERVICE_ERROR' })),
    );
    await expect(observer.mutate({ label: 'Updating…', channel: 'policies.update', input })).rejects.toMatchObject({
      message: expect.stringContaining('refused'),
    });
    expect(stale()).toEqual(['policies.list']);
    expect(observer.getCurrentResult().error?.message).toContain('refused');
  });
});
