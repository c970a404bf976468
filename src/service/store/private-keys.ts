/**
 * Private keys with their addresses and tag memberships (schema: migration 4). `sealed_secret` holds
 * only what the enclave sealed; this module never sees a plaintext key.
 */
import { type Connection, type Row, blob, integer, text } from './connection';

export const PRIVATE_KEYS_SQL = `
  CREATE TABLE private_keys (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    curve TEXT NOT NULL,
    public_key TEXT NOT NULL,
    sealed_secret BLOB NOT NULL,
    tags TEXT NOT NULL,
    addresses TEXT NOT NULL,
    exported INTEGER NOT NULL DEFAULT 0,
    imported INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (organization_id, name)
  );
`;

export interface StoredAddress {
  format: string;
  address: string;
}

export interface PrivateKeyRecord {
  id: string;
  organizationId: string;
  name: string;
  curve: string;
  publicKey: string;
  sealedSecret: Uint8Array;
  tags: string[];
  addresses: StoredAddress[];
  exported: boolean;
  imported: boolean;
  createdAt: number;
  updatedAt: number;
}

function toPrivateKey(row: Row): PrivateKeyRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: text(row, 'name'),
    curve: text(row, 'curve'),
    publicKey: text(row, 'public_key'),
    sealedSecret: blob(row, 'sealed_secret'),
    tags: JSON.parse(text(row, 'tags')) as string[],
    addresses: JSON.parse(text(row, 'addresses')) as StoredAddress[],
    exported: integer(row, 'exported') === 1,
    imported: integer(row, 'imported') === 1,
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class PrivateKeyRepository {
  constructor(private readonly connection: Connection) {}

  insert(key: Omit<PrivateKeyRecord, 'exported' | 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO private_keys (id, organization_id, name, curve, public_key, sealed_secret, tags, addresses, imported,
                                 created_at, updated_at)
       VALUES (:id, :organizationId, :name, :curve, :publicKey, :sealedSecret, :tags, :addresses, :imported, :now, :now)`,
      {
        id: key.id,
        organizationId: key.organizationId,
        name: key.name,
        curve: key.curve,
        publicKey: key.publicKey,
        sealedSecret: key.sealedSecret,
        tags: JSON.stringify(key.tags),
        addresses: JSON.stringify(key.addresses),
        imported: key.imported ? 1 : 0,
        now: key.now,
      },
    );
  }

  get(organizationId: string, id: string): PrivateKeyRecord | undefined {
    const row = this.connection.get('SELECT * FROM private_keys WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    });
    return row === undefined ? undefined : toPrivateKey(row);
  }

  findByName(organizationId: string, name: string): PrivateKeyRecord | undefined {
    const row = this.connection.get('SELECT * FROM private_keys WHERE name = :name AND organization_id = :organizationId', { name, organizationId });
    return row === undefined ? undefined : toPrivateKey(row);
  }

  /** The key of the organization one of whose addresses is exactly `address`. */
  findByAddress(organizationId: string, address: string): PrivateKeyRecord | undefined {
    const row = this.connection.get(
      `SELECT * FROM private_keys WHERE organization_id = :organizationId
         AND EXISTS (SELECT 1 FROM json_each(private_keys.addresses) WHERE json_extract(value, '$.address') = :address)
       ORDER BY rowid LIMIT 1`,
      { organizationId, address },
    );
    return row === undefined ? undefined : toPrivateKey(row);
  }

  listByOrganization(organizationId: string): PrivateKeyRecord[] {
    return this.connection
      .all('SELECT * FROM private_keys WHERE organization_id = :organizationId ORDER BY rowid', { organizationId })
      .map(toPrivateKey);
  }

  countByOrganization(organizationId: string): number {
    const row = this.connection.get('SELECT count(*) AS n FROM private_keys WHERE organization_id = :organizationId', {
      organizationId,
    });
    return row === undefined ? 0 : integer(row, 'n');
  }

  setTags(organizationId: string, id: string, tags: readonly string[], now: number): void {
    this.connection.run('UPDATE private_keys SET tags = :tags, updated_at = :now WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
      tags: JSON.stringify(tags),
      now,
    });
  }

  markExported(organizationId: string, id: string, now: number): void {
    this.connection.run('UPDATE private_keys SET exported = 1, updated_at = :now WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
      now,
    });
  }

  delete(organizationId: string, id: string): boolean {
    this.connection.noteKeyMaterialErased();
    return (
      this.connection.run('DELETE FROM private_keys WHERE id = :id AND organization_id = :organizationId', {
        id,
        organizationId,
      }) === 1
    );
  }
}
