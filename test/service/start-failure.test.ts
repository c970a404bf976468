/** Issue 37: a Sandbox that cannot start says why, and nothing in its log reads as if it had started. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '../../src/service';

const directory = mkdtempSync(join(tmpdir(), 'quorumkey-start-failure-'));
let taken: Server | undefined;
afterAll(() => {
  taken?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('a start that fails', () => {
  it('on a port in use logs no "seeded from" line before its PORT_IN_USE', async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken!.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const seed = join(directory, 'seed.yaml');
    writeFileSync(
      seed,
      'organization:\n  organizationName: Taken\n  users: [{ userName: ci, apiKeys: [{ apiKeyName: ci, keyFile: ci.key.json }] }]\n  rootQuorum: { threshold: 1, userNames: [ci] }\n',
    );
    const logs: string[] = [];
    await expect(startService({ db: ':memory:', seed, port, log: (line) => logs.push(line) })).rejects.toMatchObject({ code: 'PORT_IN_USE' });
    expect(logs.filter((line) => line.includes('seeded from'))).toEqual([]);
  });
});
