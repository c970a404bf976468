import { type Connection, type Row, integer, optionalText, text } from './connection';

/**
 * Schema of the identity migration: feature flags per organization, and a tombstone for deleted
 * sub-organizations (their activity log is kept as the audit trail; everything else is removed).
 */
export const ORGANIZATION_FEATURES_SQL = `
  ALTER TABLE organizations ADD COLUMN deleted_at INTEGER;

  CREATE TABLE organization_features (
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value TEXT,
    PRIMARY KEY (organization_id, name)
  );
`;

export interface OrganizationRecord {
  id: string;
  parentId: string | undefined;
  name: string;
  rootQuorumThreshold: number;
  createdAt: number;
  updatedAt: number;
}

export interface OrganizationFeature {
  name: string;
  value: string | undefined;
}

/** Which sub-organizations `listSubOrganizations` returns: one field matched exactly, or all. */
export type SubOrganizationFilter = { by: 'NAME' | 'USERNAME' | 'EMAIL' | 'PHONE_NUMBER' | 'PUBLIC_KEY'; value: string } | { by: 'ALL' };

/** SQL conditions on a sub-organization `o` per filter; every one reads `:value`. */
const subOrganizationConditions: Record<SubOrganizationFilter['by'], string> = {
  ALL: '1',
  NAME: 'o.name = :value',
  USERNAME: 'EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.name = :value)',
  EMAIL: 'EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.email = :value)',
  PHONE_NUMBER: 'EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.phone_number = :value)',
  PUBLIC_KEY: 'EXISTS (SELECT 1 FROM api_keys k WHERE k.organization_id = o.id AND k.public_key = lower(:value))',
};

export interface RootQuorum {
  threshold: number;
  userIds: string[];
}

function toOrganization(row: Row): OrganizationRecord {
  return {
    id: text(row, 'id'),
    parentId: optionalText(row, 'parent_id'),
    name: text(row, 'name'),
    rootQuorumThreshold: integer(row, 'root_quorum_threshold'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class OrganizationRepository {
  constructor(private readonly connection: Connection) {}

  insert(org: { id: string; parentId?: string; name: string; rootQuorumThreshold: number; now: number }): void {
    this.connection.run(
      `INSERT INTO organizations (id, parent_id, name, root_quorum_threshold, created_at, updated_at)
       VALUES (:id, :parentId, :name, :threshold, :now, :now)`,
      { id: org.id, parentId: org.parentId ?? null, name: org.name, threshold: org.rootQuorumThreshold, now: org.now },
    );
  }

  get(id: string): OrganizationRecord | undefined {
    const row = this.connection.get('SELECT * FROM organizations WHERE id = :id AND deleted_at IS NULL', { id });
    return row === undefined ? undefined : toOrganization(row);
  }

  rename(id: string, name: string, now: number): void {
    this.connection.run('UPDATE organizations SET name = :name, updated_at = :now WHERE id = :id', { id, name, now });
  }

  /** The first organization ever created: the one a fresh database was bootstrapped with. */
  firstRoot(): OrganizationRecord | undefined {
    const row = this.connection.get('SELECT * FROM organizations WHERE parent_id IS NULL AND deleted_at IS NULL ORDER BY rowid LIMIT 1');
    return row === undefined ? undefined : toOrganization(row);
  }

  rootQuorum(organizationId: string): RootQuorum {
    const org = this.get(organizationId);
    const members = this.connection.all('SELECT user_id FROM root_quorum_members WHERE organization_id = :organizationId ORDER BY rowid', {
      organizationId,
    });
    return { threshold: org?.rootQuorumThreshold ?? 1, userIds: members.map((row) => text(row, 'user_id')) };
  }

  /** Replaces the root quorum; the caller validates threshold ≤ members and that members belong to the org. */
  setRootQuorum(organizationId: string, quorum: RootQuorum, now: number): void {
    this.connection.run('UPDATE organizations SET root_quorum_threshold = :threshold, updated_at = :now WHERE id = :organizationId', {
      organizationId,
      threshold: quorum.threshold,
      now,
    });
    this.connection.run('DELETE FROM root_quorum_members WHERE organization_id = :organizationId', { organizationId });
    for (const userId of quorum.userIds) {
      this.connection.run('INSERT INTO root_quorum_members (organization_id, user_id) VALUES (:organizationId, :userId)', { organizationId, userId });
    }
  }

  /**
   * Live sub-organizations of `parentId` in creation order, a page of at most `limit` after or before the
   * cursor sub-organization (a cursor that is not a sub-organization of `parentId` yields nothing).
   */
  listSubOrganizations(query: { parentId: string; filter: SubOrganizationFilter; limit: number; after?: string; before?: string }): string[] {
    const backwards = query.before !== undefined && query.after === undefined;
    const positionOf = (param: string) => `(SELECT c.rowid FROM organizations c WHERE c.id = :${param} AND c.parent_id = :parentId)`;
    const rows = this.connection.all(
      `SELECT o.id FROM organizations o
       WHERE o.parent_id = :parentId AND o.deleted_at IS NULL AND ${subOrganizationConditions[query.filter.by]}
         ${query.after === undefined ? '' : `AND o.rowid > ${positionOf('after')}`}
         ${query.before === undefined ? '' : `AND o.rowid < ${positionOf('before')}`}
       ORDER BY o.rowid ${backwards ? 'DESC' : 'ASC'}
       LIMIT :limit`,
      {
        parentId: query.parentId,
        limit: query.limit,
        ...(query.filter.by === 'ALL' ? {} : { value: query.filter.value }),
        ...(query.after === undefined ? {} : { after: query.after }),
        ...(query.before === undefined ? {} : { before: query.before }),
      },
    );
    const ids = rows.map((row) => text(row, 'id'));
    return backwards ? ids.reverse() : ids;
  }

  /** Leaves a tombstone: the organization no longer resolves, its activities stay as the audit trail. */
  markDeleted(id: string, now: number): void {
    this.connection.run('UPDATE organizations SET deleted_at = :now, updated_at = :now WHERE id = :id', { id, now });
  }

  features(organizationId: string): OrganizationFeature[] {
    return this.connection
      .all('SELECT name, value FROM organization_features WHERE organization_id = :organizationId ORDER BY name', {
        organizationId,
      })
      .map((row) => ({ name: text(row, 'name'), value: optionalText(row, 'value') }));
  }

  setFeature(organizationId: string, feature: OrganizationFeature): void {
    this.connection.run(
      `INSERT INTO organization_features (organization_id, name, value) VALUES (:organizationId, :name, :value)
       ON CONFLICT (organization_id, name) DO UPDATE SET value = excluded.value`,
      { organizationId, name: feature.name, value: feature.value ?? null },
    );
  }

  /** False when the organization had no such feature. */
  removeFeature(organizationId: string, name: string): boolean {
    return (
      this.connection.run('DELETE FROM organization_features WHERE organization_id = :organizationId AND name = :name', { organizationId, name }) > 0
    );
  }
}
