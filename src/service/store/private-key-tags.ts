/**
 * Private key tags (schema: migration "private key tags"). A key's memberships stay where create_private_keys put
 * them, in `private_keys.tags` (a JSON list of tag ids); this table holds the tags themselves.
 */
import { type Connection, type Row, integer, text } from './connection';

export const PRIVATE_KEY_TAGS_SQL = `
  CREATE TABLE private_key_tags (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (organization_id, name)
  );
`;

export interface PrivateKeyTagRecord {
  id: string;
  organizationId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

function toTag(row: Row): PrivateKeyTagRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: text(row, 'name'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class PrivateKeyTagRepository {
  constructor(private readonly connection: Connection) {}

  insert(tag: { id: string; organizationId: string; name: string; now: number }): void {
    this.connection.run(
      `INSERT INTO private_key_tags (id, organization_id, name, created_at, updated_at)
       VALUES (:id, :organizationId, :name, :now, :now)`,
      { ...tag },
    );
  }

  get(organizationId: string, id: string): PrivateKeyTagRecord | undefined {
    const row = this.connection.get('SELECT * FROM private_key_tags WHERE id = :id AND organization_id = :organizationId', { id, organizationId });
    return row === undefined ? undefined : toTag(row);
  }

  findByName(organizationId: string, name: string): PrivateKeyTagRecord | undefined {
    const row = this.connection.get('SELECT * FROM private_key_tags WHERE organization_id = :organizationId AND name = :name', { organizationId, name });
    return row === undefined ? undefined : toTag(row);
  }

  listByOrganization(organizationId: string): PrivateKeyTagRecord[] {
    return this.connection.all('SELECT * FROM private_key_tags WHERE organization_id = :organizationId ORDER BY rowid', { organizationId }).map(toTag);
  }

  rename(id: string, name: string, now: number): void {
    this.connection.run('UPDATE private_key_tags SET name = :name, updated_at = :now WHERE id = :id', { id, name, now });
  }

  delete(id: string): void {
    this.connection.run('DELETE FROM private_key_tags WHERE id = :id', { id });
  }
}
