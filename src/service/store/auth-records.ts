/**
 * Login credentials and the auth proxy's state: passkey authenticators, OAuth providers, session profiles,
 * OTP codes, consumed verification tokens and verified contacts (schema: migration "auth records").
 */
import type { AuthenticatorTransport } from '../auth/webauthn-attestation';
import { type Connection, type Row, integer, optionalInteger, optionalText, text } from './connection';

export const AUTH_RECORDS_SQL = `
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

  -- The code itself is never stored: only its SHA-256, compared in constant time.
  CREATE TABLE otp_codes (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    otp_type TEXT NOT NULL,
    contact TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    target_private_key TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    created_at INTEGER NOT NULL
  );

  CREATE TABLE consumed_verification_tokens (
    token_id TEXT PRIMARY KEY,
    usage TEXT NOT NULL,
    consumed_at INTEGER NOT NULL
  );

  CREATE TABLE verified_contacts (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    otp_type TEXT NOT NULL,
    contact TEXT NOT NULL,
    verified_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, otp_type)
  );
  CREATE INDEX verified_contacts_contact ON verified_contacts(otp_type, contact);
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

export interface OtpRecord {
  id: string;
  organizationId: string;
  otpType: string;
  contact: string;
  /** Hex SHA-256 of the code. */
  codeHash: string;
  /** The HPKE target's private key for otp_verify_v2 (otp_init_v2 only). */
  targetPrivateKey: string | undefined;
  attempts: number;
  expiresAt: number;
  usedAt: number | undefined;
  createdAt: number;
}

function toOtp(row: Row): OtpRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    otpType: text(row, 'otp_type'),
    contact: text(row, 'contact'),
    codeHash: text(row, 'code_hash'),
    targetPrivateKey: optionalText(row, 'target_private_key'),
    attempts: integer(row, 'attempts'),
    expiresAt: integer(row, 'expires_at'),
    usedAt: optionalInteger(row, 'used_at'),
    createdAt: integer(row, 'created_at'),
  };
}

export class OtpRepository {
  constructor(private readonly connection: Connection) {}

  insert(record: Omit<OtpRecord, 'attempts' | 'usedAt'>): void {
    this.connection.run(
      `INSERT INTO otp_codes (id, organization_id, otp_type, contact, code_hash, target_private_key, expires_at, created_at)
       VALUES (:id, :organizationId, :otpType, :contact, :codeHash, :targetPrivateKey, :expiresAt, :createdAt)`,
      {
        id: record.id,
        organizationId: record.organizationId,
        otpType: record.otpType,
        contact: record.contact,
        codeHash: record.codeHash,
        targetPrivateKey: record.targetPrivateKey ?? null,
        expiresAt: record.expiresAt,
        createdAt: record.createdAt,
      },
    );
  }

  get(id: string): OtpRecord | undefined {
    const row = this.connection.get('SELECT * FROM otp_codes WHERE id = :id', { id });
    return row === undefined ? undefined : toOtp(row);
  }

  recordAttempt(id: string): void {
    this.connection.run('UPDATE otp_codes SET attempts = attempts + 1 WHERE id = :id', { id });
  }

  markUsed(id: string, now: number): void {
    this.connection.run('UPDATE otp_codes SET used_at = :now, target_private_key = NULL WHERE id = :id', { id, now });
  }
}

export class VerificationRepository {
  constructor(private readonly connection: Connection) {}

  /** Records a verification token as used; false when it already was (a token is single-use). */
  consumeToken(tokenId: string, usage: string, now: number): boolean {
    return (
      this.connection.run(
        'INSERT INTO consumed_verification_tokens (token_id, usage, consumed_at) VALUES (:tokenId, :usage, :now) ON CONFLICT DO NOTHING',
        { tokenId, usage, now },
      ) === 1
    );
  }

  markContactVerified(record: { userId: string; organizationId: string; otpType: string; contact: string; now: number }): void {
    this.connection.run(
      `INSERT INTO verified_contacts (user_id, organization_id, otp_type, contact, verified_at)
       VALUES (:userId, :organizationId, :otpType, :contact, :now)
       ON CONFLICT (user_id, otp_type) DO UPDATE SET contact = excluded.contact, verified_at = excluded.verified_at`,
      { ...record },
    );
  }

  /** Users anywhere whose contact of this type is verified and equals `contact`, with their organization. */
  usersWithVerifiedContact(otpType: string, contact: string): { userId: string; organizationId: string }[] {
    return this.connection
      .all(
        `SELECT v.user_id, v.organization_id FROM verified_contacts v JOIN users u ON u.id = v.user_id
         WHERE v.otp_type = :otpType AND v.contact = :contact
           AND v.contact = (CASE v.otp_type WHEN 'OTP_TYPE_EMAIL' THEN u.email ELSE u.phone_number END)
         ORDER BY v.rowid`,
        { otpType, contact },
      )
      .map((row) => ({ userId: text(row, 'user_id'), organizationId: text(row, 'organization_id') }));
  }

  /**
   * Sub-organizations of `parentId` holding a user with a verified contact, optionally of one type and value,
   * ordered by creation.
   */
  verifiedSubOrganizations(query: {
    parentId: string;
    otpType?: string;
    contact?: string;
    limit: number;
    /** Cursor positions from {@link organizationPosition}. */
    after?: number;
    before?: number;
  }): string[] {
    const rows = this.connection.all(
      `SELECT o.id FROM organizations o
       WHERE o.parent_id = :parentId
         AND EXISTS (SELECT 1 FROM verified_contacts v JOIN users u ON u.id = v.user_id
                     WHERE v.organization_id = o.id
                       AND (:otpType IS NULL OR v.otp_type = :otpType)
                       AND (:contact IS NULL OR v.contact = :contact)
                       AND v.contact = (CASE v.otp_type WHEN 'OTP_TYPE_EMAIL' THEN u.email ELSE u.phone_number END))
         AND (:afterRowid IS NULL OR o.rowid > :afterRowid)
         AND (:beforeRowid IS NULL OR o.rowid < :beforeRowid)
       ORDER BY o.rowid ${query.before !== undefined && query.after === undefined ? 'DESC' : 'ASC'}
       LIMIT :limit`,
      {
        parentId: query.parentId,
        otpType: query.otpType ?? null,
        contact: query.contact ?? null,
        afterRowid: query.after ?? null,
        beforeRowid: query.before ?? null,
        limit: query.limit,
      },
    );
    const ids = rows.map((row) => text(row, 'id'));
    return query.before !== undefined && query.after === undefined ? ids.reverse() : ids;
  }

  /** The creation position of a sub-organization of `parentId`, for pagination cursors. */
  organizationPosition(parentId: string, organizationId: string): number | undefined {
    const row = this.connection.get('SELECT rowid FROM organizations WHERE id = :organizationId AND parent_id = :parentId', {
      organizationId,
      parentId,
    });
    return row === undefined ? undefined : integer(row, 'rowid');
  }
}
