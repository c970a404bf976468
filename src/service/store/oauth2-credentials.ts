/**
 * OAuth 2.0 credentials (schema: migration "stored credentials"): an organization's client at an OAuth 2.0 provider,
 * its client secret kept exactly as it arrived, sealed to Turnkey's TLS fetcher.
 */
import { type Connection, type Row, integer, text } from './connection';

export const OAUTH2_CREDENTIALS_SQL = `
  CREATE TABLE oauth2_credentials (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    client_id TEXT NOT NULL,
    encrypted_client_secret TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (organization_id, provider, client_id)
  );
`;

export interface Oauth2CredentialRecord {
  id: string;
  organizationId: string;
  provider: string;
  clientId: string;
  encryptedClientSecret: string;
  createdAt: number;
  updatedAt: number;
}

function toOauth2Credential(row: Row): Oauth2CredentialRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    provider: text(row, 'provider'),
    clientId: text(row, 'client_id'),
    encryptedClientSecret: text(row, 'encrypted_client_secret'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class Oauth2CredentialRepository {
  constructor(private readonly connection: Connection) {}

  insert(credential: Omit<Oauth2CredentialRecord, 'createdAt' | 'updatedAt'>, now: number): void {
    this.connection.run(
      `INSERT INTO oauth2_credentials (id, organization_id, provider, client_id, encrypted_client_secret, created_at, updated_at)
       VALUES (:id, :organizationId, :provider, :clientId, :encryptedClientSecret, :now, :now)`,
      { ...credential, now },
    );
  }

  update(credential: Omit<Oauth2CredentialRecord, 'createdAt' | 'updatedAt'>, now: number): void {
    this.connection.run(
      `UPDATE oauth2_credentials SET provider = :provider, client_id = :clientId, encrypted_client_secret = :encryptedClientSecret,
              updated_at = :now
        WHERE id = :id AND organization_id = :organizationId`,
      { ...credential, now },
    );
  }

  get(organizationId: string, id: string): Oauth2CredentialRecord | undefined {
    const row = this.connection.get('SELECT * FROM oauth2_credentials WHERE id = :id AND organization_id = :organizationId', { id, organizationId });
    return row === undefined ? undefined : toOauth2Credential(row);
  }

  findByClient(organizationId: string, provider: string, clientId: string): Oauth2CredentialRecord | undefined {
    const row = this.connection.get(
      'SELECT * FROM oauth2_credentials WHERE organization_id = :organizationId AND provider = :provider AND client_id = :clientId',
      { organizationId, provider, clientId },
    );
    return row === undefined ? undefined : toOauth2Credential(row);
  }

  /** In creation order. */
  listByOrganization(organizationId: string): Oauth2CredentialRecord[] {
    return this.connection
      .all('SELECT * FROM oauth2_credentials WHERE organization_id = :organizationId ORDER BY seq', { organizationId })
      .map(toOauth2Credential);
  }

  /** Deletes every OAuth 2.0 credential of the organization (a deleted sub-organization's). */
  deleteByOrganization(organizationId: string): void {
    this.connection.run('DELETE FROM oauth2_credentials WHERE organization_id = :organizationId', { organizationId });
  }

  delete(organizationId: string, id: string): void {
    this.connection.run('DELETE FROM oauth2_credentials WHERE id = :id AND organization_id = :organizationId', { id, organizationId });
  }
}
