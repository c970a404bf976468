/**
 * Private key tags (schema: migration 10). A key's memberships stay where create_private_keys put them, in
 * `private_keys.tags` (a JSON list of tag ids); this table holds the tags themselves.
 */
import type { Connection } from './connection';
import { TagRepository } from './tags';

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

export type { TagRecord as PrivateKeyTagRecord } from './tags';

export class PrivateKeyTagRepository extends TagRepository {
  constructor(connection: Connection) {
    super(connection, 'private_key_tags');
  }
}
