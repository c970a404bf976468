import { type Connection, integer, text } from './connection';

/** Schema of the seeds migration: which seed file contents a database was created from (docs/sandbox.md#seed-files). */
export const SEEDS_SQL = `
  CREATE TABLE seeds (
    fingerprint TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  );
`;

export interface SeedRecord {
  /** `sha256:` + hex SHA-256 of the seed as parsed (comments and layout do not count). */
  fingerprint: string;
  /** The root organization the seed created. */
  organizationId: string;
  appliedAt: number;
}

export class SeedRepository {
  constructor(private readonly connection: Connection) {}

  insert(seed: SeedRecord): void {
    this.connection.run('INSERT INTO seeds (fingerprint, organization_id, applied_at) VALUES (:fingerprint, :organizationId, :appliedAt)', {
      ...seed,
    });
  }

  /** The seed the database was created from, if it was. */
  applied(): SeedRecord | undefined {
    const row = this.connection.get('SELECT * FROM seeds ORDER BY rowid LIMIT 1');
    return row === undefined
      ? undefined
      : { fingerprint: text(row, 'fingerprint'), organizationId: text(row, 'organization_id'), appliedAt: integer(row, 'applied_at') };
  }
}
