/**
 * API keys (docs/service.md#users-credentials-and-tags): create_api_keys, get_api_key, get_api_keys, delete_api_keys,
 * and the `addApiKeys` step shared with the activities that create users.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { z } from 'zod';
import type { apiKeyParamsV2 } from '../../../shared/api/params';
import type { ApiKey } from '../../../shared/api/resources';
import { compressP256 } from '../../../shared/crypto/keys';
import { QkError } from '../../../shared/errors';
import type { Family } from '../../activities/context';
import { apiKeyView } from '../../activities/views';
import { apiKeyCredentialTypeByCurve } from '../../auth/credentials';
import type { Repositories } from '../../store';
import type { ApiKeyRecord } from '../../store/api-keys';
import { requireDistinct, requireUser, type Owner } from './common';

/** Per-user limits (docs/service.md#limits): long-lived keys are refused past the limit, expiring keys evict. */
export const MAX_LONG_LIVED_API_KEYS_PER_USER = 10;
export const MAX_EXPIRING_API_KEYS_PER_USER = 10;

export type ApiKeyParams = z.output<typeof apiKeyParamsV2>;

const curveOf = {
  API_KEY_CURVE_P256: 'p256',
  API_KEY_CURVE_SECP256K1: 'secp256k1',
  API_KEY_CURVE_ED25519: 'ed25519',
} as const;

/** The public key as stamps carry it: compressed SEC1 for the ECDSA curves, 32 raw bytes for Ed25519. */
function stampFormOf(params: ApiKeyParams, field: string): string {
  const hex = params.publicKey.toLowerCase();
  try {
    switch (params.curveType) {
      case 'API_KEY_CURVE_P256':
        return compressP256(hex);
      case 'API_KEY_CURVE_SECP256K1':
        return secp256k1.Point.fromHex(hex).toHex(true);
      case 'API_KEY_CURVE_ED25519':
        if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error('an Ed25519 public key is 32 bytes (64 hex characters)');
        ed25519.Point.fromHex(hex);
        return hex;
    }
  } catch (error) {
    throw new QkError('KEY_INVALID', `${field}.publicKey is not a valid ${params.curveType} public key: ${(error as Error).message}`, {
      field: `${field}.publicKey`,
    });
  }
}

function expirationOf(params: ApiKeyParams, field: string): number | undefined {
  if (params.expirationSeconds === undefined) return undefined;
  const seconds = /^\d+$/.test(params.expirationSeconds) ? Number(params.expirationSeconds) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 1) {
    throw new QkError(
      'REQUEST_INVALID',
      `invalid api key expiration: ${field}.expirationSeconds must be a positive whole number of seconds as a string, got "${params.expirationSeconds}"`,
      { issues: [{ path: `${field}.expirationSeconds`, message: 'positive integer seconds' }] },
    );
  }
  return seconds;
}

export interface PlannedKey {
  name: string;
  publicKey: string;
  credentialType: string;
  expirationSeconds: number | undefined;
}

function isExpired(key: ApiKeyRecord, now: number): boolean {
  return key.expirationSeconds !== undefined && now >= key.createdAt + key.expirationSeconds * 1000;
}

/**
 * Checks new keys for a user without writing: valid keys, unique in the organization (and in the request),
 * within the per-user limits. `organizationId` / `userId` undefined mean ones the same activity is about to create.
 */
export function checkApiKeys(
  store: Repositories,
  organizationId: string | undefined,
  userId: string | undefined,
  params: readonly ApiKeyParams[],
  fieldPrefix: string,
): PlannedKey[] {
  const keys = params.map((key, index) => {
    const field = `${fieldPrefix}[${index}]`;
    return {
      name: key.apiKeyName,
      publicKey: stampFormOf(key, field),
      credentialType: apiKeyCredentialTypeByCurve[curveOf[key.curveType]],
      expirationSeconds: expirationOf(key, field),
    };
  });
  keys.forEach((key, index) => {
    const field = `${fieldPrefix}[${index}].publicKey`;
    if (keys.findIndex((other) => other.publicKey === key.publicKey) !== index) {
      throw new QkError('ALREADY_EXISTS', `${field}: public key ${key.publicKey} appears twice in this request`, { publicKey: key.publicKey });
    }
    const holder =
      organizationId === undefined
        ? undefined
        : store.apiKeys.findByPublicKey(key.publicKey).find((existing) => existing.organizationId === organizationId);
    if (holder !== undefined) {
      throw new QkError(
        'ALREADY_EXISTS',
        `${field}: public key ${key.publicKey} is already API key ${holder.id} of user ${holder.userId} in organization ${organizationId}; each key may be registered once per organization`,
        { publicKey: key.publicKey, apiKeyId: holder.id },
      );
    }
  });
  const longLived = keys.filter((key) => key.expirationSeconds === undefined).length;
  const heldLongLived = userId === undefined ? 0 : store.apiKeys.listByUser(userId).filter((key) => key.expirationSeconds === undefined).length;
  if (heldLongLived + longLived > MAX_LONG_LIVED_API_KEYS_PER_USER) {
    throw new QkError(
      'LIMIT_EXCEEDED',
      `user has exceeded maximum long-lived api keys: a user holds at most ${MAX_LONG_LIVED_API_KEYS_PER_USER} keys without expirationSeconds (has ${heldLongLived}, adding ${longLived}); delete one first`,
      { limit: MAX_LONG_LIVED_API_KEYS_PER_USER },
    );
  }
  const expiring = keys.length - longLived;
  if (expiring > MAX_EXPIRING_API_KEYS_PER_USER) {
    throw new QkError(
      'LIMIT_EXCEEDED',
      `user has exceeded maximum short-lived api keys: one request may add at most ${MAX_EXPIRING_API_KEYS_PER_USER} keys with expirationSeconds, got ${expiring}`,
      { limit: MAX_EXPIRING_API_KEYS_PER_USER },
    );
  }
  return keys;
}

