/**
 * The entries a test starts as a child process, built once per run by test/support/built-entries-setup.ts: what node
 * runs instead of the TypeScript source through tsx, which compiles it again on every start.
 */
import { join } from 'node:path';
import { inject } from 'vitest';

/** The service's command line (src/service/cli.ts), the test fixtures that race on a journal, and the burst client. */
export type BuiltEntryName = 'service' | 'journal-appender' | 'journal-racer' | 'burst-client';

export function builtEntry(name: BuiltEntryName): string {
  const folder = inject('builtEntries');
  if (folder === undefined) {
    throw new Error(`${name} is built only for the projects whose global setup is test/support/built-entries-setup.ts (vitest.config.ts)`);
  }
  return join(folder, `${name}.js`);
}
