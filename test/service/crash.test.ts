import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, expect, it } from 'vitest';
import { newKey, stampedHeaders } from '../support/service';
import { killCliProcesses, startCli } from './cli-process';

const directory = mkdtempSync(join(tmpdir(), 'quorumkey-crash-'));
afterAll(() => {
  killCliProcesses();
  rmSync(directory, { recursive: true, force: true });
});

const root = newKey();
const db = join(directory, 'service.db');
const cliArgs = ['--db', db, '--port', '0', '--root-public-key', `${root.publicKey}:p256`];

it('after kill -9 under concurrent submits, every acknowledged activity survives and the database is intact', async () => {
  const { child, info, closed } = await startCli(cliArgs);
  const acknowledged: string[] = [];
  let stop = false;
  const submitter = async (worker: number): Promise<void> => {
    for (let index = 0; !stop; index += 1) {
      const body = JSON.stringify({
        type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
        timestampMs: String(Date.now()),
        organizationId: info.organizationId,
        parameters: { policyName: `crash ${worker}-${index}`, effect: 'EFFECT_ALLOW', notes: '' },
      });
      try {
        const response = await fetch(`${info.baseUrl}/public/v1/submit/create_policy`, {
          method: 'POST',
          headers: await stampedHeaders(body, root),
          body,
        });
        const reply = (await response.json()) as { activity?: { id: string; status: string } };
        if (reply.activity?.status === 'ACTIVITY_STATUS_COMPLETED') acknowledged.push(reply.activity.id);
      } catch {
        return; // the server is gone
      }
    }
  };
  const workers = Array.from({ length: 6 }, (_, worker) => submitter(worker));
  // Below the 100-policies-per-organization limit, so every submit can complete.
  const deadline = Date.now() + 30_000;
  while (acknowledged.length < 60 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(acknowledged.length).toBeGreaterThan(0);
  child.kill('SIGKILL');
  stop = true;
  await Promise.all([closed, ...workers]);

  const restarted = await startCli(cliArgs);
  expect(restarted.info.organizationId).toBe(info.organizationId);
  restarted.child.kill('SIGTERM');
  await restarted.closed;
  expect([restarted.child.exitCode, restarted.child.signalCode], restarted.stderr()).toEqual([0, null]);

  const database = new DatabaseSync(db, { readOnly: true });
  try {
    expect(database.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    const stored = new Set(
      (database.prepare("SELECT id FROM activities WHERE status = 'ACTIVITY_STATUS_COMPLETED'").all() as { id: string }[]).map((row) => row.id),
    );
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    const policies = database.prepare('SELECT count(*) AS n FROM policies').get() as { n: number };
    expect(policies.n).toBe(stored.size);
  } finally {
    database.close();
  }
});
