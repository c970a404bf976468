/**
 * Invitations to join an organization (schema: migration 11): who is invited, with which tags and access, by whom.
 * Deleting one removes its row.
 */
import { type Connection, type Row, integer, text } from './connection';

export const INVITATIONS_SQL = `
  CREATE TABLE invitations (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    receiver_user_name TEXT NOT NULL,
    receiver_email TEXT NOT NULL,
    receiver_user_tags TEXT NOT NULL,
    access_type TEXT NOT NULL,
    sender_user_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (organization_id, receiver_email)
  );
`;

export interface InvitationRecord {
  id: string;
  organizationId: string;
  receiverUserName: string;
  /** Lower-cased, so that one address is invited once. */
  receiverEmail: string;
  receiverUserTags: string[];
  accessType: string;
  senderUserId: string;
  createdAt: number;
  updatedAt: number;
}

function toInvitation(row: Row): InvitationRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    receiverUserName: text(row, 'receiver_user_name'),
    receiverEmail: text(row, 'receiver_email'),
    receiverUserTags: JSON.parse(text(row, 'receiver_user_tags')) as string[],
    accessType: text(row, 'access_type'),
    senderUserId: text(row, 'sender_user_id'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class InvitationRepository {
  constructor(private readonly connection: Connection) {}

  insert(invitation: Omit<InvitationRecord, 'createdAt' | 'updatedAt'>, now: number): void {
    this.connection.run(
      `INSERT INTO invitations (id, organization_id, receiver_user_name, receiver_email, receiver_user_tags, access_type,
                                sender_user_id, created_at, updated_at)
       VALUES (:id, :organizationId, :receiverUserName, :receiverEmail, :receiverUserTags, :accessType, :senderUserId, :now, :now)`,
      { ...invitation, receiverUserTags: JSON.stringify(invitation.receiverUserTags), now },
    );
  }

  get(organizationId: string, id: string): InvitationRecord | undefined {
    const row = this.connection.get('SELECT * FROM invitations WHERE id = :id AND organization_id = :organizationId', { id, organizationId });
    return row === undefined ? undefined : toInvitation(row);
  }

  findByEmail(organizationId: string, receiverEmail: string): InvitationRecord | undefined {
    const row = this.connection.get('SELECT * FROM invitations WHERE organization_id = :organizationId AND receiver_email = :receiverEmail', {
      organizationId,
      receiverEmail,
    });
    return row === undefined ? undefined : toInvitation(row);
  }

  /** In creation order. */
  listByOrganization(organizationId: string): InvitationRecord[] {
    return this.connection
      .all('SELECT * FROM invitations WHERE organization_id = :organizationId ORDER BY rowid', { organizationId })
      .map(toInvitation);
  }

  delete(organizationId: string, id: string): void {
    this.connection.run('DELETE FROM invitations WHERE id = :id AND organization_id = :organizationId', { id, organizationId });
  }
}
