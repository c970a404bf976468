/** User tags (docs/service.md#users-credentials-and-tags): create_user_tag, list_user_tags, update_user_tag, delete_user_tags. */
import { QkError } from '../../../shared/errors';
import type { Family } from '../../activities/context';
import { toTimestamp } from '../../../shared/api/timestamps';
import type { Repositories } from '../../store';
import type { UserTagRecord } from '../../store/user-tags';
import { MAX_USER_TAGS_PER_ORGANIZATION, MAX_USER_TAGS_PER_SUB_ORGANIZATION, requireDistinct, requireUser } from './common';

/** `datav1Tag` of a user tag. */
export function userTagView(tag: UserTagRecord) {
  return {
    tagId: tag.id,
    tagName: tag.name,
    tagType: 'TAG_TYPE_USER' as const,
    createdAt: toTimestamp(tag.createdAt),
    updatedAt: toTimestamp(tag.updatedAt),
  };
}

function requireTag(store: Repositories, organizationId: string, tagId: string): UserTagRecord {
  const tag = store.userTags.get(organizationId, tagId);
  if (tag === undefined) {
    throw new QkError('NOT_FOUND', `no user tag ${tagId} in organization ${organizationId}`, { tagId });
  }
  return tag;
}

function checkCreation(store: Repositories, organizationId: string, params: { userTagName: string; userIds: string[] }): void {
  if (params.userTagName.trim() === '') {
    throw new QkError('REQUEST_INVALID', 'parameters.userTagName: must not be empty', {
      issues: [{ path: 'parameters.userTagName', message: 'must not be empty' }],
    });
  }
  const existing = store.userTags.findByName(organizationId, params.userTagName);
  if (existing !== undefined) {
    throw new QkError(
      'ALREADY_EXISTS',
      `a user tag named "${params.userTagName}" already exists in organization ${organizationId} (${existing.id})`,
      {
        tagId: existing.id,
      },
    );
  }
  const isSubOrganization = store.organizations.get(organizationId)?.parentId !== undefined;
  const limit = isSubOrganization ? MAX_USER_TAGS_PER_SUB_ORGANIZATION : MAX_USER_TAGS_PER_ORGANIZATION;
  if (store.userTags.listByOrganization(organizationId).length >= limit) {
    throw new QkError(
      'LIMIT_EXCEEDED',
      `${isSubOrganization ? 'a sub-organization' : 'an organization'} holds at most ${limit} user tags; delete one first`,
      { limit },
    );
  }
  if (params.userIds.length > 0) requireDistinct(params.userIds, 'parameters.userIds');
  for (const userId of params.userIds) requireUser(store, organizationId, userId);
}

interface TagUpdate {
  userTagId: string;
  newUserTagName?: string | undefined;
  addUserIds: string[];
  removeUserIds: string[];
}

/** update_user_tag: a known tag, a non-empty unique new name, known users, none both added and removed. */
function checkUpdate(store: Repositories, organizationId: string, params: TagUpdate): UserTagRecord {
  const tag = requireTag(store, organizationId, params.userTagId);
  if (params.newUserTagName !== undefined) {
    if (params.newUserTagName.trim() === '') {
      throw new QkError('REQUEST_INVALID', 'parameters.newUserTagName: must not be empty', {
        issues: [{ path: 'parameters.newUserTagName', message: 'must not be empty' }],
      });
    }
    const existing = store.userTags.findByName(organizationId, params.newUserTagName);
    if (existing !== undefined && existing.id !== tag.id) {
      throw new QkError(
        'ALREADY_EXISTS',
        `a user tag named "${params.newUserTagName}" already exists in organization ${organizationId} (${existing.id})`,
        {
          tagId: existing.id,
        },
      );
    }
  }
  for (const [field, userIds] of [
    ['parameters.addUserIds', params.addUserIds],
    ['parameters.removeUserIds', params.removeUserIds],
  ] as const) {
    if (userIds.length > 0) requireDistinct(userIds, field);
    for (const userId of userIds) requireUser(store, organizationId, userId);
  }
  const both = params.addUserIds.find((userId) => params.removeUserIds.includes(userId));
  if (both !== undefined) {
    throw new QkError('REQUEST_INVALID', `user ${both} is in both addUserIds and removeUserIds; name each user once`, { userId: both });
  }
  return tag;
}

function checkDeletion(store: Repositories, organizationId: string, params: { userTagIds: string[] }): void {
  requireDistinct(params.userTagIds, 'parameters.userTagIds');
  for (const tagId of params.userTagIds) requireTag(store, organizationId, tagId);
}

export const userTagsFamily: Family = {
  queries: {
    list_user_tags: (ctx) => ({ userTags: ctx.store.userTags.listByOrganization(ctx.organizationId).map(userTagView) }),
  },
  activities: {
    create_user_tag: {
      validate: checkCreation,
      execute(ctx, params) {
        checkCreation(ctx.store, ctx.organizationId, params);
        const userTagId = ctx.newId();
        ctx.store.userTags.insert({ id: userTagId, organizationId: ctx.organizationId, name: params.userTagName, now: ctx.now });
        for (const userId of params.userIds) ctx.store.userTags.addMember(userTagId, userId);
        return { userTagId, userIds: params.userIds };
      },
    },
    update_user_tag: {
      validate: checkUpdate,
      execute(ctx, params) {
        const tag = checkUpdate(ctx.store, ctx.organizationId, params);
        if (params.newUserTagName !== undefined) ctx.store.userTags.rename(tag.id, params.newUserTagName, ctx.now);
        for (const userId of params.addUserIds) ctx.store.userTags.addMember(tag.id, userId);
        for (const userId of params.removeUserIds) ctx.store.userTags.removeMember(tag.id, userId);
        return { userTagId: tag.id };
      },
    },
    delete_user_tags: {
      validate: checkDeletion,
      execute(ctx, params) {
        checkDeletion(ctx.store, ctx.organizationId, params);
        // The result names every user that carried one of the deleted tags, once.
        const userIds = new Set<string>();
        for (const tagId of params.userTagIds) {
          for (const userId of ctx.store.userTags.memberIds(tagId)) userIds.add(userId);
          ctx.store.userTags.delete(tagId);
        }
        return { userTagIds: params.userTagIds, userIds: [...userIds] };
      },
    },
  },
};
