/** Passkey authenticators and OAuth providers of users (schema: migration 2). */
import type { AuthenticatorTransport } from '../auth/webauthn-attestation';
import { type Connection, type Row, integer, text } from './connection';

export const CREDENTIALS_SQL = `
  CREATE TABLE authenticators (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    credential_id TEXT NOT NULL,
    public_key TEXT NOT NULL,
    aaguid TEXT NOT NULL,
    attestation_type TEXT NOT NULL,
    transports TEXT NOT NULL,
    sign_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (organization_id, credential_id)
  );
  CREATE INDEX authenticators_credential ON authenticators(credential_id);
  CREATE INDEX authenticators_user ON authenticators(user_id);

  CREATE TABLE oauth_providers (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    issuer TEXT NOT NULL,
    audience TEXT NOT NULL,
    subject TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (organization_id, issuer, audience, subject)
  );
  CREATE INDEX oauth_providers_user ON oauth_providers(user_id);
`;

export interface AuthenticatorRecord {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  /** base64url (no padding) raw credential id. */
  credentialId: string;
  /** Compressed P-256 hex. */
  publicKey: string;
  aaguid: string;
  attestationType: string;
  transports: AuthenticatorTransport[];
  signCount: number;
  createdAt: number;
  updatedAt: number;
}

function toAuthenticator(row: Row): AuthenticatorRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    userId: text(row, 'user_id'),
    name: text(row, 'name'),
    credentialId: text(row, 'credential_id'),
    publicKey: text(row, 'public_key'),
    aaguid: text(row, 'aaguid'),
    attestationType: text(row, 'attestation_type'),
    transports: JSON.parse(text(row, 'transports')) as AuthenticatorTransport[],
    signCount: integer(row, 'sign_count'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class AuthenticatorRepository {
  constructor(private readonly connection: Connection) {}

  insert(record: Omit<AuthenticatorRecord, 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO authenticators (id, organization_id, user_id, name, credential_id, public_key, aaguid, attestation_type,
                                   transports, sign_count, created_at, updated_at)
       VALUES (:id, :organizationId, :userId, :name, :credentialId, :publicKey, :aaguid, :attestationType, :transports,
               :signCount, :now, :now)`,
      {
        id: record.id,
        organizationId: record.organizationId,
        userId: record.userId,
        name: record.name,
        credentialId: record.credentialId,
        publicKey: record.publicKey,
        aaguid: record.aaguid,
        attestationType: record.attestationType,
        transports: JSON.stringify(record.transports),
        signCount: record.signCount,
        now: record.now,
      },
    );
  }

  get(organizationId: string, id: string): AuthenticatorRecord | undefined {
    const row = this.connection.get('SELECT * FROM authenticators WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    });
    return row === undefined ? undefined : toAuthenticator(row);
  }

  /** Every authenticator with this credential id, in any organization. */
  findByCredentialId(credentialId: string): AuthenticatorRecord[] {
    return this.connection.all('SELECT * FROM authenticators WHERE credential_id = :credentialId', { credentialId }).map(toAuthenticator);
  }

  listByUser(userId: string): AuthenticatorRecord[] {
    return this.connection.all('SELECT * FROM authenticators WHERE user_id = :userId ORDER BY rowid', { userId }).map(toAuthenticator);
  }

  /**
   * Records `signCount` if it is above the stored count, in one statement so that two requests with the same
   * counter cannot both pass. False when it is not (a replayed assertion, or a cloned authenticator).
   */
  advanceSignCount(id: string, signCount: number, now: number): boolean {
    return (
      this.connection.run('UPDATE authenticators SET sign_count = :signCount, updated_at = :now WHERE id = :id AND sign_count < :signCount', {
        id,
        signCount,
        now,
      }) === 1
    );
  }

  delete(id: string): void {
    this.connection.run('DELETE FROM authenticators WHERE id = :id', { id });
  }
}

export interface OauthProviderRecord {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  issuer: string;
  audience: string;
  subject: string;
  createdAt: number;
  updatedAt: number;
}

function toOauthProvider(row: Row): OauthProviderRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    userId: text(row, 'user_id'),
    name: text(row, 'name'),
    issuer: text(row, 'issuer'),
    audience: text(row, 'audience'),
    subject: text(row, 'subject'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class OauthProviderRepository {
  constructor(private readonly connection: Connection) {}

  insert(record: Omit<OauthProviderRecord, 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO oauth_providers (id, organization_id, user_id, name, issuer, audience, subject, created_at, updated_at)
       VALUES (:id, :organizationId, :userId, :name, :issuer, :audience, :subject, :now, :now)`,
      { ...record },
    );
  }

  get(organizationId: string, id: string): OauthProviderRecord | undefined {
    const row = this.connection.get('SELECT * FROM oauth_providers WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    });
    return row === undefined ? undefined : toOauthProvider(row);
  }

  find(organizationId: string, identity: { issuer: string; audience: string; subject: string }): OauthProviderRecord | undefined {
    const row = this.connection.get(
      `SELECT * FROM oauth_providers
       WHERE organization_id = :organizationId AND issuer = :issuer AND audience = :audience AND subject = :subject`,
      { organizationId, ...identity },
    );
    return row === undefined ? undefined : toOauthProvider(row);
  }

  listByOrganization(organizationId: string): OauthProviderRecord[] {
    return this.connection
      .all('SELECT * FROM oauth_providers WHERE organization_id = :organizationId ORDER BY rowid', { organizationId })
      .map(toOauthProvider);
  }

  listByUser(userId: string): OauthProviderRecord[] {
    return this.connection.all('SELECT * FROM oauth_providers WHERE user_id = :userId ORDER BY rowid', { userId }).map(toOauthProvider);
  }

  delete(id: string): void {
    this.connection.run('DELETE FROM oauth_providers WHERE id = :id', { id });
  }
}
