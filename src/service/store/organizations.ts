import { type Connection, type Row, integer, optionalText, text } from './connection';

export interface OrganizationRecord {
  id: string;
  parentId: string | undefined;
  name: string;
  rootQuorumThreshold: number;
  createdAt: number;
  updatedAt: number;
}

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
    const row = this.connection.get('SELECT * FROM organizations WHERE id = :id', { id });
    return row === undefined ? undefined : toOrganization(row);
  }

  /** The first organization ever created: the one a fresh database was bootstrapped with. */
  firstRoot(): OrganizationRecord | undefined {
    const row = this.connection.get('SELECT * FROM organizations WHERE parent_id IS NULL ORDER BY rowid LIMIT 1');
    return row === undefined ? undefined : toOrganization(row);
  }

  rootQuorum(organizationId: string): RootQuorum {
    const org = this.get(organizationId);
    const members = this.connection.all(
      'SELECT user_id FROM root_quorum_members WHERE organization_id = :organizationId ORDER BY rowid',
      { organizationId },
    );
    return { threshold: org?.rootQuorumThreshold ?? 1, userIds: members.map((row) => text(row, 'user_id')) };
  }

  /** Replaces the root quorum; the caller validates threshold ≤ members and that members belong to the org. */
  setRootQuorum(organizationId: string, quorum: RootQuorum, now: number): void {
    this.connection.run(
      'UPDATE organizations SET root_quorum_threshold = :threshold, updated_at = :now WHERE id = :organizationId',
      { organizationId, threshold: quorum.threshold, now },
    );
    this.connection.run('DELETE FROM root_quorum_members WHERE organization_id = :organizationId', { organizationId });
    for (const userId of quorum.userIds) {
      this.connection.run(
        'INSERT INTO root_quorum_members (organization_id, user_id) VALUES (:organizationId, :userId)',
        { organizationId, userId },
      );
    }
  }
}
