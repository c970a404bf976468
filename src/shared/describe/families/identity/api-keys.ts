/** API keys, worded as the other credentials are. */
import { addCredentials, removeCredentials } from '../credentials';
import type { Describers } from '../../draft';

export const apiKeyDescribers = {
  ACTIVITY_TYPE_CREATE_API_KEYS_V2: addCredentials('apiKeys', 'apiKeys'),
  ACTIVITY_TYPE_DELETE_API_KEYS: removeCredentials('apiKeys', 'apiKeyIds'),
} satisfies Describers;
