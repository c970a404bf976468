import { type Connection, integer, optionalText, text } from './connection';

/** Schema of the seeds migration: which seed file contents a database was created from (docs/sandbox.md#seed-files). */
export const SEEDS_SQL = `
  CREATE TABLE seeds (
    fingerprint TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  );
`;

/** What a kept database needs to say how another seed differs from its own; databases seeded before have none. */
export const SEED_CONTENTS_SQL = `
  ALTER TABLE seeds ADD COLUMN content TEXT;
`;

export interface SeedRecord {
  /** `sha256:` + hex SHA-256 of the seed as parsed (comments and layout do not count). */
  fingerprint: string;
  /**
   * The seed as parsed, with the keys its key files held, as JSON (`SeedContent` of src/service/seed/file.ts);
   * absent for a database seeded before it was recorded.
   */
  content?: string;
  /** The root organization the seed created. */
  organizationId: string;
  appliedAt: number;
}

export class SeedRepository {
  constructor(private readonly connection: Connection) {}

  insert(seed: SeedRecord): void {
    this.connection.run(
      'INSERT INTO seeds (fingerprint, organization_id, applied_at, content) VALUES (:fingerprint, :organizationId, :appliedAt, :content)',
      { ...seed, content: seed.content ?? null },
    );
  }

  /** The seed the database was created from, if it was. */
  applied(): SeedRecord | undefined {
    const row = this.connection.get('SELECT * FROM seeds ORDER BY rowid LIMIT 1');
    if (row === undefined) return undefined;
    const content = optionalText(row, 'content');
    return {
      fingerprint: text(row, 'fingerprint'),
      organizationId: text(row, 'organization_id'),
      appliedAt: integer(row, 'applied_at'),
      ...(content === undefined ? {} : { content }),
    };
  }
}
