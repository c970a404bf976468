import { type Connection, type Row, integer, optionalInteger, optionalText, text } from './connection';

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  /** Hex as it appears in stamps: compressed SEC1 for P-256/secp256k1, raw 32 bytes for Ed25519. */
  publicKey: string;
  credentialType: string;
  expirationSeconds: number | undefined;
  sessionProfileId: string | undefined;
  createdAt: number;
  updatedAt: number;
}

function toApiKey(row: Row): ApiKeyRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    userId: text(row, 'user_id'),
    name: text(row, 'name'),
    publicKey: text(row, 'public_key'),
    credentialType: text(row, 'credential_type'),
    expirationSeconds: optionalInteger(row, 'expiration_seconds'),
    sessionProfileId: optionalText(row, 'session_profile_id'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class ApiKeyRepository {
  constructor(private readonly connection: Connection) {}

  insert(key: Omit<ApiKeyRecord, 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO api_keys (id, organization_id, user_id, name, public_key, credential_type, expiration_seconds,
                             session_profile_id, created_at, updated_at)
       VALUES (:id, :organizationId, :userId, :name, :publicKey, :credentialType, :expirationSeconds,
               :sessionProfileId, :now, :now)`,
      {
        id: key.id,
        organizationId: key.organizationId,
        userId: key.userId,
        name: key.name,
        publicKey: key.publicKey.toLowerCase(),
        credentialType: key.credentialType,
        expirationSeconds: key.expirationSeconds ?? null,
        sessionProfileId: key.sessionProfileId ?? null,
        now: key.now,
      },
    );
  }

  get(id: string): ApiKeyRecord | undefined {
    const row = this.connection.get('SELECT * FROM api_keys WHERE id = :id', { id });
    return row === undefined ? undefined : toApiKey(row);
  }

  /** Every API key holding this public key, in any organization. */
  findByPublicKey(publicKey: string): ApiKeyRecord[] {
    return this.connection.all('SELECT * FROM api_keys WHERE public_key = :publicKey', { publicKey: publicKey.toLowerCase() }).map(toApiKey);
  }

  listByUser(userId: string): ApiKeyRecord[] {
    return this.connection.all('SELECT * FROM api_keys WHERE user_id = :userId ORDER BY rowid', { userId }).map(toApiKey);
  }

  /** Removes a user's keys of one credential type (e.g. earlier login sessions); returns how many. */
  deleteByUserAndType(userId: string, credentialType: string): number {
    return this.connection.run('DELETE FROM api_keys WHERE user_id = :userId AND credential_type = :credentialType', {
      userId,
      credentialType,
    });
  }

  listByOrganization(organizationId: string): ApiKeyRecord[] {
    return this.connection.all('SELECT * FROM api_keys WHERE organization_id = :organizationId ORDER BY rowid', { organizationId }).map(toApiKey);
  }

  delete(id: string): void {
    this.connection.run('DELETE FROM api_keys WHERE id = :id', { id });
  }
}
