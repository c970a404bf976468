/** Session profiles: named scopes and lifetimes for session keys (schema: migration 2). */
import { type Connection, type Row, integer, optionalInteger, optionalText, text } from './connection';

export const SESSIONS_SQL = `
  CREATE TABLE session_profiles (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scope TEXT NOT NULL,
    expiration_seconds INTEGER,
    notes TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (organization_id, name)
  );
`;

export interface SessionProfileRecord {
  id: string;
  organizationId: string;
  name: string;
  scope: string;
  expirationSeconds: number | undefined;
  notes: string | undefined;
  createdAt: number;
  updatedAt: number;
}

function toSessionProfile(row: Row): SessionProfileRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: text(row, 'name'),
    scope: text(row, 'scope'),
    expirationSeconds: optionalInteger(row, 'expiration_seconds'),
    notes: optionalText(row, 'notes'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class SessionProfileRepository {
  constructor(private readonly connection: Connection) {}

  insert(record: Omit<SessionProfileRecord, 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO session_profiles (id, organization_id, name, scope, expiration_seconds, notes, created_at, updated_at)
       VALUES (:id, :organizationId, :name, :scope, :expirationSeconds, :notes, :now, :now)`,
      {
        id: record.id,
        organizationId: record.organizationId,
        name: record.name,
        scope: record.scope,
        expirationSeconds: record.expirationSeconds ?? null,
        notes: record.notes ?? null,
        now: record.now,
      },
    );
  }

  get(id: string): SessionProfileRecord | undefined {
    const row = this.connection.get('SELECT * FROM session_profiles WHERE id = :id', { id });
    return row === undefined ? undefined : toSessionProfile(row);
  }

  findByName(organizationId: string, name: string): SessionProfileRecord | undefined {
    const row = this.connection.get('SELECT * FROM session_profiles WHERE organization_id = :organizationId AND name = :name', {
      organizationId,
      name,
    });
    return row === undefined ? undefined : toSessionProfile(row);
  }

  listByOrganization(organizationId: string): SessionProfileRecord[] {
    return this.connection
      .all('SELECT * FROM session_profiles WHERE organization_id = :organizationId ORDER BY rowid', { organizationId })
      .map(toSessionProfile);
  }
}
