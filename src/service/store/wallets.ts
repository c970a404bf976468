/**
 * Wallets and their accounts (schema: migration 4). `sealed_secret` holds only what the enclave
 * sealed; this module never sees a plaintext mnemonic.
 */
import { type Connection, type Row, blob, integer, optionalText, text } from './connection';

export const WALLETS_SQL = `
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
`;

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
    return this.connection.all('SELECT * FROM wallets WHERE organization_id = :organizationId ORDER BY rowid', { organizationId }).map(toWallet);
  }

  countByOrganization(organizationId: string): number {
    const row = this.connection.get('SELECT count(*) AS n FROM wallets WHERE organization_id = :organizationId', {
      organizationId,
    });
    return row === undefined ? 0 : integer(row, 'n');
  }

  markExported(organizationId: string, id: string, now: number): void {
    this.connection.run('UPDATE wallets SET exported = 1, updated_at = :now WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
      now,
    });
  }

  rename(organizationId: string, id: string, name: string, now: number): void {
    this.connection.run('UPDATE wallets SET name = :name, updated_at = :now WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
      name,
      now,
    });
  }

  /** Removes the wallet and (by cascade) its accounts. */
  delete(organizationId: string, id: string): boolean {
    this.connection.noteKeyMaterialErased();
    return (
      this.connection.run('DELETE FROM wallets WHERE id = :id AND organization_id = :organizationId', {
        id,
        organizationId,
      }) === 1
    );
  }
}

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
    const row = this.connection.get('SELECT * FROM wallet_accounts WHERE id = :id AND organization_id = :organizationId', { id, organizationId });
    return row === undefined ? undefined : toWalletAccount(row);
  }

  delete(organizationId: string, id: string): boolean {
    return this.connection.run('DELETE FROM wallet_accounts WHERE id = :id AND organization_id = :organizationId', { id, organizationId }) === 1;
  }

  listByWallet(walletId: string): WalletAccountRecord[] {
    return this.connection.all('SELECT * FROM wallet_accounts WHERE wallet_id = :walletId ORDER BY seq', { walletId }).map(toWalletAccount);
  }

  /** Oldest first (docs/service.md#pagination); `before` returns the `limit` accounts immediately preceding the cursor. */
  page(query: WalletAccountPage): WalletAccountRecord[] {
    const cursorSeq = (id: string | undefined) =>
      id === undefined ? null : (this.connection.get('SELECT seq FROM wallet_accounts WHERE id = :id', { id })?.seq ?? null);
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

  /** The wallet accounts of every organization with one of these spellings of an address. */
  listByAddresses(addresses: readonly string[]): WalletAccountRecord[] {
    if (addresses.length === 0) return [];
    return this.connection
      .all(`SELECT * FROM wallet_accounts WHERE address IN (SELECT value FROM json_each(:addresses)) ORDER BY seq`, {
        addresses: JSON.stringify(addresses),
      })
      .map(toWalletAccount);
  }

  findByAddress(organizationId: string, address: string): WalletAccountRecord | undefined {
    const row = this.connection.get(
      'SELECT * FROM wallet_accounts WHERE organization_id = :organizationId AND address = :address ORDER BY seq LIMIT 1',
      { organizationId, address },
    );
    return row === undefined ? undefined : toWalletAccount(row);
  }
}
