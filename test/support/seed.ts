/** Seed files for tests: a fixture from test/fixtures/seeds copied into a temporary directory, with its keys. */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stampPublicKeyOf } from '../../src/service/auth/stamp-public-key';
import type { TestKey } from './service';

export interface SeedCopy {
  /** The copy to pass as `--seed`. */
  file: string;
  directory: string;
  /** A key file the seed names (generated beside the copy on the first start), as a key the test can stamp with. */
  key: (keyFile: string) => TestKey;
  remove: () => void;
}

export function copySeedFixture(name: string): SeedCopy {
  const directory = mkdtempSync(join(tmpdir(), 'quorumkey-seed-'));
  const file = join(directory, name);
  copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'seeds', name), file);
  return {
    file,
    directory,
    key(keyFile) {
      const pair = JSON.parse(readFileSync(join(directory, keyFile), 'utf8')) as TestKey;
      return { curve: pair.curve, privateKey: pair.privateKey, publicKey: stampPublicKeyOf(pair) };
    },
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}
