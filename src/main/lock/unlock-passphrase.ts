/**
 * The unlock passphrase: set at first run or in Settings, checked in main with scrypt. Only a random salt and the
 * scrypt hash are stored (`<dataDir>/unlock-passphrase.json`), never the passphrase. Wrong guesses are rate-limited,
 * and the count is stored with the hash so quitting and restarting the app does not reset it.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { bytesToHex, hexToBytes } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import { JsonFile } from '../storage/json-file';

export const UNLOCK_PASSPHRASE_FILE = 'unlock-passphrase.json';
export const MIN_PASSPHRASE_LENGTH = 8;
export const MAX_PASSPHRASE_LENGTH = 1024;

/** scrypt cost: N = 2^15 with r = 8 takes 32 MiB and about 0.1 s per guess, for us and for anyone with the file. */
const SCRYPT_COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

/** Guesses allowed before waiting starts; then each wrong guess doubles the wait, up to the cap. */
const FREE_ATTEMPTS = 5;
const FIRST_WAIT_MS = 1_000;
const MAX_WAIT_MS = 5 * 60_000;

const hex = z.string().regex(/^[0-9a-f]+$/);
const storedSchema = z.strictObject({
  version: z.literal(1),
  kdf: z.literal('scrypt'),
  N: z.number().int().min(SCRYPT_COST.N),
  r: z.number().int().positive(),
  p: z.number().int().positive(),
  salt: hex.length(SALT_BYTES * 2),
  hash: hex.length(HASH_BYTES * 2),
  failedAttempts: z.number().int().nonnegative(),
  /** No guess is checked before this time (milliseconds since the epoch). */
  blockedUntilMs: z.number().int().nonnegative(),
});
type Stored = z.infer<typeof storedSchema>;

export interface UnlockPassphraseOptions {
  dataDir: string;
  now?: () => number;
}

export class UnlockPassphrase {
  readonly #file: JsonFile<Stored>;
  readonly #now: () => number;

  constructor({ dataDir, now = Date.now }: UnlockPassphraseOptions) {
    this.#file = new JsonFile(join(dataDir, UNLOCK_PASSPHRASE_FILE), storedSchema);
    this.#now = now;
  }

  /** Synchronous, so the app can start locked when a passphrase exists. */
  isSetSync(): boolean {
    return existsSync(this.#file.path);
  }

  async isSet(): Promise<boolean> {
    return (await this.#file.read()) !== undefined;
  }

  /**
   * Sets or changes the passphrase. Changing it needs the current one (checked like an unlock), so a person who
   * finds the app unlocked cannot lock its owner out.
   */
  async set(passphrase: string, currentPassphrase?: string): Promise<void> {
    checkNewPassphrase(passphrase);
    if (await this.isSet()) {
      if (currentPassphrase === undefined) {
        throw new QkError('PASSPHRASE_INVALID', 'an unlock passphrase is already set; give the current one to change it', {
          field: 'currentPassphrase',
        });
      }
      await this.verify(currentPassphrase);
    }
    const salt = randomBytes(SALT_BYTES);
    const hash = await derive(passphrase, salt, SCRYPT_COST);
    try {
      await this.#file.write({
        version: 1,
        kdf: 'scrypt',
        ...SCRYPT_COST,
        salt: bytesToHex(salt),
        hash: bytesToHex(hash),
        failedAttempts: 0,
        blockedUntilMs: 0,
      });
    } finally {
      hash.fill(0);
    }
  }

  /**
   * Resolves when `passphrase` is the unlock passphrase; otherwise throws PASSPHRASE_INVALID, or LIMIT_EXCEEDED
   * (without checking) while too many wrong guesses make it wait. FAILED_PRECONDITION when none is set.
   */
  async verify(passphrase: string): Promise<void> {
    // Checked and counted inside one update, so parallel guesses cannot slip past the wait.
    await this.#file
      .update(async (stored) => {
        if (stored === undefined) {
          throw new QkError('FAILED_PRECONDITION', 'no unlock passphrase is set; set one in Settings first');
        }
        const now = this.#now();
        if (now < stored.blockedUntilMs) {
          const retryAfterMs = stored.blockedUntilMs - now;
          throw new QkError('LIMIT_EXCEEDED', `too many wrong passphrases; try again in ${Math.ceil(retryAfterMs / 1000)} s`, { retryAfterMs });
        }
        const expected = hexToBytes(stored.hash, 'stored passphrase hash');
        const given = await derive(passphrase, hexToBytes(stored.salt, 'stored passphrase salt'), stored);
        const matches = given.length === expected.length && timingSafeEqual(given, expected);
        given.fill(0);
        if (matches) return { next: { ...stored, failedAttempts: 0, blockedUntilMs: 0 }, result: undefined };
        const failedAttempts = stored.failedAttempts + 1;
        const waitMs = failedAttempts < FREE_ATTEMPTS ? 0 : Math.min(FIRST_WAIT_MS * 2 ** (failedAttempts - FREE_ATTEMPTS), MAX_WAIT_MS);
        return { next: { ...stored, failedAttempts, blockedUntilMs: now + waitMs }, result: waitMs };
      })
      .then((waitMs) => {
        if (waitMs === undefined) return;
        throw new QkError(
          'PASSPHRASE_INVALID',
          waitMs === 0 ? 'that is not the unlock passphrase' : `that is not the unlock passphrase; wait ${waitMs / 1000} s before the next try`,
          { retryAfterMs: waitMs },
        );
      });
  }
}

function checkNewPassphrase(passphrase: string): void {
  const length = [...passphrase].length;
  if (length < MIN_PASSPHRASE_LENGTH || length > MAX_PASSPHRASE_LENGTH) {
    throw new QkError(
      'REQUEST_INVALID',
      `the unlock passphrase must have ${MIN_PASSPHRASE_LENGTH}-${MAX_PASSPHRASE_LENGTH} characters; it has ${length}`,
      { field: 'passphrase' },
    );
  }
  if (passphrase.trim() !== passphrase) {
    throw new QkError('REQUEST_INVALID', 'the unlock passphrase must not start or end with spaces', { field: 'passphrase' });
  }
}

/** scrypt over the passphrase's NFC UTF-8 bytes, which are zeroed once derived. The caller zeroes the result. */
async function derive(passphrase: string, salt: Uint8Array, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const bytes = Buffer.from(passphrase.normalize('NFC'), 'utf8');
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r };
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      scrypt(bytes, salt, HASH_BYTES, options, (error, key) => (error === null ? resolve(key) : reject(error))),
    );
  } finally {
    bytes.fill(0);
  }
}
