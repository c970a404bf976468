import { Address, NETWORK, OutScript, Transaction as BitcoinTransaction } from '@scure/btc-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { allOperations, requestSchemaOf, type Operation } from '../../src/shared/api';
import { BODY_LIMIT_BYTES } from '../../src/service/server/app';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp';
import { startTestService, type TestService } from '../support/service';
import { MAIL } from '../support/eip712-mail';
import { prng } from '../support/random';
import { recordedRows } from './signing/recorded';

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
  const contentTypes = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', '', ';', 'json'];

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

/** A string field of a request schema: where it sits (array members at index 0) and its length limit. */
interface StringField {
  op: Operation;
  path: (string | number)[];
  max: number;
  /** Inside a union (int64 as string or number), where zod reports the union rather than the length. */
  inUnion: boolean;
}

function stringFields(op: Operation): StringField[] {
  const found: StringField[] = [];
  const walk = (schema: z.ZodType, path: (string | number)[], inUnion: boolean): void => {
    const def = schema.def as unknown as Record<string, unknown> & { type: string };
    if (def.type === 'string') found.push({ op, path, max: (schema as z.ZodString).maxLength ?? Infinity, inUnion });
    else if (def.type === 'object')
      for (const [key, value] of Object.entries(def.shape as Record<string, z.ZodType>)) walk(value, [...path, key], inUnion);
    else if (def.type === 'optional' || def.type === 'nullable') walk(def.innerType as z.ZodType, path, inUnion);
    else if (def.type === 'array') walk(def.element as z.ZodType, [...path, 0], inUnion);
    else if (def.type === 'union') for (const option of def.options as z.ZodType[]) walk(option, path, true);
    else if (def.type === 'pipe') walk(def.in as z.ZodType, path, inUnion);
  };
  walk(requestSchemaOf(op), [], false);
  return found;
}

/** A body holding only `value` at `path` (arrays and objects made along the way). */
function bodyWith(path: readonly (string | number)[], value: string): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  const inner = bodyWith(rest, value);
  return typeof head === 'number' ? [inner] : { [head]: inner };
}

function dottedPath(path: readonly (string | number)[]): string {
  return path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}

async function postRaw(
  path: string,
  body: Uint8Array<ArrayBuffer> | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${t.info.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-proxy-config-id': t.info.authProxyConfigId, ...headers },
    body,
  });
  return { status: response.status, text: await response.text() };
}

