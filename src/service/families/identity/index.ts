/** The identity families: users, user tags, API keys, organizations and sub-organizations. */
import type { Family } from '../../activities/context';
import type { OidcVerifier } from '../../auth/oidc';
import { apiKeysFamily } from './api-keys';
import { organizationsFamily } from './organizations';
import { userTagsFamily } from './user-tags';
import { usersFamily } from './users';

/** Built with the OIDC verifier that checks the tokens of OAuth providers given to new users. */
export function identityFamilies(options: { oidc: OidcVerifier }): Family[] {
  return [usersFamily(options), userTagsFamily, apiKeysFamily, organizationsFamily(options)];
}
