/** OAuth 2.0 credentials: an organization's client at a provider, its secret sealed to Turnkey's TLS fetcher. */
import type { Describer, Describers } from '../draft';
import { code, plain, text } from '../pieces';

/** `OAUTH2_PROVIDER_DISCORD` → `Discord`; an unknown value stays as it is. */
function oauth2ProviderInWords(provider: string): string {
  return { OAUTH2_PROVIDER_X: 'X', OAUTH2_PROVIDER_DISCORD: 'Discord' }[provider] ?? provider;
}

const SEALED_SECRET = plain('sealed to Turnkey’s TLS fetcher (not readable here)');

const createOauth2Credential: Describer = (fields, draft) => {
  const provider = oauth2ProviderInWords(text(fields, 'provider') ?? '');
  draft.title = 'Add an OAuth 2.0 credential';
  draft.change('OAuth 2.0 client', [], [plain(provider), code(text(fields, 'clientId') ?? '')]);
  draft.fact('Client secret', SEALED_SECRET);
  draft.summary = `${provider} client ${text(fields, 'clientId') ?? ''}`;
};

const updateOauth2Credential: Describer = (fields, draft) => {
  const provider = oauth2ProviderInWords(text(fields, 'provider') ?? '');
  draft.title = 'Change an OAuth 2.0 credential';
  draft.fact('Credential', code(text(fields, 'oauth2CredentialId') ?? ''));
  draft.change('OAuth 2.0 client', undefined, [plain(provider), code(text(fields, 'clientId') ?? '')]);
  draft.fact('New client secret', SEALED_SECRET);
  draft.summary = `${provider} client ${text(fields, 'clientId') ?? ''}`;
};

const deleteOauth2Credential: Describer = (fields, draft) => {
  draft.title = 'Delete an OAuth 2.0 credential';
  draft.fact('Credential', code(text(fields, 'oauth2CredentialId') ?? ''));
  draft.summary = text(fields, 'oauth2CredentialId') ?? '';
};

export const oauth2CredentialDescribers = {
  ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL: createOauth2Credential,
  ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL: updateOauth2Credential,
  ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL: deleteOauth2Credential,
} satisfies Describers;
