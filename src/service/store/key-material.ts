/**
 * Wallets, wallet accounts, private keys, import targets and app proofs (schema: migration "key material").
 * Secret columns (`sealed_*`) hold only what the enclave sealed (enclave/sealed.ts); this module never sees
 * plaintext secrets.
 */
import { type Connection, type Row, integer, optionalInteger, optionalText, text } from './connection';

export const KEY_MATERIAL_SQL = `
  CREATE TABLE wallets (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    sealed_secret BLOB NOT NULL,
    exported INTEGER NOT NULL DEFAULT 0,
    imported INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (organization_id, name)
  );

  -- seq orders accounts by creation for pagination cursors.
  CREATE TABLE wallet_accounts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    wallet_id TEXT NOT NULL REFERENCES wallets(id) ON DELETE CASCADE,
    curve TEXT NOT NULL,
    path_format TEXT NOT NULL,
    path TEXT NOT NULL,
    address_format TEXT NOT NULL,
    address TEXT NOT NULL,
    public_key TEXT NOT NULL,
    name TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (wallet_id, path)
  );
  CREATE INDEX wallet_accounts_organization ON wallet_accounts(organization_id, seq);
  CREATE INDEX wallet_accounts_address ON wallet_accounts(organization_id, address);

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

  CREATE TABLE app_proofs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    scheme TEXT NOT NULL,
    public_key TEXT NOT NULL,
    proof_payload TEXT NOT NULL,
    signature TEXT NOT NULL
  );
  CREATE INDEX app_proofs_activity ON app_proofs(activity_id, seq);
`;

function blob(row: Row, column: string): Uint8Array {
  return row[column] as Uint8Array;
}

// ─── wallets ───────────────────────────────────────────────────────────────────────────────────

export interface WalletRecord {
  id: string;
  organizationId: string;
  name: string;
  sealedSecret: Uint8Array;
  exported: boolean;
  imported: boolean;
  createdAt: number;
  updatedAt: number;
}

function toWallet(row: Row): WalletRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: text(row, 'name'),
    sealedSecret: blob(row, 'sealed_secret'),
    exported: integer(row, 'exported') === 1,
    imported: integer(row, 'imported') === 1,
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class WalletRepository {
  constructor(private readonly connection: Connection) {}

  insert(wallet: Omit<WalletRecord, 'exported' | 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO wallets (id, organization_id, name, sealed_secret, imported, created_at, updated_at)
       VALUES (:id, :organizationId, :name, :sealedSecret, :imported, :now, :now)`,
      {
        id: wallet.id,
        organizationId: wallet.organizationId,
        name: wallet.name,
        sealedSecret: wallet.sealedSecret,
        imported: wallet.imported ? 1 : 0,
        now: wallet.now,
      },
    );
  }

  get(organizationId: string, id: string): WalletRecord | undefined {
    const row = this.connection.get('SELECT * FROM wallets WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    });
    return row === undefined ? undefined : toWallet(row);
  }

  findByName(organizationId: string, name: string): WalletRecord | undefined {
    const row = this.connection.get('SELECT * FROM wallets WHERE name = :name AND organization_id = :organizationId', {
      name,
      organizationId,
    });
    return row === undefined ? undefined : toWallet(row);
  }

  listByOrganization(organizationId: string): WalletRecord[] {
    return this.connection
      .all('SELECT * FROM wallets WHERE organization_id = :organizationId ORDER BY rowid', { organizationId })
      .map(toWallet);
  }

  countByOrganization(organizationId: string): number {
    const row = this.connection.get('SELECT count(*) AS n FROM wallets WHERE organization_id = :organizationId', {
      organizationId,
    });
    return row === undefined ? 0 : integer(row, 'n');
  }

  markExported(organizationId: string, id: string, now: number): void {
    this.connection.run(
      'UPDATE wallets SET exported = 1, updated_at = :now WHERE id = :id AND organization_id = :organizationId',
      { id, organizationId, now },
    );
  }

  /** Removes the wallet and (by cascade) its accounts. */
  delete(organizationId: string, id: string): boolean {
    this.connection.noteKeyMaterialErased();
    return this.connection.run('DELETE FROM wallets WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    }) === 1;
  }
}

// ─── wallet accounts ───────────────────────────────────────────────────────────────────────────

export interface WalletAccountRecord {
  id: string;
  organizationId: string;
  walletId: string;
  curve: string;
  pathFormat: string;
  path: string;
  addressFormat: string;
  address: string;
  publicKey: string;
  name: string | undefined;
  createdAt: number;
  updatedAt: number;
}

function toWalletAccount(row: Row): WalletAccountRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    walletId: text(row, 'wallet_id'),
    curve: text(row, 'curve'),
    pathFormat: text(row, 'path_format'),
    path: text(row, 'path'),
    addressFormat: text(row, 'address_format'),
    address: text(row, 'address'),
    publicKey: text(row, 'public_key'),
    name: optionalText(row, 'name'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export interface WalletAccountPage {
  organizationId: string;
  walletId?: string;
  limit: number;
  /** Account ids: return accounts created before / after this one. */
  before?: string;
  after?: string;
}

export class WalletAccountRepository {
  constructor(private readonly connection: Connection) {}

  insert(account: Omit<WalletAccountRecord, 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO wallet_accounts (id, organization_id, wallet_id, curve, path_format, path, address_format, address,
                                    public_key, name, created_at, updated_at)
       VALUES (:id, :organizationId, :walletId, :curve, :pathFormat, :path, :addressFormat, :address, :publicKey,
               :name, :now, :now)`,
      { ...account, name: account.name ?? null },
    );
  }

  get(organizationId: string, id: string): WalletAccountRecord | undefined {
    const row = this.connection.get(
      'SELECT * FROM wallet_accounts WHERE id = :id AND organization_id = :organizationId',
      { id, organizationId },
    );
    return row === undefined ? undefined : toWalletAccount(row);
  }

  listByWallet(walletId: string): WalletAccountRecord[] {
    return this.connection
      .all('SELECT * FROM wallet_accounts WHERE wallet_id = :walletId ORDER BY seq', { walletId })
      .map(toWalletAccount);
  }

  /** Oldest first (docs/service.md#pagination); `before` returns the `limit` accounts immediately preceding the cursor. */
  page(query: WalletAccountPage): WalletAccountRecord[] {
    const cursorSeq = (id: string | undefined) =>
      id === undefined ? null : this.connection.get('SELECT seq FROM wallet_accounts WHERE id = :id', { id })?.seq ?? null;
    const rows = this.connection.all(
      `SELECT * FROM (
         SELECT * FROM wallet_accounts
         WHERE organization_id = :organizationId
           AND (:walletId IS NULL OR wallet_id = :walletId)
           AND (:after IS NULL OR seq > :after)
           AND (:before IS NULL OR seq < :before)
         ORDER BY CASE WHEN :before IS NULL THEN seq ELSE -seq END
         LIMIT :limit
       ) ORDER BY seq`,
      {
        organizationId: query.organizationId,
        walletId: query.walletId ?? null,
        after: cursorSeq(query.after) as number | null,
        before: cursorSeq(query.before) as number | null,
        limit: query.limit,
      },
    );
    return rows.map(toWalletAccount);
  }

  findInWallet(walletId: string, by: { address?: string; path?: string }): WalletAccountRecord | undefined {
    const row = this.connection.get(
      `SELECT * FROM wallet_accounts WHERE wallet_id = :walletId
         AND (:address IS NULL OR address = :address) AND (:path IS NULL OR path = :path)
       ORDER BY seq LIMIT 1`,
      { walletId, address: by.address ?? null, path: by.path ?? null },
    );
    return row === undefined ? undefined : toWalletAccount(row);
  }

  findByAddress(organizationId: string, address: string): WalletAccountRecord | undefined {
    const row = this.connection.get(
      'SELECT * FROM wallet_accounts WHERE organization_id = :organizationId AND address = :address ORDER BY seq LIMIT 1',
      { organizationId, address },
    );
    return row === undefined ? undefined : toWalletAccount(row);
  }
}

