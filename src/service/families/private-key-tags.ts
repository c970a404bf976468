/**
 * Private key tags (docs/service.md#private-keys): create_private_key_tag, list_private_key_tags, update_private_key_tag,
 * delete_private_key_tags. A tag's members are the keys whose `privateKeyTags` name it; policies see them as
 * `private_key.tags`.
 */
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import { toTimestamp } from '../../shared/api/timestamps';
import type { Repositories } from '../store';
import type { PrivateKeyTagRecord } from '../store/private-key-tags';
import { MAX_USER_TAGS_PER_ORGANIZATION, MAX_USER_TAGS_PER_SUB_ORGANIZATION, requireDistinct } from './identity/common';
import { requirePrivateKey } from './private-keys';

/** `datav1Tag` of a private key tag. */
function privateKeyTagView(tag: PrivateKeyTagRecord) {
  return {
    tagId: tag.id,
    tagName: tag.name,
    tagType: 'TAG_TYPE_PRIVATE_KEY' as const,
    createdAt: toTimestamp(tag.createdAt),
    updatedAt: toTimestamp(tag.updatedAt),
  };
}

function requireTag(store: Repositories, organizationId: string, tagId: string, field: string): PrivateKeyTagRecord {
  const tag = store.privateKeyTags.get(organizationId, tagId);
  if (tag === undefined) throw new QkError('NOT_FOUND', `${field}: no private key tag ${tagId} in organization ${organizationId}`, { tagId });
  return tag;
}

/** A tag name: not empty, and no other tag of the organization has it. */
function checkName(store: Repositories, organizationId: string, name: string, field: string, renamedTagId?: string): void {
  if (name.trim() === '')
    throw new QkError('REQUEST_INVALID', `${field}: must not be empty`, { issues: [{ path: field, message: 'must not be empty' }] });
  const existing = store.privateKeyTags.findByName(organizationId, name);
  if (existing !== undefined && existing.id !== renamedTagId) {
    throw new QkError('ALREADY_EXISTS', `a private key tag named "${name}" already exists in organization ${organizationId} (${existing.id})`, {
      tagId: existing.id,
    });
  }
}

function checkKeys(store: Repositories, organizationId: string, privateKeyIds: readonly string[], field: string): void {
  if (privateKeyIds.length > 0) requireDistinct(privateKeyIds, field);
  privateKeyIds.forEach((privateKeyId) => requirePrivateKey(store, organizationId, privateKeyId));
}

/** Private key tags are limited like user tags (docs/service.md#limits). */
function checkCreation(store: Repositories, organizationId: string, params: { privateKeyTagName: string; privateKeyIds: string[] }): void {
  checkName(store, organizationId, params.privateKeyTagName, 'parameters.privateKeyTagName');
  const isSubOrganization = store.organizations.get(organizationId)?.parentId !== undefined;
  const limit = isSubOrganization ? MAX_USER_TAGS_PER_SUB_ORGANIZATION : MAX_USER_TAGS_PER_ORGANIZATION;
  if (store.privateKeyTags.listByOrganization(organizationId).length >= limit) {
    throw new QkError(
      'LIMIT_EXCEEDED',
      `${isSubOrganization ? 'a sub-organization' : 'an organization'} holds at most ${limit} private key tags; delete one first`,
      { limit },
    );
  }
  checkKeys(store, organizationId, params.privateKeyIds, 'parameters.privateKeyIds');
}

interface TagUpdate {
  privateKeyTagId: string;
  newPrivateKeyTagName?: string | undefined;
  addPrivateKeyIds: string[];
  removePrivateKeyIds: string[];
}

