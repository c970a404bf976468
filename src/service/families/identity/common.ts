/** Lookups and checks shared by the identity families. */
import { QkError } from '../../../shared/errors';
import type { Repositories } from '../../store';
import type { UserRecord } from '../../store/users';

/** Where a family step writes a new credential: the user it belongs to, in one organization. */
export interface Owner {
  store: Repositories;
  organizationId: string;
  userId: string;
  now: number;
  newId(): string;
}

export function requireUser(store: Repositories, organizationId: string, userId: string): UserRecord {
  const user = store.users.get(userId);
  if (user === undefined || user.organizationId !== organizationId) {
    throw new QkError('NOT_FOUND', `no user ${userId} in organization ${organizationId}`, { userId, organizationId });
  }
  return user;
}

/** Refuses an id list that is empty or names something twice. */
export function requireDistinct(ids: readonly string[], field: string): void {
  if (ids.length === 0) {
    throw new QkError('REQUEST_INVALID', `${field}: give at least one id`, { issues: [{ path: field, message: 'empty' }] });
  }
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated !== undefined) {
    throw new QkError('REQUEST_INVALID', `${field}: ${repeated} appears twice`, { issues: [{ path: field, message: 'duplicate id' }] });
  }
}

/** Per-organization limits (docs/service.md#limits): user tags are capped lower in a sub-organization. */
export const MAX_USERS_PER_ORGANIZATION = 100;
export const MAX_USER_TAGS_PER_ORGANIZATION = 100;
export const MAX_USER_TAGS_PER_SUB_ORGANIZATION = 10;
