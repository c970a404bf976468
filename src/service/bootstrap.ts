/**
 * First start of a database: one root organization whose root user holds the given API keys (root quorum
 * = that user, threshold 1), or the organizations of a seed file; the enclave signing key and one auth-proxy config.
 * Later starts reuse them.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { QkError } from '../shared/errors';
import { generateApiKeyPair, type ApiKeyCurve, type HexKeyPair } from '../shared/crypto/keys';
import { apiKeyCredentialTypeByCurve } from './auth/credentials';
import { stampPublicKeyOf, type RootPublicKey } from './auth/stamp-public-key';
import type { Enclave } from './enclave';
import { applySeed } from './seed/apply';
import type { Seed } from './seed/file';
import { requireSameSeed } from './seed/kept';
import type { Store } from './store';

export const ENCLAVE_SIGNING_KEY = 'enclave-signing';
export const ROOT_ORGANIZATION_NAME = 'Root organization';
export const ROOT_USER_NAME = 'Root user';

export interface BootstrapResult {
  organizationId: string;
  rootUserId: string;
  authProxyConfigId: string;
  enclaveSigningKey: { publicKey: string; privateKey: string };
  /** Set when a root key pair was generated for lack of one given. */
  generatedRootKey?: { publicKey: string; privateKey: string; curve: ApiKeyCurve; path: string };
}

export async function bootstrap(
  store: Store,
  options: {
    rootPublicKeys: readonly RootPublicKey[];
    now: number;
    newId: () => string;
    rootKeyFile: string;
    /** Stored on a new database; an existing one keeps its own. */
    enclaveSigningKey: HexKeyPair;
    /** A seed file to create a new database from, with the enclave that makes its wallets and keys. */
    seed?: { seed: Seed; enclave: Enclave };
  },
): Promise<BootstrapResult> {
  const requested = options.rootPublicKeys.map((key) => ({ ...key, publicKey: stampPublicKeyOf(key) }));
  return store.transaction(async (tx) => {
    const existing = tx.organizations.firstRoot();
    if (existing !== undefined) {
      if (options.seed !== undefined) requireSameSeed(tx, options.seed.seed, store.path);
      const rootUserId = tx.organizations.rootQuorum(existing.id).userIds[0] ?? tx.users.listByOrganization(existing.id)[0]?.id;
      const signingKey = tx.serviceKeys.get(ENCLAVE_SIGNING_KEY);
      const config = tx.authProxyConfigs.listByOrganization(existing.id)[0];
      if (rootUserId === undefined || signingKey === undefined || config === undefined) {
        throw new QkError('INTERNAL', `the database was bootstrapped incompletely (organization ${existing.id}); start with a new database`);
      }
      const held = new Set(tx.apiKeys.listByUser(rootUserId).map((key) => key.publicKey));
      const missing = requested.filter((key) => !held.has(key.publicKey));
      if (missing.length > 0) {
        throw new QkError(
          'FAILED_PRECONDITION',
          `the database is already bootstrapped and its root user does not hold ${missing.map((k) => k.publicKey).join(', ')}; root keys are only set on a new database (add keys with create_api_keys)`,
        );
      }
      return {
        organizationId: existing.id,
        rootUserId,
        authProxyConfigId: config.id,
        enclaveSigningKey: { publicKey: signingKey.publicKey, privateKey: signingKey.privateKey },
      };
    }

    const { now, newId } = options;
    const signingKey = options.enclaveSigningKey;
    tx.serviceKeys.insert({ purpose: ENCLAVE_SIGNING_KEY, curve: 'p256', ...signingKey, createdAt: now });
    if (options.seed !== undefined) {
      const { seed, enclave } = options.seed;
      const seeded = await applySeed(tx, seed, { enclave, now, newId });
      const authProxyConfigId = newId();
      tx.authProxyConfigs.insert({ id: authProxyConfigId, organizationId: seeded.organizationId, createdAt: now });
      return { ...seeded, authProxyConfigId, enclaveSigningKey: signingKey };
    }
    const organizationId = newId();
    const rootUserId = newId();
    tx.organizations.insert({ id: organizationId, name: ROOT_ORGANIZATION_NAME, rootQuorumThreshold: 1, now });
    tx.users.insert({ id: rootUserId, organizationId, name: ROOT_USER_NAME, now });
    tx.organizations.setRootQuorum(organizationId, { threshold: 1, userIds: [rootUserId] }, now);

    let generatedRootKey: BootstrapResult['generatedRootKey'];
    let keys = requested;
    if (keys.length === 0) {
      const pair = generateApiKeyPair('p256');
      generatedRootKey = { ...pair, curve: 'p256', path: options.rootKeyFile };
      keys = [{ publicKey: pair.publicKey, curve: 'p256' }];
    }
    keys.forEach((key, index) => {
      tx.apiKeys.insert({
        id: newId(),
        organizationId,
        userId: rootUserId,
        name: `root key ${index + 1}`,
        publicKey: key.publicKey,
        credentialType: apiKeyCredentialTypeByCurve[key.curve],
        expirationSeconds: undefined,
        sessionProfileId: undefined,
        now,
      });
    });

    const authProxyConfigId = newId();
    tx.authProxyConfigs.insert({ id: authProxyConfigId, organizationId, createdAt: now });

    if (generatedRootKey !== undefined) {
      // Written inside the transaction so that a failure to write it leaves no unusable root user behind.
      const { publicKey, privateKey, curve } = generatedRootKey;
      writeFileSync(options.rootKeyFile, `${JSON.stringify({ publicKey, privateKey, curve }, null, 2)}\n`, { mode: 0o600 });
      chmodSync(options.rootKeyFile, 0o600);
    }
    return { organizationId, rootUserId, authProxyConfigId, enclaveSigningKey: signingKey, ...(generatedRootKey ? { generatedRootKey } : {}) };
  });
}
