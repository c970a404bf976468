/**
 * The Sandbox's service secret (what its sealed wallets and keys are encrypted under) lives in the OS keychain, not
 * in a file beside the database: a copy of the data directory alone must not open the sealed mnemonics. A secret
 * file left by an earlier version is moved into the keychain and then deleted.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { readServiceSecretFile, type ServiceSecret } from '../../service';
import { QkError } from '../../shared/errors';
import type { SecretStore } from '../keychain/secret-store';

/** Keychain account of the secret, beside the accounts of the keys (`api-key:<id>`, `encryption-key:<id>`). */
export const SANDBOX_SERVICE_SECRET_ACCOUNT = 'sandbox-service-secret';

const SECRET_BYTES = 32;
/** Stored as the secret followed by its creation time (8 bytes, big-endian milliseconds since the epoch). */
const STORED_BYTES = SECRET_BYTES + 8;

export interface SandboxServiceSecretOptions {
  store: SecretStore;
  /** Where an earlier version kept the secret (`<db>.service-secret`). */
  legacyFile: string;
  databaseHoldsSealedData: boolean;
  now?: () => number;
}

export async function sandboxServiceSecret({
  store,
  legacyFile,
  databaseHoldsSealedData,
  now = Date.now,
}: SandboxServiceSecretOptions): Promise<ServiceSecret> {
  const stored = await store.get(SANDBOX_SERVICE_SECRET_ACCOUNT);
  if (stored !== null) {
    const secret = decode(stored);
    // A file still there means a migration stopped between storing and deleting: delete it once it matches.
    if (existsSync(legacyFile)) await removeMigratedFile(legacyFile, secret);
    return secret;
  }
  if (existsSync(legacyFile)) {
    const legacy = readServiceSecretFile(legacyFile);
    await store.set(SANDBOX_SERVICE_SECRET_ACCOUNT, encode(legacy));
    const readBack = await store.get(SANDBOX_SERVICE_SECRET_ACCOUNT);
    if (readBack === null || !sameSecret(decode(readBack), legacy)) {
      throw new QkError('KEYCHAIN_UNAVAILABLE', `the OS keychain did not keep the sandbox service secret; ${legacyFile} is left in place`);
    }
    await unlink(legacyFile);
    return legacy;
  }
  if (databaseHoldsSealedData) {
    throw new QkError(
      'FAILED_PRECONDITION',
      `the OS keychain holds no sandbox service secret (account ${SANDBOX_SERVICE_SECRET_ACCOUNT}) and there is no ${legacyFile}, but the sandbox database holds sealed wallets or keys; restore the keychain entry or the file`,
    );
  }
  const fresh = { secret: randomBytes(SECRET_BYTES), createdAtMs: now() };
  await store.set(SANDBOX_SERVICE_SECRET_ACCOUNT, encode(fresh));
  return fresh;
}

function encode({ secret, createdAtMs }: ServiceSecret): Uint8Array {
  const bytes = Buffer.alloc(STORED_BYTES);
  bytes.set(secret, 0);
  bytes.writeBigUInt64BE(BigInt(createdAtMs), SECRET_BYTES);
  return bytes;
}

/** Copies the secret out of what the keychain answered and zeroes that. */
function decode(stored: Uint8Array): ServiceSecret {
  try {
    if (stored.length !== STORED_BYTES) {
      throw new QkError(
        'KEY_INVALID',
        `the keychain entry ${SANDBOX_SERVICE_SECRET_ACCOUNT} holds ${stored.length} bytes, not ${STORED_BYTES}; it was not written by QuorumKey`,
      );
    }
    const view = Buffer.from(stored.buffer, stored.byteOffset, stored.length);
    return { secret: Uint8Array.from(stored.subarray(0, SECRET_BYTES)), createdAtMs: Number(view.readBigUInt64BE(SECRET_BYTES)) };
  } finally {
    stored.fill(0);
  }
}

async function removeMigratedFile(file: string, stored: ServiceSecret): Promise<void> {
  const legacy = readServiceSecretFile(file);
  if (!sameSecret(legacy, stored)) {
    throw new QkError(
      'FAILED_PRECONDITION',
      `${file} holds a different service secret from the one in the OS keychain; move the file aside if the keychain's is the right one`,
      { file },
    );
  }
  await unlink(file);
}

function sameSecret(a: ServiceSecret, b: ServiceSecret): boolean {
  return a.secret.length === b.secret.length && timingSafeEqual(a.secret, b.secret);
}
