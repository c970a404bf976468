/**
 * IP allowlists (schema: migration 12): per organization, one for the organization as a whole and one per API key,
 * each a list of CIDR rules. An API key's own list replaces the organization's for requests it stamps.
 */
import { type Connection, type Row, integer, optionalInteger, text } from './connection';

export const IP_ALLOWLISTS_SQL = `
  CREATE TABLE ip_allowlists (
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    -- '' for the organization's own list; otherwise the API key's public key as stored.
    public_key TEXT NOT NULL,
    enabled INTEGER,
    on_evaluation_error TEXT NOT NULL,
    rules TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (organization_id, public_key)
  );
`;

export interface IpAllowlistRule {
  cidr: string;
  label: string | undefined;
  createdAt: number;
}

export type EvaluationErrorOutcome = 'ALLOW' | 'DENY';

export interface IpAllowlistRecord {
  organizationId: string;
  /** Undefined for the organization's own list. */
  publicKey: string | undefined;
  /** Only the organization's list can be switched off; an API key's applies while it exists. */
  enabled: boolean | undefined;
  onEvaluationError: EvaluationErrorOutcome;
  rules: IpAllowlistRule[];
  createdAt: number;
  updatedAt: number;
}

const ORGANIZATION_LIST = '';

function toAllowlist(row: Row): IpAllowlistRecord {
  const publicKey = text(row, 'public_key');
  const enabled = optionalInteger(row, 'enabled');
  return {
    organizationId: text(row, 'organization_id'),
    publicKey: publicKey === ORGANIZATION_LIST ? undefined : publicKey,
    enabled: enabled === undefined ? undefined : enabled === 1,
    onEvaluationError: text(row, 'on_evaluation_error') === 'ALLOW' ? 'ALLOW' : 'DENY',
    rules: (JSON.parse(text(row, 'rules')) as { cidr: string; label?: string; createdAt: number }[]).map((rule) => ({
      cidr: rule.cidr,
      label: rule.label,
      createdAt: rule.createdAt,
    })),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class IpAllowlistRepository {
  constructor(private readonly connection: Connection) {}

  get(organizationId: string, publicKey: string | undefined): IpAllowlistRecord | undefined {
    const row = this.connection.get('SELECT * FROM ip_allowlists WHERE organization_id = :organizationId AND public_key = :publicKey', {
      organizationId,
      publicKey: publicKey ?? ORGANIZATION_LIST,
    });
    return row === undefined ? undefined : toAllowlist(row);
  }

  /** Creates or replaces the list; `createdAt` is kept from an earlier version of it. */
  put(list: Omit<IpAllowlistRecord, 'createdAt' | 'updatedAt'>, now: number): void {
    this.connection.run(
      `INSERT INTO ip_allowlists (organization_id, public_key, enabled, on_evaluation_error, rules, created_at, updated_at)
       VALUES (:organizationId, :publicKey, :enabled, :onEvaluationError, :rules, :now, :now)
       ON CONFLICT (organization_id, public_key) DO UPDATE SET enabled = excluded.enabled,
         on_evaluation_error = excluded.on_evaluation_error, rules = excluded.rules, updated_at = excluded.updated_at`,
      {
        organizationId: list.organizationId,
        publicKey: list.publicKey ?? ORGANIZATION_LIST,
        enabled: list.enabled === undefined ? null : list.enabled ? 1 : 0,
        onEvaluationError: list.onEvaluationError,
        rules: JSON.stringify(list.rules),
        now,
      },
    );
  }

  /** False when there was no such list. */
  delete(organizationId: string, publicKey: string | undefined): boolean {
    return (
      this.connection.run('DELETE FROM ip_allowlists WHERE organization_id = :organizationId AND public_key = :publicKey', {
        organizationId,
        publicKey: publicKey ?? ORGANIZATION_LIST,
      }) > 0
    );
  }
}
