import { type Connection, type Row, integer, optionalText, text } from './connection';

export interface UserRecord {
  id: string;
  organizationId: string;
  name: string;
  email: string | undefined;
  phoneNumber: string | undefined;
  createdAt: number;
  updatedAt: number;
}

function toUser(row: Row): UserRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    name: text(row, 'name'),
    email: optionalText(row, 'email'),
    phoneNumber: optionalText(row, 'phone_number'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class UserRepository {
  constructor(private readonly connection: Connection) {}

  insert(user: { id: string; organizationId: string; name: string; email?: string; phoneNumber?: string; now: number }): void {
    this.connection.run(
      `INSERT INTO users (id, organization_id, name, email, phone_number, created_at, updated_at)
       VALUES (:id, :organizationId, :name, :email, :phoneNumber, :now, :now)`,
      {
        id: user.id,
        organizationId: user.organizationId,
        name: user.name,
        email: user.email ?? null,
        phoneNumber: user.phoneNumber ?? null,
        now: user.now,
      },
    );
  }

  get(id: string): UserRecord | undefined {
    const row = this.connection.get('SELECT * FROM users WHERE id = :id', { id });
    return row === undefined ? undefined : toUser(row);
  }

  listByOrganization(organizationId: string): UserRecord[] {
    return this.connection.all('SELECT * FROM users WHERE organization_id = :organizationId ORDER BY rowid', { organizationId }).map(toUser);
  }

  /** Rewrites the mutable fields; api keys, tag memberships and quorum membership are untouched. */
  update(user: { id: string; name: string; email: string | undefined; phoneNumber: string | undefined; now: number }): void {
    this.connection.run('UPDATE users SET name = :name, email = :email, phone_number = :phoneNumber, updated_at = :now WHERE id = :id', {
      id: user.id,
      name: user.name,
      email: user.email ?? null,
      phoneNumber: user.phoneNumber ?? null,
      now: user.now,
    });
  }

  /** Deletes the user; their credentials, tag memberships, quorum membership and import targets go with them (cascade). */
  delete(id: string): void {
    // The user's import targets hold sealed HPKE keys.
    this.connection.noteKeyMaterialErased();
    this.connection.run('DELETE FROM users WHERE id = :id', { id });
  }
}
