/** User tags and their members (schema: migration 1). */
import { type Connection, text } from './connection';
import { TagRepository } from './tags';

export type { TagRecord as UserTagRecord } from './tags';

export class UserTagRepository extends TagRepository {
  constructor(connection: Connection) {
    super(connection, 'user_tags');
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

  tagIdsOfUser(userId: string): string[] {
    return this.connection
      .all('SELECT tag_id FROM user_tag_members WHERE user_id = :userId ORDER BY rowid', { userId })
      .map((row) => text(row, 'tag_id'));
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
}