function checkUpdate(store: Repositories, organizationId: string, params: TagUpdate): PrivateKeyTagRecord {
  const tag = requireTag(store, organizationId, params.privateKeyTagId, 'parameters.privateKeyTagId');
  if (params.newPrivateKeyTagName !== undefined)
    checkName(store, organizationId, params.newPrivateKeyTagName, 'parameters.newPrivateKeyTagName', tag.id);
  checkKeys(store, organizationId, params.addPrivateKeyIds, 'parameters.addPrivateKeyIds');
  checkKeys(store, organizationId, params.removePrivateKeyIds, 'parameters.removePrivateKeyIds');
  const both = params.addPrivateKeyIds.find((id) => params.removePrivateKeyIds.includes(id));
  if (both !== undefined) {
    throw new QkError('REQUEST_INVALID', `private key ${both} is in both addPrivateKeyIds and removePrivateKeyIds; name each key once`, {
      privateKeyId: both,
    });
  }
  return tag;
}

function checkDeletion(store: Repositories, organizationId: string, params: { privateKeyTagIds: string[] }): void {
  requireDistinct(params.privateKeyTagIds, 'parameters.privateKeyTagIds');
  params.privateKeyTagIds.forEach((tagId, index) => requireTag(store, organizationId, tagId, `parameters.privateKeyTagIds[${index}]`));
}

/** Adds `tagId` to or removes it from each key's tag list. */
function retag(
  store: Repositories,
  organizationId: string,
  privateKeyIds: readonly string[],
  change: (tags: string[]) => string[],
  now: number,
): void {
  for (const privateKeyId of privateKeyIds) {
    const key = requirePrivateKey(store, organizationId, privateKeyId);
    store.privateKeys.setTags(organizationId, key.id, change(key.tags), now);
  }
}

const adding = (tagId: string) => (tags: string[]) => (tags.includes(tagId) ? tags : [...tags, tagId]);
const removing = (tagId: string) => (tags: string[]) => tags.filter((id) => id !== tagId);

export const privateKeyTagsFamily: Family = {
  queries: {
    list_private_key_tags: (ctx) => ({ privateKeyTags: ctx.store.privateKeyTags.listByOrganization(ctx.organizationId).map(privateKeyTagView) }),
  },
  activities: {
    create_private_key_tag: {
      validate: checkCreation,
      execute(ctx, params) {
        checkCreation(ctx.store, ctx.organizationId, params);
        const privateKeyTagId = ctx.newId();
        ctx.store.privateKeyTags.insert({ id: privateKeyTagId, organizationId: ctx.organizationId, name: params.privateKeyTagName, now: ctx.now });
        retag(ctx.store, ctx.organizationId, params.privateKeyIds, adding(privateKeyTagId), ctx.now);
        return { privateKeyTagId, privateKeyIds: params.privateKeyIds };
      },
    },
    update_private_key_tag: {
      validate: (store, organizationId, params) => void checkUpdate(store, organizationId, params),
      execute(ctx, params) {
        const tag = checkUpdate(ctx.store, ctx.organizationId, params);
        if (params.newPrivateKeyTagName !== undefined) ctx.store.privateKeyTags.rename(tag.id, params.newPrivateKeyTagName, ctx.now);
        retag(ctx.store, ctx.organizationId, params.addPrivateKeyIds, adding(tag.id), ctx.now);
        retag(ctx.store, ctx.organizationId, params.removePrivateKeyIds, removing(tag.id), ctx.now);
        return { privateKeyTagId: tag.id };
      },
    },
    delete_private_key_tags: {
      validate: checkDeletion,
      execute(ctx, params) {
        checkDeletion(ctx.store, ctx.organizationId, params);
        // The result names every key that carried one of the deleted tags, once.
        const untagged = new Set<string>();
        for (const key of ctx.store.privateKeys.listByOrganization(ctx.organizationId)) {
          const kept = key.tags.filter((tagId) => !params.privateKeyTagIds.includes(tagId));
          if (kept.length === key.tags.length) continue;
          ctx.store.privateKeys.setTags(ctx.organizationId, key.id, kept, ctx.now);
          untagged.add(key.id);
        }
        for (const tagId of params.privateKeyTagIds) ctx.store.privateKeyTags.delete(tagId);
        return { privateKeyTagIds: params.privateKeyTagIds, privateKeyIds: [...untagged] };
      },
    },
  },
};