// ─── private keys ──────────────────────────────────────────────────────────────────────────────

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
    const row = this.connection.get(
      'SELECT * FROM private_keys WHERE name = :name AND organization_id = :organizationId',
      { name, organizationId },
    );
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

  markExported(organizationId: string, id: string, now: number): void {
    this.connection.run(
      'UPDATE private_keys SET exported = 1, updated_at = :now WHERE id = :id AND organization_id = :organizationId',
      { id, organizationId, now },
    );
  }

  delete(organizationId: string, id: string): boolean {
    this.connection.noteKeyMaterialErased();
    return this.connection.run('DELETE FROM private_keys WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    }) === 1;
  }
}

// ─── import targets ────────────────────────────────────────────────────────────────────────────

export type ImportKind = 'wallet' | 'private_key';

export interface ImportTargetRecord {
  id: string;
  organizationId: string;
  userId: string;
  kind: ImportKind;
  /** Uncompressed P-256 point, 130 hex. */
  publicKey: string;
  /** Empty once the target is used: the bundle it opened stays in the activity log, its key must not. */
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

// ─── app proofs ────────────────────────────────────────────────────────────────────────────────

/** A type alias (not an interface) so that it is assignable to the wire schema's open object type. */
export type AppProofRecord = {
  scheme: 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256';
  publicKey: string;
  proofPayload: string;
  signature: string;
};

export class AppProofRepository {
  constructor(private readonly connection: Connection) {}

  insert(activityId: string, proof: AppProofRecord): void {
    this.connection.run(
      `INSERT INTO app_proofs (activity_id, scheme, public_key, proof_payload, signature)
       VALUES (:activityId, :scheme, :publicKey, :proofPayload, :signature)`,
      { activityId, ...proof },
    );
  }

  listByActivity(activityId: string): AppProofRecord[] {
    return this.connection
      .all('SELECT * FROM app_proofs WHERE activity_id = :activityId ORDER BY seq', { activityId })
      .map((row) => ({
        scheme: text(row, 'scheme') as AppProofRecord['scheme'],
        publicKey: text(row, 'public_key'),
        proofPayload: text(row, 'proof_payload'),
        signature: text(row, 'signature'),
      }));
  }
}

/** The key-material repositories over one connection (the caller's transaction or the read connection). */
export class KeyMaterialRepositories {
  readonly wallets: WalletRepository;
  readonly walletAccounts: WalletAccountRepository;
  readonly privateKeys: PrivateKeyRepository;
  readonly importTargets: ImportTargetRepository;
  readonly appProofs: AppProofRepository;

  constructor(private readonly connection: Connection) {
    this.wallets = new WalletRepository(connection);
    this.walletAccounts = new WalletAccountRepository(connection);
    this.privateKeys = new PrivateKeyRepository(connection);
    this.importTargets = new ImportTargetRepository(connection);
    this.appProofs = new AppProofRepository(connection);
  }

  /** Whether any row holds sealed data (a wallet, a private key or an import target). */
  holdsSealedData(): boolean {
    return (
      this.connection.get(
        `SELECT EXISTS (SELECT 1 FROM wallets) OR EXISTS (SELECT 1 FROM private_keys)
           OR EXISTS (SELECT 1 FROM import_targets) AS held`,
      )?.held === 1
    );
  }
}
