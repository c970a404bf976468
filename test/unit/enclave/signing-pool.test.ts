/**
 * The enclave's signing workers (issue 22, finding 4): jobs sign on worker threads exactly as the primitives do in
 * process, errors come back as the QkError they were, and the secret a job carries is zeroed after it, whatever its
 * outcome.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, platform } from 'node:os';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, describe, expect, it } from 'vitest';
import { QkError } from '../../../src/shared/errors';
import { answer } from '../../../src/service/enclave/signing-jobs';
import { SigningPool } from '../../../src/service/enclave/signing-pool';
import { signRaw, type SigningKey } from '../../../src/service/enclave/signing';

const secret = new Uint8Array(32).fill(7);
const key = (): SigningKey => ({ curve: 'CURVE_SECP256K1', secret: new Uint8Array(secret), publicKey: secp256k1.getPublicKey(secret, true) });
const digests = Array.from({ length: 5 }, (_, index) => new Uint8Array(32).fill(index + 1));

describe('a signing job', () => {
  it('zeroes its key after signing and after failing', () => {
    const signed = key();
    expect(answer({ id: 1, key: signed, job: { kind: 'raw', signables: digests } })).toMatchObject({ ok: true });
    expect(signed.secret.every((byte) => byte === 0)).toBe(true);
    const failed = key();
    const refused = answer({ id: 2, key: failed, job: { kind: 'digest', digest: new Uint8Array(31) } });
    expect(refused).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: 'an ECDSA digest is 32 bytes, got 31' } });
    expect(failed.secret.every((byte) => byte === 0)).toBe(true);
  });
});

describe('the signing pool', () => {
  const pool = new SigningPool(2);
  afterAll(() => pool.close());

  it('signs on its workers what the primitives sign in process, and leaves the caller its own key', async () => {
    const caller = key();
    const signed = await Promise.all(digests.map((digest) => pool.run(caller, { kind: 'raw', signables: [digest] })));
    expect(signed.flat()).toEqual(digests.map((digest) => signRaw(key(), digest)));
    // The worker got a copy; zeroing the opened key stays the caller's job (Enclave.withSigningKey).
    expect(caller.secret).toEqual(secret);
  });

  it('answers each job sent in one message on its own: a refusal among them fails only its job', async () => {
    const jobs = digests.map((digest, index) =>
      index === 2 ? pool.run(key(), { kind: 'digest', digest: new Uint8Array(31) }) : pool.run(key(), { kind: 'digest', digest }),
    );
    const settled = await Promise.allSettled(jobs);
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(settled[2]).toMatchObject({ reason: { code: 'INTERNAL', message: 'an ECDSA digest is 32 bytes, got 31' } });
    const compact = (outcome: PromiseSettledResult<unknown>) => {
      const { r, s } = (outcome as PromiseFulfilledResult<{ r: Uint8Array; s: Uint8Array }>).value;
      return new Uint8Array([...r, ...s]);
    };
    for (const index of [0, 1, 3, 4]) {
      expect(secp256k1.verify(compact(settled[index]!), digests[index]!, key().publicKey, { prehash: false })).toBe(true);
    }
  });

  it('answers a refusal as the QkError it was, and keeps serving', async () => {
    const refused = await pool.run(key(), { kind: 'psbt', psbt: new Uint8Array([1, 2, 3]), options: {} }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(QkError);
    expect(refused).toMatchObject({ code: 'ENCODING_INVALID' });
    await expect(pool.run(key(), { kind: 'digest', digest: digests[0]! })).resolves.toMatchObject({ recovery: expect.any(Number) });
  });

  it.runIf(platform() === 'linux')("runs its workers below the event loop's priority", async () => {
    await pool.run(key(), { kind: 'digest', digest: digests[0]! });
    // Field 19 of a thread's stat is its nice value (the fields after the command's closing parenthesis start at 3).
    const niceOf = (tid: string) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const workers = readdirSync('/proc/self/task').filter((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === 'WorkerThread');
    expect(workers.map(niceOf)).toContain(Math.min(19, getPriority() + 5));
  });

  it('refuses work once closed', async () => {
    const closed = new SigningPool(1);
    await closed.close();
    await expect(closed.run(key(), { kind: 'raw', signables: digests })).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
  });
});
