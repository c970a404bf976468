import { type Connection, type Row, integer, text } from './connection';

export interface UserTagRecord {
  id: string;
  organizationId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

function toTag(row: Row): UserTagRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: text(row, 'name'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class UserTagRepository {
  constructor(private readonly connection: Connection) {}

  insert(tag: { id: string; organizationId: string; name: string; now: number }): void {
    this.connection.run(
      `INSERT INTO user_tags (id, organization_id, name, created_at, updated_at)
       VALUES (:id, :organizationId, :name, :now, :now)`,
      { id: tag.id, organizationId: tag.organizationId, name: tag.name, now: tag.now },
    );
  }

  get(id: string): UserTagRecord | undefined {
    const row = this.connection.get('SELECT * FROM user_tags WHERE id = :id', { id });
    return row === undefined ? undefined : toTag(row);
  }

  listByOrganization(organizationId: string): UserTagRecord[] {
    return this.connection
      .all('SELECT * FROM user_tags WHERE organization_id = :organizationId ORDER BY rowid', { organizationId })
      .map(toTag);
  }

  addMember(tagId: string, userId: string): void {
    this.connection.run('INSERT OR IGNORE INTO user_tag_members (tag_id, user_id) VALUES (:tagId, :userId)', {
      tagId,
      userId,
    });
  }

  removeMember(tagId: string, userId: string): void {
    this.connection.run('DELETE FROM user_tag_members WHERE tag_id = :tagId AND user_id = :userId', { tagId, userId });
  }

  rename(id: string, name: string, now: number): void {
    this.connection.run('UPDATE user_tags SET name = :name, updated_at = :now WHERE id = :id', { id, name, now });
  }

  tagIdsOfUser(userId: string): string[] {
    return this.connection
      .all('SELECT tag_id FROM user_tag_members WHERE user_id = :userId ORDER BY rowid', { userId })
      .map((row) => text(row, 'tag_id'));
  }

  findByName(organizationId: string, name: string): UserTagRecord | undefined {
    const row = this.connection.get('SELECT * FROM user_tags WHERE organization_id = :organizationId AND name = :name', {
      organizationId,
      name,
    });
    return row === undefined ? undefined : toTag(row);
  }

  memberIds(tagId: string): string[] {
    return this.connection
      .all('SELECT user_id FROM user_tag_members WHERE tag_id = :tagId ORDER BY rowid', { tagId })
      .map((row) => text(row, 'user_id'));
  }

  /** Replaces the user's tag memberships with exactly `tagIds`. */
  setTagsOfUser(userId: string, tagIds: readonly string[]): void {
    this.connection.run('DELETE FROM user_tag_members WHERE user_id = :userId', { userId });
    for (const tagId of tagIds) this.addMember(tagId, userId);
  }

  /** Deletes the tag and its memberships (cascade). */
  delete(id: string): void {
    this.connection.run('DELETE FROM user_tags WHERE id = :id', { id });
  }
}

