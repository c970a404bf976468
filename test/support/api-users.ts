/**
 * Users as the service's API answers them (`User`: API keys, passkeys, OAuth sign-ins and MFA policies), for tests of
 * what main reads from an organization's users without a running Sandbox. Every timestamp is the epoch; a fixture
 * names only what its test reads.
 */
import type { AuthenticationMethod, User } from '../../src/shared/api';

/** The created and updated times every record of the API carries; none of these tests reads them. */
export const EPOCH_TIMES = { createdAt: { seconds: '0', nanos: '0' }, updatedAt: { seconds: '0', nanos: '0' } };

/** A credential by its id and name; an API key's public key is compressed P-256 hex. */
interface NamedCredential {
  id: string;
  name: string;
}

export interface ApiUserFixture {
  userId: string;
  userName: string;
  apiKeys?: (NamedCredential & { publicKey: string })[];
  passkeys?: NamedCredential[];
  oauthProviders?: NamedCredential[];
  /** Each policy's condition is "activity.action == 'SIGN'" unless given; `steps` are its steps' methods, in order. */
  mfaPolicies?: (NamedCredential & { condition?: string; steps?: AuthenticationMethod[][]; order?: string })[];
}

export function apiUser({ userId, userName, apiKeys = [], passkeys = [], oauthProviders = [], mfaPolicies = [] }: ApiUserFixture): User {
  return {
    userId,
    userName,
    userTags: [],
    oauthProviders: oauthProviders.map(({ id, name }) => ({
      providerId: id,
      providerName: name,
      issuer: '',
      audience: '',
      subject: '',
      ...EPOCH_TIMES,
    })),
    authenticators: passkeys.map(({ id, name }) => ({
      authenticatorId: id,
      authenticatorName: name,
      credentialId: `credential-of-${id}`,
      transports: [],
      attestationType: 'none',
      aaguid: '',
      model: '',
      credential: { publicKey: '04', type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' },
      ...EPOCH_TIMES,
    })),
    apiKeys: apiKeys.map(({ id, name, publicKey }) => ({
      apiKeyId: id,
      apiKeyName: name,
      credential: { publicKey, type: 'CREDENTIAL_TYPE_API_KEY_P256' },
      ...EPOCH_TIMES,
    })),
    mfaPolicies: mfaPolicies.map(({ id, name, condition = "activity.action == 'SIGN'", steps = [], order = '0' }) => ({
      mfaPolicyId: id,
      mfaPolicyName: name,
      condition,
      requiredAuthenticationMethods: steps.map((any) => ({ any })),
      order,
      ...EPOCH_TIMES,
    })),
    ...EPOCH_TIMES,
  };
}
