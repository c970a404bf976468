/**
 * OAuth 2.0 credentials (docs/service.md#stored-credentials): an organization's client at an OAuth 2.0 provider,
 * created, updated, deleted, read and listed. The client secret arrives sealed to Turnkey's TLS fetcher; the Sandbox
 * checks the envelope's form, keeps it exactly as it arrived and answers it so, never in the clear.
 */
import type { z } from 'zod';
import type { oauth2Provider } from '../../shared/api/enums';
import { toTimestamp } from '../../shared/api/timestamps';
import { checkQuorumKeyEnvelope } from '../../shared/crypto/sealed-credentials';
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import type { Repositories } from '../store';
import type { Oauth2CredentialRecord } from '../store/oauth2-credentials';

interface Oauth2CredentialFields {
  provider: string;
  clientId: string;
  encryptedClientSecret: string;
}

/** `v1Oauth2Credential`. */
function oauth2CredentialView(credential: Oauth2CredentialRecord) {
  return {
    oauth2CredentialId: credential.id,
    organizationId: credential.organizationId,
    provider: credential.provider as z.infer<typeof oauth2Provider>,
    clientId: credential.clientId,
    encryptedClientSecret: credential.encryptedClientSecret,
    createdAt: toTimestamp(credential.createdAt),
    updatedAt: toTimestamp(credential.updatedAt),
  };
}

function requireOauth2Credential(store: Repositories, organizationId: string, id: string, field: string): Oauth2CredentialRecord {
  const credential = store.oauth2Credentials.get(organizationId, id);
  if (credential === undefined) {
    throw new QkError('NOT_FOUND', `${field}: no OAuth 2.0 credential ${id} in organization ${organizationId}`, { oauth2CredentialId: id });
  }
  return credential;
}

/**
 * Refuses an empty client id, a client secret that is no sealed envelope, and a client the organization already has
 * for the provider under another credential (our choice: one credential per provider and client id).
 */
function checkFields(store: Repositories, organizationId: string, fields: Oauth2CredentialFields, updating?: string): void {
  if (fields.clientId.trim() === '') {
    throw new QkError('REQUEST_INVALID', 'parameters.clientId: must not be empty', { issues: [{ path: 'parameters.clientId' }] });
  }
  checkQuorumKeyEnvelope(fields.encryptedClientSecret, 'parameters.encryptedClientSecret');
  const existing = store.oauth2Credentials.findByClient(organizationId, fields.provider, fields.clientId);
  if (existing !== undefined && existing.id !== updating) {
    throw new QkError(
      'ALREADY_EXISTS',
      `parameters.clientId: organization ${organizationId} already has OAuth 2.0 credential ${existing.id} for client ${fields.clientId} at ${fields.provider}; update that one`,
      { oauth2CredentialId: existing.id },
    );
  }
}

function checkUpdate(store: Repositories, organizationId: string, params: Oauth2CredentialFields & { oauth2CredentialId: string }): void {
  requireOauth2Credential(store, organizationId, params.oauth2CredentialId, 'parameters.oauth2CredentialId');
  checkFields(store, organizationId, params, params.oauth2CredentialId);
}

export const oauth2CredentialsFamily: Family = {
  queries: {
    get_oauth2_credential: (ctx, request) => ({
      oauth2Credential: oauth2CredentialView(
        requireOauth2Credential(ctx.store, ctx.organizationId, request.oauth2CredentialId, 'oauth2CredentialId'),
      ),
    }),
    list_oauth2_credentials: (ctx) => ({
      oauth2Credentials: ctx.store.oauth2Credentials.listByOrganization(ctx.organizationId).map(oauth2CredentialView),
    }),
  },
  activities: {
    create_oauth2_credential: {
      validate: (store, organizationId, params) => checkFields(store, organizationId, params),
      execute(ctx, params) {
        checkFields(ctx.store, ctx.organizationId, params);
        const id = ctx.newId();
        ctx.store.oauth2Credentials.insert(
          {
            id,
            organizationId: ctx.organizationId,
            provider: params.provider,
            clientId: params.clientId,
            encryptedClientSecret: params.encryptedClientSecret,
          },
          ctx.now,
        );
        return { oauth2CredentialId: id };
      },
    },
    update_oauth2_credential: {
      validate: checkUpdate,
      execute(ctx, params) {
        checkUpdate(ctx.store, ctx.organizationId, params);
        ctx.store.oauth2Credentials.update(
          {
            id: params.oauth2CredentialId,
            organizationId: ctx.organizationId,
            provider: params.provider,
            clientId: params.clientId,
            encryptedClientSecret: params.encryptedClientSecret,
          },
          ctx.now,
        );
        return { oauth2CredentialId: params.oauth2CredentialId };
      },
    },
    delete_oauth2_credential: {
      validate: (store, organizationId, params) =>
        void requireOauth2Credential(store, organizationId, params.oauth2CredentialId, 'parameters.oauth2CredentialId'),
      execute(ctx, params) {
        requireOauth2Credential(ctx.store, ctx.organizationId, params.oauth2CredentialId, 'parameters.oauth2CredentialId');
        ctx.store.oauth2Credentials.delete(ctx.organizationId, params.oauth2CredentialId);
        return { oauth2CredentialId: params.oauth2CredentialId };
      },
    },
  },
};
