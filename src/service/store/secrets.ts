/**
 * Secrets (schema: migration "secrets"): opaque bytes imported through the enclave and kept sealed as private keys
 * are, with the optional name and the static properties they were imported with. Their import targets are rows of
 * import_targets of kind 'secret' (store/export-import.ts).
 */
import { type Connection, type Params, type Row, blob, integer, optionalText, text } from './connection';

export const SECRETS_SQL = `
  -- name is unique within an organization when given (SQLite lets NULLs repeat).
  CREATE TABLE secrets (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT,
    static_properties TEXT NOT NULL,
    sealed_secret BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (organization_id, name)
  );
  CREATE INDEX secrets_organization ON secrets(organization_id, seq);
`;

/** `v1KeyValue`: both members may be absent, as the swagger allows. */
export type StaticProperty = { key?: string | undefined; value?: string | undefined };

export interface SecretRecord {
  id: string;
  organizationId: string;
  name: string | undefined;
  staticProperties: StaticProperty[];
  /** The secret sealed under the service secret, bound to this row (enclave/sealed.ts). */
  sealedSecret: Uint8Array;
  createdAt: number;
}

function toSecret(row: Row): SecretRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: optionalText(row, 'name'),
    staticProperties: JSON.parse(text(row, 'static_properties')) as StaticProperty[],
    sealedSecret: blob(row, 'sealed_secret'),
    createdAt: integer(row, 'created_at'),
  };
}

export class SecretRepository {
  constructor(private readonly connection: Connection) {}

  insert(secret: SecretRecord): void {
    this.connection.run(
      `INSERT INTO secrets (id, organization_id, name, static_properties, sealed_secret, created_at)
       VALUES (:id, :organizationId, :name, :staticProperties, :sealedSecret, :createdAt)`,
      { ...secret, name: secret.name ?? null, staticProperties: JSON.stringify(secret.staticProperties) },
    );
  }

  get(organizationId: string, id: string): SecretRecord | undefined {
    const row = this.connection.get('SELECT * FROM secrets WHERE id = :id AND organization_id = :organizationId', { id, organizationId });
    return row === undefined ? undefined : toSecret(row);
  }

  findByName(organizationId: string, name: string): SecretRecord | undefined {
    const row = this.connection.get('SELECT * FROM secrets WHERE organization_id = :organizationId AND name = :name', { organizationId, name });
    return row === undefined ? undefined : toSecret(row);
  }

  /** Deletes every secret of the organization (a deleted sub-organization's); their sealed bytes are erased. */
  deleteByOrganization(organizationId: string): void {
    this.connection.noteKeyMaterialErased();
    this.connection.run('DELETE FROM secrets WHERE organization_id = :organizationId', { organizationId });
  }

  /**
   * One page, newest first, as list_secrets answers and as list_activities pages: `before` gives the secrets created
   * earlier than that secret, `after` the ones created later that lie nearest to it.
   */
  list(query: { organizationId: string; limit: number; before?: string; after?: string }): SecretRecord[] {
    const where = ['organization_id = :organizationId'];
    const params: Params = { organizationId: query.organizationId, limit: query.limit };
    const cursorSeq = (name: 'before' | 'after', id: string): string => {
      params[name] = id;
      return `(SELECT seq FROM secrets WHERE id = :${name} AND organization_id = :organizationId)`;
    };
    if (query.before !== undefined) where.push(`seq < ${cursorSeq('before', query.before)}`);
    if (query.after !== undefined) where.push(`seq > ${cursorSeq('after', query.after)}`);
    const nearestAfter = query.after !== undefined && query.before === undefined;
    const rows = this.connection.all(
      `SELECT * FROM secrets WHERE ${where.join(' AND ')} ORDER BY seq ${nearestAfter ? 'ASC' : 'DESC'} LIMIT :limit`,
      params,
    );
    if (nearestAfter) rows.reverse();
    return rows.map(toSecret);
  }
}
