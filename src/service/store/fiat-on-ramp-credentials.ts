/**
 * Fiat on-ramp credentials (schema: migration "stored credentials"): an organization's keys at an on-ramp provider,
 * the secret ones kept exactly as they arrived, sealed to Turnkey's on-ramp key.
 */
import { type Connection, type Row, integer, optionalText, text } from './connection';

export const FIAT_ON_RAMP_CREDENTIALS_SQL = `
  CREATE TABLE fiat_on_ramp_credentials (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    onramp_provider TEXT NOT NULL,
    project_id TEXT,
    publishable_api_key TEXT NOT NULL,
    encrypted_secret_api_key TEXT NOT NULL,
    encrypted_private_api_key TEXT,
    sandbox_mode INTEGER NOT NULL CHECK (sandbox_mode IN (0, 1)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
`;

export interface FiatOnRampCredentialRecord {
  id: string;
  organizationId: string;
  onrampProvider: string;
  projectId: string | undefined;
  publishableApiKey: string;
  encryptedSecretApiKey: string;
  encryptedPrivateApiKey: string | undefined;
  sandboxMode: boolean;
  createdAt: number;
  updatedAt: number;
}

/** What an update may change: everything but the id, the organization and whether it is a sandbox credential. */
export type FiatOnRampCredentialChange = Omit<FiatOnRampCredentialRecord, 'sandboxMode' | 'createdAt' | 'updatedAt'>;

function toFiatOnRampCredential(row: Row): FiatOnRampCredentialRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    onrampProvider: text(row, 'onramp_provider'),
    projectId: optionalText(row, 'project_id'),
    publishableApiKey: text(row, 'publishable_api_key'),
    encryptedSecretApiKey: text(row, 'encrypted_secret_api_key'),
    encryptedPrivateApiKey: optionalText(row, 'encrypted_private_api_key'),
    sandboxMode: integer(row, 'sandbox_mode') === 1,
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class FiatOnRampCredentialRepository {
  constructor(private readonly connection: Connection) {}

  insert(credential: Omit<FiatOnRampCredentialRecord, 'createdAt' | 'updatedAt'>, now: number): void {
    this.connection.run(
      `INSERT INTO fiat_on_ramp_credentials (id, organization_id, onramp_provider, project_id, publishable_api_key,
                                             encrypted_secret_api_key, encrypted_private_api_key, sandbox_mode, created_at, updated_at)
       VALUES (:id, :organizationId, :onrampProvider, :projectId, :publishableApiKey, :encryptedSecretApiKey,
               :encryptedPrivateApiKey, :sandboxMode, :now, :now)`,
      {
        ...credential,
        projectId: credential.projectId ?? null,
        encryptedPrivateApiKey: credential.encryptedPrivateApiKey ?? null,
        sandboxMode: credential.sandboxMode ? 1 : 0,
        now,
      },
    );
  }

  update(credential: FiatOnRampCredentialChange, now: number): void {
    this.connection.run(
      `UPDATE fiat_on_ramp_credentials
          SET onramp_provider = :onrampProvider, project_id = :projectId, publishable_api_key = :publishableApiKey,
              encrypted_secret_api_key = :encryptedSecretApiKey, encrypted_private_api_key = :encryptedPrivateApiKey, updated_at = :now
        WHERE id = :id AND organization_id = :organizationId`,
      { ...credential, projectId: credential.projectId ?? null, encryptedPrivateApiKey: credential.encryptedPrivateApiKey ?? null, now },
    );
  }

  get(organizationId: string, id: string): FiatOnRampCredentialRecord | undefined {
    const row = this.connection.get('SELECT * FROM fiat_on_ramp_credentials WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    });
    return row === undefined ? undefined : toFiatOnRampCredential(row);
  }

  /** In creation order. */
  listByOrganization(organizationId: string): FiatOnRampCredentialRecord[] {
    return this.connection
      .all('SELECT * FROM fiat_on_ramp_credentials WHERE organization_id = :organizationId ORDER BY seq', { organizationId })
      .map(toFiatOnRampCredential);
  }

  /** Deletes every fiat on-ramp credential of the organization (a deleted sub-organization's). */
  deleteByOrganization(organizationId: string): void {
    this.connection.run('DELETE FROM fiat_on_ramp_credentials WHERE organization_id = :organizationId', { organizationId });
  }

  delete(organizationId: string, id: string): void {
    this.connection.run('DELETE FROM fiat_on_ramp_credentials WHERE id = :id AND organization_id = :organizationId', { id, organizationId });
  }
}