/**
 * Stores checked keys for `owner.userId`; returns the new ids in request order. Expiring keys past the
 * per-user limit make room by evicting the user's expired keys first, then the oldest expiring ones.
 */
export function addApiKeys(owner: Owner, keys: readonly PlannedKey[]): string[] {
  const { store, now } = owner;
  const expiring = store.apiKeys
    .listByUser(owner.userId)
    .filter((key) => key.expirationSeconds !== undefined)
    .sort((a, b) => Number(isExpired(b, now)) - Number(isExpired(a, now)) || a.createdAt - b.createdAt);
  const excess = expiring.length + keys.filter((key) => key.expirationSeconds !== undefined).length - MAX_EXPIRING_API_KEYS_PER_USER;
  for (const key of expiring.slice(0, Math.max(0, excess))) store.apiKeys.delete(key.id);
  return keys.map((key) => {
    const id = owner.newId();
    store.apiKeys.insert({
      id,
      organizationId: owner.organizationId,
      userId: owner.userId,
      name: key.name,
      publicKey: key.publicKey,
      credentialType: key.credentialType,
      expirationSeconds: key.expirationSeconds,
      sessionProfileId: undefined,
      now,
    });
    return id;
  });
}

/** v1ApiKey; stored credential types are always members of the wire enum. */
const wireApiKey = (key: ApiKeyRecord): ApiKey => apiKeyView(key) as ApiKey;

function requireApiKey(store: Repositories, organizationId: string, apiKeyId: string): ApiKeyRecord {
  const key = store.apiKeys.get(apiKeyId);
  if (key === undefined || key.organizationId !== organizationId) {
    throw new QkError('NOT_FOUND', `no API key ${apiKeyId} in organization ${organizationId}`, { apiKeyId });
  }
  return key;
}

function checkCreation(store: Repositories, organizationId: string, params: { userId: string; apiKeys: ApiKeyParams[] }): PlannedKey[] {
  requireUser(store, organizationId, params.userId);
  if (params.apiKeys.length === 0) throw new QkError('REQUEST_INVALID', 'parameters.apiKeys: give at least one key');
  return checkApiKeys(store, organizationId, params.userId, params.apiKeys, 'parameters.apiKeys');
}

function checkDeletion(store: Repositories, organizationId: string, params: { userId: string; apiKeyIds: string[] }): void {
  requireUser(store, organizationId, params.userId);
  requireDistinct(params.apiKeyIds, 'parameters.apiKeyIds');
  for (const apiKeyId of params.apiKeyIds) {
    if (requireApiKey(store, organizationId, apiKeyId).userId !== params.userId) {
      throw new QkError('NOT_FOUND', `API key ${apiKeyId} does not belong to user ${params.userId}`, { apiKeyId, userId: params.userId });
    }
  }
}

export const apiKeysFamily: Family = {
  queries: {
    get_api_key: (ctx, request) => ({ apiKey: wireApiKey(requireApiKey(ctx.store, ctx.organizationId, request.apiKeyId)) }),
    get_api_keys(ctx, request) {
      if (request.userId === undefined) return { apiKeys: ctx.store.apiKeys.listByOrganization(ctx.organizationId).map(wireApiKey) };
      requireUser(ctx.store, ctx.organizationId, request.userId);
      return { apiKeys: ctx.store.apiKeys.listByUser(request.userId).map(wireApiKey) };
    },
  },
  activities: {
    create_api_keys: {
      validate: checkCreation,
      execute(ctx, params) {
        const keys = checkCreation(ctx.store, ctx.organizationId, params);
        return { apiKeyIds: addApiKeys({ ...ctx, userId: params.userId }, keys) };
      },
    },
    delete_api_keys: {
      validate: checkDeletion,
      execute(ctx, params) {
        checkDeletion(ctx.store, ctx.organizationId, params);
        for (const apiKeyId of params.apiKeyIds) ctx.store.apiKeys.delete(apiKeyId);
        return { apiKeyIds: params.apiKeyIds };
      },
    },
  },
};
