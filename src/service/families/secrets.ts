/**
 * Secrets (docs/service.md#secrets): init_import_secrets hands out one-shot enclave target keys, import_secrets opens
 * each payload with the target it names and keeps the secret sealed as private keys are, export_secrets seals each
 * secret to the client's key in an enclave-signed bundle, and list_secrets tells what is stored, never the secret.
 */
import { QkError } from '../../shared/errors';
import type { ActivityContext, Family } from '../activities/context';
import type { Repositories } from '../store';
import type { ImportTargetRecord } from '../store/export-import';
import type { SecretRecord, StaticProperty } from '../store/secrets';
import { pageSize } from './activities';
import { bundleDigestOf, IMPORT_TARGET_TTL_MS } from './export-import';

interface ImportSecretParams {
  name?: string | undefined;
  targetPublicKey: string;
}

/**
 * Refuses, before anything is recorded, a name given twice or already taken in the organization, and a target named
 * twice in the request (each target opens one payload).
 */
function checkImports(store: Repositories, organizationId: string, secrets: readonly ImportSecretParams[]): void {
  if (secrets.length === 0) {
    throw new QkError('REQUEST_INVALID', 'parameters.secrets: must list at least one secret', { issues: [{ path: 'parameters.secrets' }] });
  }
  secrets.forEach((secret, index) => {
    const field = `parameters.secrets[${index}]`;
    if (secrets.findIndex((other) => other.targetPublicKey.toLowerCase() === secret.targetPublicKey.toLowerCase()) !== index) {
      throw new QkError('REQUEST_INVALID', `${field}.targetPublicKey: this target is named twice in the request; each target opens one secret`, {
        issues: [{ path: `${field}.targetPublicKey` }],
      });
    }
    if (secret.name === undefined) return;
    if (secret.name.trim() === '')
      throw new QkError('REQUEST_INVALID', `${field}.name: must not be empty when given`, { issues: [{ path: `${field}.name` }] });
    if (secrets.findIndex((other) => other.name === secret.name) !== index) {
      throw new QkError(
        'ALREADY_EXISTS',
        `${field}.name: "${secret.name}" is given twice in this request; secret names are unique in an organization`,
      );
    }
    const taken = store.secrets.findByName(organizationId, secret.name);
    if (taken !== undefined) {
      throw new QkError('ALREADY_EXISTS', `${field}.name: organization ${organizationId} already has a secret named "${secret.name}" (${taken.id})`, {
        secretId: taken.id,
      });
    }
  });
}

/**
 * The unused secret target `targetPublicKey` names, made for the requesting user: imports always target the user who
 * submits them, as key imports do.
 */
function secretTargetOf(ctx: ActivityContext, field: string, targetPublicKey: string, secretPayload: string): ImportTargetRecord {
  const target = ctx.store.importTargets.findByPublicKey(ctx.organizationId, 'secret', targetPublicKey.toLowerCase());
  if (target === undefined) {
    throw new QkError(
      'FAILED_PRECONDITION',
      `${field}.targetPublicKey: organization ${ctx.organizationId} has no secret import target with this key; call init_import_secrets and encrypt to one of its enclaveTargetMessages`,
      { targetPublicKey },
    );
  }
  if (target.userId !== ctx.actor.userId) {
    throw new QkError(
      'BUNDLE_USER_MISMATCH',
      `${field}.targetPublicKey: this target was made for user ${target.userId}, not the requesting user ${ctx.actor.userId}; imports always target the user who submits them`,
      { targetUserId: target.userId, actorUserId: ctx.actor.userId },
    );
  }
  if (target.usedAt !== undefined) {
    throw new QkError(
      'BUNDLE_ALREADY_USED',
      `${field}: the import target this secret was encrypted to has already been used${target.usedBundleDigest === bundleDigestOf(secretPayload) ? ' by this same payload' : ''}; call init_import_secrets again`,
      { usedAt: target.usedAt },
    );
  }
  if (target.expiresAt <= ctx.now) {
    throw new QkError(
      'BUNDLE_EXPIRED',
      `${field}: the import target this secret was encrypted to expired at ${new Date(target.expiresAt).toISOString()} (a target lasts 24 hours); call init_import_secrets again`,
      { expiresAt: target.expiresAt },
    );
  }
  return target;
}

function requireSecret(store: Repositories, organizationId: string, secretId: string, field: string): SecretRecord {
  const secret = store.secrets.get(organizationId, secretId);
  if (secret === undefined) throw new QkError('NOT_FOUND', `${field}: no secret ${secretId} in organization ${organizationId}`, { secretId });
  return secret;
}

/** A secret as conditions read it: its static properties as a map from key to value (`secret.static_properties['env']`). */
function secretPolicyResource(secret: { id?: string; name?: string | undefined; staticProperties: readonly StaticProperty[] }) {
  return {
    ...(secret.id === undefined ? {} : { id: secret.id }),
    ...(secret.name === undefined ? {} : { name: secret.name }),
    static_properties: Object.fromEntries(secret.staticProperties.map((property) => [property.key ?? '', property.value ?? ''])),
  };
}

