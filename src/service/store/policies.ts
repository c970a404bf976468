import type { PolicyEffect } from '../../shared/api/enums';
import { type Connection, type Row, integer, text } from './connection';

export interface PolicyRecord {
  id: string;
  organizationId: string;
  name: string;
  effect: PolicyEffect;
  /** Empty text means "no constraint" (docs/service.md#policy-precedence). */
  condition: string;
  consensus: string;
  /** When the policy is active; empty means always. */
  time: string;
  notes: string;
  createdAt: number;
  updatedAt: number;
}

function toPolicy(row: Row): PolicyRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: text(row, 'name'),
    effect: text(row, 'effect') as PolicyEffect,
    condition: text(row, 'condition'),
    consensus: text(row, 'consensus'),
    time: text(row, 'time'),
    notes: text(row, 'notes'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

function columnsOf(policy: Omit<PolicyRecord, 'createdAt' | 'updatedAt'> & { now: number }) {
  const { id, organizationId, name, effect, condition, consensus, time, notes, now } = policy;
  return { id, organizationId, name, effect, condition, consensus, time, notes, now };
}

export class PolicyRepository {
  constructor(private readonly connection: Connection) {}

  insert(policy: Omit<PolicyRecord, 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO policies (id, organization_id, name, effect, condition, consensus, time, notes, created_at, updated_at)
       VALUES (:id, :organizationId, :name, :effect, :condition, :consensus, :time, :notes, :now, :now)`,
      columnsOf(policy),
    );
  }

  get(organizationId: string, id: string): PolicyRecord | undefined {
    const row = this.connection.get('SELECT * FROM policies WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    });
    return row === undefined ? undefined : toPolicy(row);
  }

  findByName(organizationId: string, name: string): PolicyRecord | undefined {
    const row = this.connection.get('SELECT * FROM policies WHERE name = :name AND organization_id = :organizationId', { name, organizationId });
    return row === undefined ? undefined : toPolicy(row);
  }

  listByOrganization(organizationId: string): PolicyRecord[] {
    return this.connection.all('SELECT * FROM policies WHERE organization_id = :organizationId ORDER BY rowid', { organizationId }).map(toPolicy);
  }

  countByOrganization(organizationId: string): number {
    const row = this.connection.get('SELECT count(*) AS n FROM policies WHERE organization_id = :organizationId', {
      organizationId,
    });
    return row === undefined ? 0 : integer(row, 'n');
  }

  /**
   * Writes the policy's fields over those of the row read as `previous`. The name is written only when it changes:
   * SQLite rewrites an index entry whenever its column is SET, to the same value too, and each page written is a WAL frame.
   */
  update(policy: Omit<PolicyRecord, 'createdAt' | 'updatedAt'> & { now: number }, previous: Pick<PolicyRecord, 'name'>): void {
    const { name, ...unindexed } = columnsOf(policy);
    const renamed = name !== previous.name;
    this.connection.run(
      `UPDATE policies SET ${renamed ? 'name = :name, ' : ''}effect = :effect, condition = :condition, consensus = :consensus,
              time = :time, notes = :notes, updated_at = :now
       WHERE id = :id AND organization_id = :organizationId`,
      renamed ? { name, ...unindexed } : unindexed,
    );
  }

  delete(organizationId: string, id: string): boolean {
    return (
      this.connection.run('DELETE FROM policies WHERE id = :id AND organization_id = :organizationId', {
        id,
        organizationId,
      }) === 1
    );
  }
}
