/**
 * Import targets: the one-shot HPKE keys that init_import_* hands out and import_* consumes (schema: migration
 * "key material"). What an export changes is recorded on the wallet or private key it exported.
 */
import { type Connection, type Row, blob, integer, optionalInteger, optionalText, text } from './connection';

export const IMPORT_TARGETS_SQL = `
  -- One-shot HPKE keys of init_import_*. used_at makes a target single-use; since migration 8 a used target's sealed
  -- key is erased and used_bundle_digest recognises a replayed bundle instead.
  CREATE TABLE import_targets (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('wallet', 'private_key')),
    public_key TEXT NOT NULL,
    sealed_secret BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  );
  CREATE INDEX import_targets_user ON import_targets(organization_id, user_id, kind, seq);
`;

/**
 * Migration "secrets": import targets also serve secrets. SQLite cannot widen a CHECK constraint, so the table is
 * rebuilt with its rows, ids and sequence as they were.
 */
export const IMPORT_TARGETS_FOR_SECRETS_SQL = `
  CREATE TABLE import_targets_rebuilt (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('wallet', 'private_key', 'secret')),
    public_key TEXT NOT NULL,
    sealed_secret BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    used_bundle_digest TEXT
  );
  INSERT INTO import_targets_rebuilt (seq, id, organization_id, user_id, kind, public_key, sealed_secret, created_at, expires_at,
                                      used_at, used_bundle_digest)
    SELECT seq, id, organization_id, user_id, kind, public_key, sealed_secret, created_at, expires_at, used_at, used_bundle_digest
      FROM import_targets ORDER BY seq;
  DROP TABLE import_targets;
  ALTER TABLE import_targets_rebuilt RENAME TO import_targets;
  CREATE INDEX import_targets_user ON import_targets(organization_id, user_id, kind, seq);
  CREATE INDEX import_targets_public_key ON import_targets(organization_id, kind, public_key);
`;

export type ImportKind = 'wallet' | 'private_key' | 'secret';

export interface ImportTargetRecord {
  id: string;
  organizationId: string;
  userId: string;
  kind: ImportKind;
  /** Uncompressed P-256 point, 130 hex. */
  publicKey: string;
  /**
   * Empty once the target is used (the bundle it opened stays in the activity log, its key must not) or once it
   * expired unused (a bundle sealed to it could otherwise still be opened from a copy of the database).
   */
  sealedSecret: Uint8Array;
  createdAt: number;
  expiresAt: number;
  usedAt: number | undefined;
  /** SHA-256 (hex) of the encapsulated key of the bundle that used the target, to refuse its replay. */
  usedBundleDigest: string | undefined;
}

function toImportTarget(row: Row): ImportTargetRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    userId: text(row, 'user_id'),
    kind: text(row, 'kind') as ImportKind,
    publicKey: text(row, 'public_key'),
    sealedSecret: blob(row, 'sealed_secret'),
    createdAt: integer(row, 'created_at'),
    expiresAt: integer(row, 'expires_at'),
    usedAt: optionalInteger(row, 'used_at'),
    usedBundleDigest: optionalText(row, 'used_bundle_digest'),
  };
}

export class ImportTargetRepository {
  constructor(private readonly connection: Connection) {}

  insert(target: Omit<ImportTargetRecord, 'usedAt' | 'usedBundleDigest'>): void {
    this.connection.run(
      `INSERT INTO import_targets (id, organization_id, user_id, kind, public_key, sealed_secret, created_at, expires_at)
       VALUES (:id, :organizationId, :userId, :kind, :publicKey, :sealedSecret, :createdAt, :expiresAt)`,
      { ...target },
    );
  }

  /** The user's most recent targets of one kind, newest first. */
  recentForUser(organizationId: string, userId: string, kind: ImportKind, limit: number): ImportTargetRecord[] {
    return this.connection
      .all(
        `SELECT * FROM import_targets WHERE organization_id = :organizationId AND user_id = :userId AND kind = :kind
         ORDER BY seq DESC LIMIT :limit`,
        { organizationId, userId, kind, limit },
      )
      .map(toImportTarget);
  }

  /** The newest target of `kind` in the organization whose public key is `publicKey` (uncompressed, lowercase hex). */
  findByPublicKey(organizationId: string, kind: ImportKind, publicKey: string): ImportTargetRecord | undefined {
    const row = this.connection.get(
      `SELECT * FROM import_targets WHERE organization_id = :organizationId AND kind = :kind AND public_key = :publicKey
       ORDER BY seq DESC LIMIT 1`,
      { organizationId, kind, publicKey },
    );
    return row === undefined ? undefined : toImportTarget(row);
  }

  /** Erases the sealed key of every unused target expired at `now` (all organizations); returns how many. */
  eraseExpired(now: number): number {
    const erased = this.connection.run(
      "UPDATE import_targets SET sealed_secret = X'' WHERE used_at IS NULL AND expires_at <= :now AND length(sealed_secret) > 0",
      { now },
    );
    if (erased > 0) this.connection.noteKeyMaterialErased();
    return erased;
  }

  /** Marks the target used by the bundle with `bundleDigest` and erases its sealed key. */
  markUsed(id: string, now: number, bundleDigest: string): void {
    this.connection.noteKeyMaterialErased();
    this.connection.run("UPDATE import_targets SET used_at = :now, used_bundle_digest = :bundleDigest, sealed_secret = X'' WHERE id = :id", {
      id,
      now,
      bundleDigest,
    });
  }
}