/**
 * `secrets`, every secret the request names, and `secret` when it names exactly one (docs/service.md#secrets): a policy
 * about one secret reads `secret`, and fails, so allows nothing, on a request that names several.
 */
function secretsPolicyResources(secrets: ReturnType<typeof secretPolicyResource>[]): Record<string, unknown> {
  return { secrets, ...(secrets.length === 1 ? { secret: secrets[0] } : {}) };
}

/** `v1SecretMetadata`. */
function secretMetadataView(secret: SecretRecord) {
  return {
    secretId: secret.id,
    ...(secret.name === undefined ? {} : { name: secret.name }),
    staticProperties: secret.staticProperties,
    createdAtUnixMs: String(secret.createdAt),
  };
}

export const secretsFamily: Family = {
  queries: {
    /** Newest first, paged as list_activities is (docs/service.md#pagination). */
    list_secrets(ctx, request) {
      const pagination = request.paginationOptions;
      for (const cursor of [pagination?.before, pagination?.after]) {
        if (cursor !== undefined && ctx.store.secrets.get(ctx.organizationId, cursor) === undefined) {
          throw new QkError('REQUEST_INVALID', `pagination cursor ${cursor} is not a secret of organization ${ctx.organizationId}`, {
            issues: [{ path: 'paginationOptions', message: 'unknown cursor' }],
          });
        }
      }
      const secrets = ctx.store.secrets.list({
        organizationId: ctx.organizationId,
        limit: pageSize(pagination?.limit),
        ...(pagination?.before === undefined ? {} : { before: pagination.before }),
        ...(pagination?.after === undefined ? {} : { after: pagination.after }),
      });
      return { secrets: secrets.map(secretMetadataView) };
    },
  },
  activities: {
    init_import_secrets: {
      async execute(ctx, params) {
        const enclaveTargetMessages: string[] = [];
        for (let index = 0; index < params.numSecrets; index += 1) {
          const id = ctx.newId();
          const target = await ctx.enclave.initSecretImportTarget({ targetId: id, organizationId: ctx.organizationId });
          ctx.store.importTargets.insert({
            id,
            organizationId: ctx.organizationId,
            userId: ctx.actor.userId,
            kind: 'secret',
            publicKey: target.publicKey,
            sealedSecret: target.sealedSecret,
            createdAt: ctx.now,
            expiresAt: ctx.now + IMPORT_TARGET_TTL_MS,
          });
          enclaveTargetMessages.push(target.targetMessage);
        }
        return { enclaveTargetMessages };
      },
    },
    import_secrets: {
      validate: (store, organizationId, params) => checkImports(store, organizationId, params.secrets),
      policyResources: (_store, _organizationId, params) =>
        secretsPolicyResources(
          params.secrets.map((secret) => secretPolicyResource({ name: secret.name, staticProperties: secret.staticProperties ?? [] })),
        ),
      async execute(ctx, params) {
        checkImports(ctx.store, ctx.organizationId, params.secrets);
        const secretIds: string[] = [];
        for (const [index, secret] of params.secrets.entries()) {
          const field = `parameters.secrets[${index}]`;
          const target = secretTargetOf(ctx, field, secret.targetPublicKey, secret.secretPayload);
          const id = ctx.newId();
          const sealedSecret = await ctx.enclave.importSecret({ target, secretPayload: secret.secretPayload, secretId: id });
          ctx.store.importTargets.markUsed(target.id, ctx.now, bundleDigestOf(secret.secretPayload));
          ctx.store.secrets.insert({
            id,
            organizationId: ctx.organizationId,
            name: secret.name,
            staticProperties: secret.staticProperties ?? [],
            sealedSecret,
            createdAt: ctx.now,
          });
          secretIds.push(id);
        }
        return { secretIds };
      },
    },
    export_secrets: {
      validate(store, organizationId, params) {
        if (params.secrets.length === 0) {
          throw new QkError('REQUEST_INVALID', 'parameters.secrets: must list at least one secret', { issues: [{ path: 'parameters.secrets' }] });
        }
        params.secrets.forEach((secret, index) => requireSecret(store, organizationId, secret.secretId, `parameters.secrets[${index}].secretId`));
      },
      policyResources: (store, organizationId, params) =>
        secretsPolicyResources(
          params.secrets.flatMap((request) => {
            const secret = store.secrets.get(organizationId, request.secretId);
            return secret === undefined ? [] : [secretPolicyResource(secret)];
          }),
        ),
      async execute(ctx, params) {
        const secretPayloads: string[] = [];
        for (const [index, request] of params.secrets.entries()) {
          const secret = requireSecret(ctx.store, ctx.organizationId, request.secretId, `parameters.secrets[${index}].secretId`);
          secretPayloads.push(
            await ctx.enclave.exportSecret({
              secretId: secret.id,
              sealedSecret: secret.sealedSecret,
              targetPublicKey: request.targetPublicKey,
              organizationId: ctx.organizationId,
            }),
          );
        }
        return { secretPayloads };
      },
    },
  },
};