async function inBatches<T>(items: readonly T[], run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await run(items[(next += 1) - 1]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

function expectNothingChanged(): void {
  expect(t.logs.filter((line) => line.startsWith('internal error'))).toEqual([]);
  expect(t.store.read.activities.list({ organizationId: t.info.organizationId, limit: 100 })).toHaveLength(0);
  expect(t.store.read.policies.countByOrganization(t.info.organizationId)).toBe(0);
  expect(t.store.read.users.listByOrganization(t.info.organizationId)).toHaveLength(1);
  expect(t.store.integrityCheck()).toBe('ok');
}

it('long strings: every string field of every request just above its limit, and a sample at 1 MiB, is a 400 naming the limit', async () => {
  const fields = allOperations.flatMap(stringFields);
  expect(fields.length).toBeGreaterThan(300);
  expect(fields.filter((field) => !Number.isFinite(field.max)).map((field) => `${field.op.name} ${dottedPath(field.path)}`)).toEqual([]);

  await inBatches(fields, async ({ op, path, max, inUnion }) => {
    const reply = await postRaw(op.path, JSON.stringify(bodyWith(path, 'a'.repeat(max + 1))));
    const where = `${op.name} ${dottedPath(path)}`;
    expect(reply.status, `${where} → ${reply.text.slice(0, 300)}`).toBe(400);
    const body = JSON.parse(reply.text) as { message: string; details: { turnkeyErrorCode: string }[] };
    expect(body.details[0]!.turnkeyErrorCode, where).toBe('REQUEST_INVALID');
    if (!inUnion) expect(body.message, where).toContain(`${dottedPath(path)}: must be at most ${max} characters, got ${max + 1}`);
  });

  const random = prng(0x10ad);
  const sample = Array.from({ length: 16 }, () => fields[Math.floor(random() * fields.length)]!);
  await inBatches(sample, async ({ op, path }) => {
    const reply = await postRaw(op.path, JSON.stringify(bodyWith(path, 'a'.repeat(BODY_LIMIT_BYTES))));
    expect(reply.status, `${op.name} ${dottedPath(path)} at 1 MiB`).toBe(400);
    expect((JSON.parse(reply.text) as { details: { turnkeyErrorCode: string }[] }).details[0]!.turnkeyErrorCode).toBe('REQUEST_TOO_LARGE');
  });
  expectNothingChanged();
});

it('invalid UTF-8: validly stamped bodies with bytes that are not UTF-8 are a 400 on every path, nothing stored', async () => {
  const random = prng(0x0f8);
  const invalidSequences = [[0xff], [0xc0, 0xaf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc3], [0x80]];
  const rootSigner = signerFromPrivateKey(t.rootKey.curve, t.rootKey.privateKey);
  const requests = allOperations.flatMap((op) =>
    Array.from({ length: 3 }, () => {
      const text = JSON.stringify({
        type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
        timestampMs: String(t.clock.now()),
        organizationId: t.info.organizationId,
        parameters: { policyName: 'utf8 fuzz', effect: 'EFFECT_ALLOW', notes: '' },
      });
      const bytes = [...new TextEncoder().encode(text)];
      const at = 1 + Math.floor(random() * (bytes.length - 2));
      bytes.splice(at, 0, ...invalidSequences[Math.floor(random() * invalidSequences.length)]!);
      return { op, bytes: new Uint8Array(bytes) };
    }),
  );
  await inBatches(requests, async ({ op, bytes }) => {
    const signature = await rootSigner.sign(bytes);
    const stamp = Buffer.from(JSON.stringify({ publicKey: rootSigner.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature })).toString(
      'base64url',
    );
    const reply = await postRaw(op.path, bytes, { 'x-stamp': stamp });
    expect(reply.status, `${op.name} → ${reply.text.slice(0, 300)}`).toBe(400);
    expect(reply.text).toContain('not valid UTF-8');
  });
  expectNothingChanged();
});

/**
 * Signing inputs built to break the decoders rather than the envelope: typed data (Object.prototype names, deep
 * nesting, integers beyond their type, domains whose members and types.EIP712Domain disagree) and PSBTs (every
 * sighash byte, mutated bytes). Each is signed (COMPLETED, never FAILED) or refused with a 4xx; nothing else changes.
 */
describe('signing families', () => {
  const ROUNDS = 300;
  let s: TestService;
  let ethereum: string;
  let bitcoin: string;

  beforeAll(async () => {
    s = await startTestService();
    const wallet = await s.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'fuzz',
      accounts: [
        { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
        {
          curve: 'CURVE_SECP256K1',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/84'/0'/0'/0/0",
          addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH',
        },
      ],
    });
    [ethereum, bitcoin] = wallet.body.activity.result.createWalletResult.addresses;
  });
  afterAll(() => s.close());

  /** Sends each body; a 200 must be a completed signature, anything else a 4xx with a message; nothing else is written. */
  async function expectSignedOrRefused(requests: readonly { name: string; type: string; parameters: unknown }[]): Promise<Map<number, number>> {
    const before = recordedRows(s);
    const wallets = s.store.read.wallets.listByOrganization(s.info.organizationId).length;
    const statuses = new Map<number, number>();
    for (const { name, type, parameters } of requests) {
      s.clock.advance(1);
      const reply = await s.submit(name, type, parameters);
      const shown = `${JSON.stringify(parameters).slice(0, 300)} → ${JSON.stringify(reply.body).slice(0, 300)}`;
      expect(reply.status, shown).toBeLessThan(500);
      if (reply.status === 200) expect(reply.body.activity.status, shown).toBe('ACTIVITY_STATUS_COMPLETED');
      else expect(reply.body.message.length, shown).toBeGreaterThan(10);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    }
    expect(s.logs.filter((line) => line.startsWith('internal error'))).toEqual([]);
    // A completed request writes its activity and the proposer's vote; a refused one nothing.
    expect(recordedRows(s)).toBe(before + 2 * (statuses.get(200) ?? 0));
    expect(s.store.read.wallets.listByOrganization(s.info.organizationId)).toHaveLength(wallets);
    expect(s.store.integrityCheck()).toBe('ok');
    return statuses;
  }

  it('typed data: prototype names, depth, huge integers and mismatched domains', async () => {
    const random = prng(0x712);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const prototypeNames = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];
    /** An own property even for "__proto__", which JSON.stringify then writes like any other key. */
    const setOwn = (target: object, key: string, value: unknown) =>
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    const domainNames = ['name', 'version', 'chainId', 'verifyingContract', 'salt'];
    const domainValues: Record<string, unknown> = {
      name: 'Fuzz',
      version: '1',
      chainId: 1,
      verifyingContract: MAIL.domain.verifyingContract,
      salt: `0x${'11'.repeat(32)}`,
    };
    const domainTypes: Record<string, string> = {
      name: 'string',
      version: 'string',
      chainId: 'uint256',
      verifyingContract: 'address',
      salt: 'bytes32',
    };
    const subset = () => domainNames.filter(() => random() < 0.5);

    const prototypeDocument = () => {
      const document = JSON.parse(JSON.stringify(MAIL)) as {
        types: Record<string, { name: string; type: string }[]>;
        primaryType: string;
        message: Record<string, unknown>;
      };
      const name = pick(prototypeNames);
      const where = Math.floor(random() * 4);
      if (where === 0) document.primaryType = name;
      else if (where === 1) document.types.Mail![2]!.type = name;
      else if (where === 2) setOwn(document.types, name, [{ name: pick(prototypeNames), type: pick(['string', 'uint8', 'Person', name]) }]);
      else setOwn(document.message, name, pick(['x', 1, {}, null]));
      return JSON.stringify(document);
    };
    const deepDocument = () => {
      const depth = Math.floor(random() * (random() < 0.5 ? 40 : 3_000));
      return `{"types":{"Node":[{"name":"next","type":"Node[]"}]},"primaryType":"Node","domain":{"name":"x"},"message":${'{"next":['.repeat(depth)}{"next":[]}${']}'.repeat(depth)}}`;
    };
    const integerDocument = () => {
      const bits = pick([8, 16, 64, 128, 256, 7, 257, 0]);
      const type = `${pick(['uint', 'int'])}${bits}`;
      const value = pick<unknown>([
        (2n ** BigInt(Math.max(bits, 1))).toString(),
        (2n ** BigInt(Math.max(bits, 1)) - 1n).toString(),
        `-${2n ** BigInt(Math.max(bits - 1, 0))}`,
        -1,
        1.5,
        1e300,
        Number.MAX_SAFE_INTEGER + 2,
        '1e99',
        `0x${'f'.repeat(Math.ceil(bits / 4) + 1)}`,
        '9'.repeat(400),
        '',
        '-0x1',
        true,
        null,
        [],
      ]);
      return JSON.stringify({ types: { Amount: [{ name: 'value', type }] }, primaryType: 'Amount', domain: { name: 'x' }, message: { value } });
    };
    const domainDocument = () => {
      const present = subset();
      const domain: Record<string, unknown> = Object.fromEntries(present.map((name) => [name, domainValues[name]]));
      if (random() < 0.2) domain[pick(['owner', 'chainID', ...prototypeNames])] = 1;
      if (random() < 0.1 && present.length > 0) domain[pick(present)] = null;
      const listed = random() < 0.3 ? undefined : random() < 0.5 ? present : subset();
      const domainType =
        listed === undefined ? {} : { EIP712Domain: listed.map((name) => ({ name, type: random() < 0.1 ? 'uint64' : domainTypes[name]! })) };
      return JSON.stringify({ ...MAIL, domain, types: { ...domainType, ...MAIL.types } });
    };
    const families = [prototypeDocument, deepDocument, integerDocument, domainDocument];
    const statuses = await expectSignedOrRefused(
      Array.from({ length: ROUNDS }, () => ({
        name: 'sign_raw_payload',
        type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
        parameters: { signWith: ethereum, payload: pick(families)(), encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' },
      })),
    );
    // Both outcomes were reached: some variants are valid typed data, most are not.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(ROUNDS / 2);
  });

  it('PSBTs: every sighash byte on an input of ours, and mutated bytes', async () => {
    const random = prng(0xb7c);
    const byte = () => Math.floor(random() * 256);
    const ours = OutScript.encode(Address(NETWORK).decode(bitcoin));
    const psbtWith = (sighashType: number | undefined) => {
      const psbt = new BitcoinTransaction({ allowUnknownOutputs: true });
      psbt.addInput({
        txid: '33'.repeat(32),
        index: 0,
        witnessUtxo: { script: ours, amount: 50_000n },
        ...(sighashType === undefined ? {} : { sighashType }),
      });
      if (random() < 0.3) psbt.addInput({ txid: '44'.repeat(32), index: 1, witnessUtxo: { script: ours, amount: 1_000n } });
      for (let count = 0; count < Math.floor(random() * 3); count++)
        psbt.addOutputAddress(bitcoin, BigInt(1 + Math.floor(random() * 40_000)), NETWORK);
      return Buffer.from(psbt.toPSBT());
    };
    const mutate = (bytes: Buffer) => {
      const copy = Buffer.from(bytes);
      if (random() < 0.5) {
        for (let count = 0; count < 1 + Math.floor(random() * 3); count++) copy[Math.floor(random() * copy.length)] = byte();
        return copy;
      }
      return copy.subarray(0, Math.floor(random() * copy.length));
    };
    const sighashes = [undefined, ...Array.from({ length: 0x84 }, (_, value) => value), 0xff, 0x100, 0xffffffff];
    const statuses = await expectSignedOrRefused(
      Array.from({ length: ROUNDS }, () => {
        const psbt = psbtWith(pick(sighashes));
        return {
          name: 'sign_transaction',
          type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
          parameters: {
            signWith: bitcoin,
            unsignedTransaction: (random() < 0.3 ? mutate(psbt) : psbt).toString('hex'),
            type: 'TRANSACTION_TYPE_BITCOIN',
          },
        };
      }),
    );
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(ROUNDS / 2);

    function pick<T>(items: readonly T[]): T {
      return items[Math.floor(random() * items.length)]!;
    }
  });
});
