/**
 * One-time codes, consumed verification tokens and verified contacts: the state of OTP login and contact
 * verification (schema: migration 2).
 */
import { type Connection, type Row, integer, optionalInteger, optionalText, text } from './connection';

export const OTP_AUTH_SQL = `
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
