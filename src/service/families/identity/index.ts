/** The identity families: users, user tags, API keys, organizations and sub-organizations. */
import type { Family } from '../../activities/context';
import { apiKeysFamily } from './api-keys';
import { organizationsFamily } from './organizations';
import { userTagsFamily } from './user-tags';
import { usersFamily } from './users';

export const identityFamilies: readonly Family[] = [usersFamily, userTagsFamily, apiKeysFamily, organizationsFamily];
