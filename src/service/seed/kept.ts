/**
 * A kept database started again with a seed (docs/sandbox.md#seed-files): it starts only with the seed it was created
 * from, and with the key files it was created with. The seed is compared by its content, key files by name; when it
 * is another seed, the refusal lists what changed.
 */
import { QkError } from '../../shared/errors';
import type { Repositories } from '../store';
import type { Seed, SeedContent } from './file';

/** How many changes a refusal lists before counting the rest. */
const LISTED_CHANGES = 5;

function shown(value: unknown): string {
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}…` : json;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields where `after` differs from `before`, each as `path: before → after` (or added, removed), in file order. */
export function seedChanges(before: unknown, after: unknown, path = ''): string[] {
  if (Array.isArray(before) && Array.isArray(after)) {
    return Array.from({ length: Math.max(before.length, after.length) }, (_, index) => {
      const at = `${path}[${index}]`;
      if (index >= before.length) return [`${at} added`];
      if (index >= after.length) return [`${at} removed`];
      return seedChanges(before[index], after[index], at);
    }).flat();
  }
  if (isRecord(before) && isRecord(after)) {
    const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return fields.flatMap((field) => {
      const at = path === '' ? field : `${path}.${field}`;
      if (!(field in before)) return [`${at} added (${shown(after[field])})`];
      if (!(field in after)) return [`${at} removed (was ${shown(before[field])})`];
      return seedChanges(before[field], after[field], at);
    });
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [`${path}: ${shown(before)} → ${shown(after)}`];
}

function listed(changes: readonly string[]): string {
  const more = changes.length - LISTED_CHANGES;
  return changes.slice(0, LISTED_CHANGES).join('; ') + (more > 0 ? `; and ${more} more` : '');
}

/** Refuses to start a kept database with another seed than its own, or without the key files it was created with. */
export function requireSameSeed(tx: Repositories, seed: Seed, databasePath: string): void {
  const applied = tx.seeds.applied();
  const refuse = (message: string) =>
    new QkError('FAILED_PRECONDITION', message, {
      seedFingerprint: seed.fingerprint,
      ...(applied === undefined ? {} : { appliedFingerprint: applied.fingerprint }),
    });
  if (applied === undefined) {
    throw refuse(
      `the database ${databasePath} already holds an organization that no seed created; a seed file applies to a new database only (give another --db, or drop --seed)`,
    );
  }
  const another = `the database ${databasePath} was created from another seed (${applied.fingerprint}) than ${seed.file} (${seed.fingerprint})`;
  if (applied.content === undefined) {
    // Seeded before its content was recorded: its fingerprint counted the key files' keys.
    if (applied.fingerprint === seed.keyedFingerprint) return;
    throw refuse(`${another}; start with a new --db to apply it`);
  }
  const content = JSON.parse(applied.content) as SeedContent;
  if (applied.fingerprint !== seed.fingerprint) {
    throw refuse(`${another}: ${listed(seedChanges(content.document, seed.content.document))}; start with a new --db to apply it`);
  }
  // A key file missing now was given a new key pair while loading: its key cannot be the one the database holds.
  const generated = new Set(seed.pendingKeyFiles.map(({ publicKey }) => publicKey));
  const replaced = Object.entries(content.keyFileKeys).flatMap(([keyField, publicKey]) => {
    const now = seed.content.keyFileKeys[keyField];
    if (now === undefined || now.toLowerCase() === publicKey.toLowerCase()) return [];
    return [`${keyField}.keyFile ${generated.has(now) ? 'is missing' : 'holds another key'}`];
  });
  if (replaced.length > 0) {
    throw refuse(
      `the database ${databasePath} was created from ${seed.file} with other key files: ${listed(replaced)}; ` +
        'bring back the key files it was created with, or start with a new --db',
    );
  }
}
