import { type Connection, type Row, integer, text } from './connection';

/** Keys the service itself holds (not customers' keys): e.g. the enclave signing key. */
export interface ServiceKeyRecord {
  purpose: string;
  curve: string;
  publicKey: string;
  privateKey: string;
  createdAt: number;
}

function toServiceKey(row: Row): ServiceKeyRecord {
  return {
    purpose: text(row, 'purpose'),
    curve: text(row, 'curve'),
    publicKey: text(row, 'public_key'),
    privateKey: text(row, 'private_key'),
    createdAt: integer(row, 'created_at'),
  };
}

export class ServiceKeyRepository {
  constructor(private readonly connection: Connection) {}

  insert(key: ServiceKeyRecord): void {
    this.connection.run(
      `INSERT INTO service_keys (purpose, curve, public_key, private_key, created_at)
       VALUES (:purpose, :curve, :publicKey, :privateKey, :createdAt)`,
      { ...key },
    );
  }

  get(purpose: string): ServiceKeyRecord | undefined {
    const row = this.connection.get('SELECT * FROM service_keys WHERE purpose = :purpose', { purpose });
    return row === undefined ? undefined : toServiceKey(row);
  }
}

export interface AuthProxyConfigRecord {
  id: string;
  organizationId: string;
  createdAt: number;
}

export class AuthProxyConfigRepository {
  constructor(private readonly connection: Connection) {}

  insert(config: AuthProxyConfigRecord): void {
    this.connection.run('INSERT INTO auth_proxy_configs (id, organization_id, created_at) VALUES (:id, :organizationId, :createdAt)', { ...config });
  }

  get(id: string): AuthProxyConfigRecord | undefined {
    const row = this.connection.get('SELECT * FROM auth_proxy_configs WHERE id = :id', { id });
    return row === undefined
      ? undefined
      : { id: text(row, 'id'), organizationId: text(row, 'organization_id'), createdAt: integer(row, 'created_at') };
  }

  listByOrganization(organizationId: string): AuthProxyConfigRecord[] {
    return this.connection
      .all('SELECT * FROM auth_proxy_configs WHERE organization_id = :organizationId ORDER BY rowid', {
        organizationId,
      })
      .map((row) => ({
        id: text(row, 'id'),
        organizationId: text(row, 'organization_id'),
        createdAt: integer(row, 'created_at'),
      }));
  }
}
