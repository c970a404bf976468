/**
 * The tags users and private keys are grouped by: a name unique in its organization. Only how members are kept
 * differs (a membership table for users, a JSON column of the key for private keys), so each family's repository
 * adds that to this one.
 */
import { type Connection, type Row, integer, text } from './connection';

export interface TagRecord {
  id: string;
  organizationId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

/** The tables holding tags; a closed set, as the name is written into the SQL. */
type TagTable = 'user_tags' | 'private_key_tags';

function toTag(row: Row): TagRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: text(row, 'name'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class TagRepository {
  constructor(
    protected readonly connection: Connection,
    private readonly table: TagTable,
  ) {}

  insert(tag: { id: string; organizationId: string; name: string; now: number }): void {
    this.connection.run(
      `INSERT INTO ${this.table} (id, organization_id, name, created_at, updated_at)
       VALUES (:id, :organizationId, :name, :now, :now)`,
      { id: tag.id, organizationId: tag.organizationId, name: tag.name, now: tag.now },
    );
  }

  get(organizationId: string, id: string): TagRecord | undefined {
    const row = this.connection.get(`SELECT * FROM ${this.table} WHERE id = :id AND organization_id = :organizationId`, { id, organizationId });
    return row === undefined ? undefined : toTag(row);
  }

  findByName(organizationId: string, name: string): TagRecord | undefined {
    const row = this.connection.get(`SELECT * FROM ${this.table} WHERE organization_id = :organizationId AND name = :name`, {
      organizationId,
      name,
    });
    return row === undefined ? undefined : toTag(row);
  }

  listByOrganization(organizationId: string): TagRecord[] {
    return this.connection.all(`SELECT * FROM ${this.table} WHERE organization_id = :organizationId ORDER BY rowid`, { organizationId }).map(toTag);
  }

  rename(id: string, name: string, now: number): void {
    this.connection.run(`UPDATE ${this.table} SET name = :name, updated_at = :now WHERE id = :id`, { id, name, now });
  }

  /** Deletes the tag (user tag memberships go with it, by cascade). */
  delete(id: string): void {
    this.connection.run(`DELETE FROM ${this.table} WHERE id = :id`, { id });
  }
}
