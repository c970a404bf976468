/**
 * Fiat on-ramp credentials (docs/service.md#stored-credentials): an organization's keys at an on-ramp provider,
 * created, updated, deleted and listed. The secret and private API keys arrive sealed to Turnkey's on-ramp key; the
 * Sandbox checks their form, keeps them exactly as they arrived and answers them so, never in the clear.
 */
import type { z } from 'zod';
import type { fiatOnRampProvider } from '../../shared/api/enums';
import { toTimestamp } from '../../shared/api/timestamps';
import { checkOnRampSealedKey } from '../../shared/crypto/sealed-credentials';
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import type { Repositories } from '../store';
import type { FiatOnRampCredentialRecord } from '../store/fiat-on-ramp-credentials';

interface FiatOnRampCredentialFields {
  publishableApiKey: string;
  encryptedSecretApiKey: string;
  encryptedPrivateApiKey?: string | undefined;
}

/** `v1FiatOnRampCredential`. */
function fiatOnRampCredentialView(credential: FiatOnRampCredentialRecord) {
  return {
    fiatOnrampCredentialId: credential.id,
    organizationId: credential.organizationId,
    onrampProvider: credential.onrampProvider as z.infer<typeof fiatOnRampProvider>,
    ...(credential.projectId === undefined ? {} : { projectId: credential.projectId }),
    publishableApiKey: credential.publishableApiKey,
    encryptedSecretApiKey: credential.encryptedSecretApiKey,
    ...(credential.encryptedPrivateApiKey === undefined ? {} : { encryptedPrivateApiKey: credential.encryptedPrivateApiKey }),
    sandboxMode: credential.sandboxMode,
    createdAt: toTimestamp(credential.createdAt),
    updatedAt: toTimestamp(credential.updatedAt),
  };
}

function requireFiatOnRampCredential(store: Repositories, organizationId: string, id: string): FiatOnRampCredentialRecord {
  const credential = store.fiatOnRampCredentials.get(organizationId, id);
  if (credential === undefined) {
    throw new QkError('NOT_FOUND', `parameters.fiatOnrampCredentialId: no fiat on-ramp credential ${id} in organization ${organizationId}`, {
      fiatOnrampCredentialId: id,
    });
  }
  return credential;
}

/** Refuses an empty publishable key and a secret or private key that is not sealed as encryptOnRampSecret seals. */
function checkFields(fields: FiatOnRampCredentialFields): void {
  if (fields.publishableApiKey.trim() === '') {
    throw new QkError('REQUEST_INVALID', 'parameters.publishableApiKey: must not be empty', { issues: [{ path: 'parameters.publishableApiKey' }] });
  }
  checkOnRampSealedKey(fields.encryptedSecretApiKey, 'parameters.encryptedSecretApiKey');
  if (fields.encryptedPrivateApiKey !== undefined) checkOnRampSealedKey(fields.encryptedPrivateApiKey, 'parameters.encryptedPrivateApiKey');
}

export const fiatOnRampCredentialsFamily: Family = {
  queries: {
    list_fiat_on_ramp_credentials: (ctx) => ({
      fiatOnRampCredentials: ctx.store.fiatOnRampCredentials.listByOrganization(ctx.organizationId).map(fiatOnRampCredentialView),
    }),
  },
  activities: {
    create_fiat_on_ramp_credential: {
      validate: (_store, _organizationId, params) => checkFields(params),
      execute(ctx, params) {
        checkFields(params);
        const id = ctx.newId();
        ctx.store.fiatOnRampCredentials.insert(
          {
            id,
            organizationId: ctx.organizationId,
            onrampProvider: params.onrampProvider,
            projectId: params.projectId,
            publishableApiKey: params.publishableApiKey,
            encryptedSecretApiKey: params.encryptedSecretApiKey,
            encryptedPrivateApiKey: params.encryptedPrivateApiKey,
            sandboxMode: params.sandboxMode ?? false,
          },
          ctx.now,
        );
        return { fiatOnRampCredentialId: id };
      },
    },
    update_fiat_on_ramp_credential: {
      validate(store, organizationId, params) {
        requireFiatOnRampCredential(store, organizationId, params.fiatOnrampCredentialId);
        checkFields(params);
      },
      execute(ctx, params) {
        requireFiatOnRampCredential(ctx.store, ctx.organizationId, params.fiatOnrampCredentialId);
        checkFields(params);
        ctx.store.fiatOnRampCredentials.update(
          {
            id: params.fiatOnrampCredentialId,
            organizationId: ctx.organizationId,
            onrampProvider: params.onrampProvider,
            projectId: params.projectId,
            publishableApiKey: params.publishableApiKey,
            encryptedSecretApiKey: params.encryptedSecretApiKey,
            encryptedPrivateApiKey: params.encryptedPrivateApiKey,
          },
          ctx.now,
        );
        return { fiatOnRampCredentialId: params.fiatOnrampCredentialId };
      },
    },
    delete_fiat_on_ramp_credential: {
      validate: (store, organizationId, params) => void requireFiatOnRampCredential(store, organizationId, params.fiatOnrampCredentialId),
      execute(ctx, params) {
        requireFiatOnRampCredential(ctx.store, ctx.organizationId, params.fiatOnrampCredentialId);
        ctx.store.fiatOnRampCredentials.delete(ctx.organizationId, params.fiatOnrampCredentialId);
        return { fiatOnRampCredentialId: params.fiatOnrampCredentialId };
      },
    },
  },
};
