/** TVC apps with their operators and operator sets (schema: migration 2). */
import { type Connection, type Row, integer, text } from './connection';

export const TVC_SQL = `
  CREATE TABLE tvc_operators (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    public_key TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );

  CREATE TABLE tvc_operator_sets (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    threshold INTEGER NOT NULL CHECK (threshold >= 1),
    created_at INTEGER NOT NULL
  );

  CREATE TABLE tvc_operator_set_members (
    set_id TEXT NOT NULL REFERENCES tvc_operator_sets(id) ON DELETE CASCADE,
    operator_id TEXT NOT NULL REFERENCES tvc_operators(id) ON DELETE CASCADE,
    PRIMARY KEY (set_id, operator_id)
  );

  CREATE TABLE tvc_apps (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    quorum_public_key TEXT NOT NULL,
    manifest_set_id TEXT NOT NULL REFERENCES tvc_operator_sets(id),
    share_set_id TEXT NOT NULL REFERENCES tvc_operator_sets(id),
    enable_egress INTEGER NOT NULL,
    enable_debug_mode_deployments INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (organization_id, name)
  );
`;

export interface TvcOperatorRecord {
  id: string;
  name: string;
  publicKey: string;
  createdAt: number;
}

export interface TvcOperatorSetRecord {
  id: string;
  organizationId: string;
  name: string;
  threshold: number;
  operators: TvcOperatorRecord[];
  createdAt: number;
}

export interface TvcAppRecord {
  id: string;
  organizationId: string;
  name: string;
  quorumPublicKey: string;
  manifestSetId: string;
  shareSetId: string;
  enableEgress: boolean;
  enableDebugModeDeployments: boolean;
  createdAt: number;
  updatedAt: number;
}

function toApp(row: Row): TvcAppRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: text(row, 'name'),
    quorumPublicKey: text(row, 'quorum_public_key'),
    manifestSetId: text(row, 'manifest_set_id'),
    shareSetId: text(row, 'share_set_id'),
    enableEgress: integer(row, 'enable_egress') === 1,
    enableDebugModeDeployments: integer(row, 'enable_debug_mode_deployments') === 1,
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class TvcRepository {
  constructor(private readonly connection: Connection) {}

  insertOperator(record: { id: string; organizationId: string; name: string; publicKey: string; now: number }): void {
    this.connection.run(
      `INSERT INTO tvc_operators (id, organization_id, name, public_key, created_at)
       VALUES (:id, :organizationId, :name, :publicKey, :now)`,
      { ...record },
    );
  }

  operatorExists(organizationId: string, id: string): boolean {
    return (
      this.connection.get('SELECT 1 AS found FROM tvc_operators WHERE id = :id AND organization_id = :organizationId', {
        id,
        organizationId,
      }) !== undefined
    );
  }

  insertOperatorSet(record: { id: string; organizationId: string; name: string; threshold: number; operatorIds: string[]; now: number }): void {
    this.connection.run(
      `INSERT INTO tvc_operator_sets (id, organization_id, name, threshold, created_at)
       VALUES (:id, :organizationId, :name, :threshold, :now)`,
      { id: record.id, organizationId: record.organizationId, name: record.name, threshold: record.threshold, now: record.now },
    );
    for (const operatorId of record.operatorIds) {
      this.connection.run('INSERT INTO tvc_operator_set_members (set_id, operator_id) VALUES (:setId, :operatorId)', {
        setId: record.id,
        operatorId,
      });
    }
  }

  getOperatorSet(organizationId: string, id: string): TvcOperatorSetRecord | undefined {
    const row = this.connection.get('SELECT * FROM tvc_operator_sets WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    });
    if (row === undefined) return undefined;
    const operators = this.connection
      .all(
        `SELECT o.* FROM tvc_operators o JOIN tvc_operator_set_members m ON m.operator_id = o.id
         WHERE m.set_id = :id ORDER BY o.rowid`,
        { id },
      )
      .map((operator) => ({
        id: text(operator, 'id'),
        name: text(operator, 'name'),
        publicKey: text(operator, 'public_key'),
        createdAt: integer(operator, 'created_at'),
      }));
    return {
      id,
      organizationId,
      name: text(row, 'name'),
      threshold: integer(row, 'threshold'),
      operators,
      createdAt: integer(row, 'created_at'),
    };
  }

  insertApp(record: Omit<TvcAppRecord, 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO tvc_apps (id, organization_id, name, quorum_public_key, manifest_set_id, share_set_id, enable_egress,
                             enable_debug_mode_deployments, created_at, updated_at)
       VALUES (:id, :organizationId, :name, :quorumPublicKey, :manifestSetId, :shareSetId, :enableEgress,
               :enableDebugModeDeployments, :now, :now)`,
      {
        ...record,
        enableEgress: record.enableEgress ? 1 : 0,
        enableDebugModeDeployments: record.enableDebugModeDeployments ? 1 : 0,
      },
    );
  }

  getApp(organizationId: string, id: string): TvcAppRecord | undefined {
    const row = this.connection.get('SELECT * FROM tvc_apps WHERE id = :id AND organization_id = :organizationId', { id, organizationId });
    return row === undefined ? undefined : toApp(row);
  }

  findAppByName(organizationId: string, name: string): TvcAppRecord | undefined {
    const row = this.connection.get('SELECT * FROM tvc_apps WHERE name = :name AND organization_id = :organizationId', {
      name,
      organizationId,
    });
    return row === undefined ? undefined : toApp(row);
  }

  listApps(organizationId: string): TvcAppRecord[] {
    return this.connection.all('SELECT * FROM tvc_apps WHERE organization_id = :organizationId ORDER BY rowid', { organizationId }).map(toApp);
  }

  /** Deletes the app. The service runs no deployments, so there are none to remove with it; operator sets stay reusable. */
  deleteApp(id: string): void {
    this.connection.run('DELETE FROM tvc_apps WHERE id = :id', { id });
  }
}
