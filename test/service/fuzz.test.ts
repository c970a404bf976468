import { afterAll, beforeAll, expect, it } from 'vitest';
import { allOperations } from '../../src/shared/api';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp';
import { startTestService, type TestService } from './helpers';

/** Bounded: a fixed count of requests from a seeded generator, so a failure replays exactly. */
const REQUESTS = 2_000;
const CONCURRENCY = 8;

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.close();
});

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), state | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

it('thousands of malformed bodies and headers: never a 5xx, never a state change', async () => {
  const random = prng(0xc0ffee);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const paths = [...allOperations.map((op) => op.path), '/public/v1/query/../submit/create_policy', '/', '/public/v1/submit/'];
  const weird: unknown[] = [null, true, 0, -1, Number.MAX_VALUE, '', 'x'.repeat(300), [], {}, { $ne: 1 }, '__proto__', '\u0000', '😀'];
  const valid = {
    type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
    timestampMs: String(t.clock.now()),
    organizationId: t.info.organizationId,
    parameters: { policyName: 'fuzz', effect: 'EFFECT_ALLOW', notes: '' },
  };
  const mutateObject = (): unknown => {
    const copy: Record<string, unknown> = structuredClone(valid);
    const field = pick([...Object.keys(copy), 'parameters.policyName', 'parameters.effect', 'extra', '__proto__']);
    // Parameters only get non-strings: a weird but valid policy name would be a legitimate write.
    const nonStrings = weird.filter((value) => typeof value !== 'string');
    if (field.startsWith('parameters.')) (copy.parameters as Record<string, unknown>)[field.slice(11)] = pick(nonStrings);
    else copy[field] = pick(weird);
    return copy;
  };
  const bodies: (() => string)[] = [
    () => JSON.stringify(mutateObject()),
    () => JSON.stringify(valid).slice(0, Math.floor(random() * 120)),
    () => Buffer.from(Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256))).toString('latin1'),
    () => JSON.stringify(pick(weird)),
    () => '{"organizationId":' + '['.repeat(5_000),
  ];
  const rootSigner = signerFromPrivateKey(t.rootKey.curve, t.rootKey.privateKey);
  const headerSets: ((text: string) => Promise<Record<string, string>>)[] = [
    async () => ({}),
    async () => ({ 'x-stamp': pick(['', 'e30', '!!!', 'x'.repeat(2_000), Buffer.from('{"publicKey":1}').toString('base64url')]) }),
    async (text) => ({ 'x-stamp': (await stampBody(text + ' ', rootSigner)).headerValue }),
    async () => ({ 'x-stamp-webauthn': pick(['{}', 'null', '{"credentialId":"AA"}', 'garbage']) }),
    // Validly stamped malformed bodies get through authentication's first step and reach the validators.
    async (text) => ({ 'x-stamp': (await stampBody(text, rootSigner)).headerValue }),
  ];
  const contentTypes = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'];

  let next = 0;
  const statuses = new Map<number, number>();
  const worker = async (): Promise<void> => {
    while (next < REQUESTS) {
      next += 1;
      const text = pick(bodies)();
      const headers = { 'content-type': pick(contentTypes), ...(await pick(headerSets)(text)) };
      const response = await fetch(`${t.info.baseUrl}${pick(paths)}`, { method: 'POST', headers, body: text });
      const reply = await response.text();
      expect(response.status, `${text.slice(0, 200)} → ${reply.slice(0, 300)}`).toBeLessThan(500);
      expect(() => JSON.parse(reply)).not.toThrow();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));

  expect(t.logs.filter((line) => line.startsWith('internal error'))).toEqual([]);
  expect(t.store.read.activities.list({ organizationId: t.info.organizationId, limit: 100 })).toHaveLength(0);
  expect(t.store.read.policies.countByOrganization(t.info.organizationId)).toBe(0);
  expect(t.store.integrityCheck()).toBe('ok');
  // The generator reached authentication, validation and routing failures alike.
  expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([400, 401, 404]));
});
