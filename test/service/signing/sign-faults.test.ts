/**
 * Issue 22's signing findings, each through Turnkey's official client (@turnkey/http) where it can send the request:
 * the service signs only what its view shows and its policies read, bad input is a specific 400 with nothing recorded,
 * and an explicit deny answers in Turnkey's words.
 */
import { request } from 'node:http';
import { Address, NETWORK, OutScript, SigHash, Transaction as BitcoinTransaction } from '@scure/btc-signer';
import { getAddress, hashTypedData, recoverAddress, recoverTypedDataAddress, serializeSignature, type TypedDataDomain } from 'viem';
import { hashAuthorization, recoverAuthorizationAddress } from 'viem/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTypedData, EIP712_DOMAIN_FIELDS, MAX_TYPED_DATA_DEPTH } from '../../../src/shared/chains/ethereum';
import { describeSigningRequest } from '../../../src/shared/clear-signing';
import type { RawPayloadsDetails } from '../../../src/shared/clear-signing/types';
import { clientRefusal } from '../../support/client-refusal';
import { MAIL } from '../../support/eip712-mail';
import { stampedHeaders, startTestService, type TestKey, type TestService } from '../../support/service';
import { recordedRows } from './recorded';

const CONTRACT = getAddress(MAIL.domain.verifyingContract);
const SALT = `0x${'5a'.repeat(32)}`;
/** A value for each EIP-712 domain member. */
const DOMAIN_VALUES: Record<string, unknown> = { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: CONTRACT, salt: SALT };

let t: TestService;
let signer: { userId: string; key: TestKey };
let ethereumAddress: `0x${string}`;
let bitcoinAddress: string;
let legacyBitcoinAddress: string;

type Signature = { r: string; s: string; v: string };

function signatureOf(result: Signature): `0x${string}` {
  return serializeSignature({ r: `0x${result.r}`, s: `0x${result.s}`, yParity: Number(result.v) });
}

/** sign_raw_payload through Turnkey's client, as `key` (the root user by default). */
async function signRaw(payload: string, encoding: string, key?: TestKey): Promise<Signature> {
  const reply = await t.client(key).signRawPayload({
    ...t.nextEnvelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'),
    parameters: { signWith: ethereumAddress, payload, encoding: encoding as never, hashFunction: 'HASH_FUNCTION_NO_OP' },
  });
  expect(reply.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  return reply.activity.result.signRawPayloadResult as Signature;
}

/** The same request, refused: a 400 (gRPC 3) whose message matches, and nothing recorded. */
async function expectRawRefused(payload: string, encoding: string, message: RegExp, key?: TestKey): Promise<void> {
  const before = recordedRows(t);
  const error = await clientRefusal(
    t.client(key).signRawPayload({
      ...t.nextEnvelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'),
      parameters: { signWith: ethereumAddress, payload, encoding: encoding as never, hashFunction: 'HASH_FUNCTION_NO_OP' },
    }),
  );
  expect(error.code, error.message).toBe(3);
  expect(error.message).toMatch(message);
  expect(recordedRows(t)).toBe(before);
}

/** Typed data whose domain holds `members` and whose types.EIP712Domain lists `listed` (none: left to the signer). */
function mailWithDomain(members: readonly string[], listed: readonly string[] | undefined = members): string {
  const domain = Object.fromEntries(members.map((name) => [name, DOMAIN_VALUES[name]]));
  const domainType = listed === undefined ? {} : { EIP712Domain: EIP712_DOMAIN_FIELDS.filter((field) => listed.includes(field.name)) };
  return JSON.stringify({ ...MAIL, domain, types: { ...domainType, ...MAIL.types } });
}

beforeAll(async () => {
  t = await startTestService();
  signer = await t.addUser({ name: 'signer' });
  t.clock.advance(1);
  const wallet = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', {
    walletName: 'sign-faults',
    accounts: [
      { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
      { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/84'/0'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH' },
      { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/0'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH' },
    ],
  });
  [ethereumAddress, bitcoinAddress, legacyBitcoinAddress] = wallet.body.activity.result.createWalletResult.addresses;
  const self = `approvers.any(user, user.id == '${signer.userId}')`;
  for (const [policyName, effect, condition, consensus] of [
    [
      'mail for the one contract on mainnet',
      'EFFECT_ALLOW',
      `eth.eip_712.domain.verifying_contract == '${CONTRACT}' && eth.eip_712.domain.chain_id == 1`,
      self,
    ],
    ['no typed data named Blocked', 'EFFECT_DENY', "eth.eip_712.primary_type == 'Blocked'", ''],
  ] as const) {
    t.clock.advance(1);
    const reply = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName, effect, condition, consensus, notes: '' });
    expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  }
});
afterAll(() => t.close());

describe('finding 1: an EIP-712 view, policy and card hold exactly the hashed domain members', () => {
  it('refuses the issue’s attack: chainId and verifyingContract in the domain but not in types.EIP712Domain', async () => {
    const attack = mailWithDomain(['name', 'version', 'chainId', 'verifyingContract'], ['name', 'version']);
    await expectRawRefused(
      attack,
      'PAYLOAD_ENCODING_EIP712',
      /domain\.chainId is not listed in types\.EIP712Domain, so it would not be signed/,
      signer.key,
    );
    // The honest document, with the fields hashed, is what the policy allows; its signature holds for that domain.
    const honest = await signRaw(mailWithDomain(['name', 'version', 'chainId', 'verifyingContract']), 'PAYLOAD_ENCODING_EIP712', signer.key);
    expect(await recoverTypedDataAddress({ ...MAIL, signature: signatureOf(honest) })).toBe(ethereumAddress);
  });

  it('refuses a member types.EIP712Domain lists but the domain lacks, an unknown member and a non-standard type', async () => {
    await expectRawRefused(
      mailWithDomain(['name'], ['name', 'chainId']),
      'PAYLOAD_ENCODING_EIP712',
      /lists chainId but the domain has no value for it/,
    );
    const unknown = JSON.parse(mailWithDomain(['name'])) as { domain: Record<string, unknown> };
    unknown.domain.owner = CONTRACT;
    await expectRawRefused(JSON.stringify(unknown), 'PAYLOAD_ENCODING_EIP712', /domain\.owner is not an EIP-712 domain member/);
    const narrowed = JSON.parse(mailWithDomain(['chainId'])) as { types: { EIP712Domain: { type: string }[] } };
    narrowed.types.EIP712Domain[0]!.type = 'uint64';
    await expectRawRefused(JSON.stringify(narrowed), 'PAYLOAD_ENCODING_EIP712', /declares chainId as uint64; EIP-712 declares it uint256/);
  });

  // Every subset of the five members, listed in types.EIP712Domain and left to the signer's own derivation.
  const subsets = Array.from({ length: 32 }, (_, bits) =>
    EIP712_DOMAIN_FIELDS.map((field) => field.name).filter((_name, index) => (bits >> index) & 1),
  );
  it.each(subsets.map((members) => [members.join(', ') || '(empty domain)', members] as const))(
    'domain %s: the view shows it and the signature recovers under it alone',
    async (_label, members) => {
      for (const listed of [members, undefined]) {
        const payload = mailWithDomain(members, listed);
        const signature = signatureOf(await signRaw(payload, 'PAYLOAD_ENCODING_EIP712'));
        const description = describeSigningRequest({
          operation: 'sign_raw_payload',
          parameters: { signWith: ethereumAddress, payload, encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' },
        });
        const card = (description.details as RawPayloadsDetails).payloads[0]!.typedData!;
        expect(card.domain.map((row) => row.name)).toEqual(members);
        const policyDomain = card.policy.domain as Record<string, unknown>;
        expect(Object.keys(policyDomain).sort()).toEqual(
          members
            .flatMap(
              (name) => ({ name: ['name'], version: ['version'], chainId: ['chain_id'], verifyingContract: ['verifying_contract'], salt: [] })[name]!,
            )
            .sort(),
        );
        const shown = Object.fromEntries(card.domain.map((row) => [row.name, DOMAIN_VALUES[row.name]])) as TypedDataDomain;
        expect(await recoverTypedDataAddress({ ...MAIL, domain: shown, signature })).toBe(ethereumAddress);
        // Under any other domain (one member more or fewer) the same signature names someone else.
        for (const other of EIP712_DOMAIN_FIELDS.map((field) => field.name)) {
          const changed = members.includes(other) ? members.filter((name) => name !== other) : [...members, other];
          const otherDomain = Object.fromEntries(changed.map((name) => [name, DOMAIN_VALUES[name]])) as TypedDataDomain;
          expect(await recoverTypedDataAddress({ ...MAIL, domain: otherDomain, signature })).not.toBe(ethereumAddress);
        }
      }
    },
  );
});

/** POSTs with an empty Content-Type header (fetch would leave it out), as `curl -H 'content-type;'` does. */
function postWithEmptyContentType(
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: { message: string } }> {
  const url = new URL(`${t.info.baseUrl}${path}`);
  return new Promise((resolve, reject) => {
    const sent = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...headers, 'content-type': '' } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as { message: string } }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

describe('finding 5: bad input is a 400 naming the problem, never a 500', () => {
  it('an empty Content-Type header, with and without a stamp', async () => {
    const body = JSON.stringify({ organizationId: t.info.organizationId });
    const { 'content-type': _declared, ...stamp } = await stampedHeaders(body, t.rootKey);
    for (const headers of [stamp, {}]) {
      const reply = await postWithEmptyContentType('/public/v1/query/whoami', body, headers);
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      expect(reply.body.message).toMatch(/the Content-Type header "" is not a media type/);
    }
    expect(t.logs.filter((line) => line.startsWith('internal error'))).toEqual([]);
  });

  it('type names that are Object.prototype members: undefined ones refused, defined ones signed as written', async () => {
    await expectRawRefused(
      JSON.stringify({ ...MAIL, primaryType: 'toString' }),
      'PAYLOAD_ENCODING_EIP712',
      /primaryType "toString" is not among types/,
    );
    for (const name of ['constructor', '__proto__', 'hasOwnProperty']) {
      const document = `{"types":{"Mail":[{"name":"from","type":"${name}"}]},"primaryType":"Mail","domain":{"name":"x"},"message":{"from":{}}}`;
      await expectRawRefused(document, 'PAYLOAD_ENCODING_EIP712', new RegExp(`"${name}" is neither a type in types nor an EIP-712 atomic type`));
    }
    // Own types of those names are ordinary struct types (JSON.parse keeps "__proto__" as an own key).
    const named =
      '{"types":{"toString":[{"name":"constructor","type":"__proto__"}],"__proto__":[{"name":"valueOf","type":"uint8"}]},"primaryType":"toString","domain":{"name":"x"},"message":{"constructor":{"valueOf":7}}}';
    const signature = signatureOf(await signRaw(named, 'PAYLOAD_ENCODING_EIP712'));
    expect(decodeTypedData(named, 'payload').policy.message).toEqual(
      JSON.parse('{"constructor":{"valueOf":7}}', (_key, value: unknown) => (typeof value === 'number' ? BigInt(value) : value)),
    );
    expect(await recoverTypedDataAddress({ ...(JSON.parse(named) as object), signature } as never)).toBe(ethereumAddress);
  });

  it('an EIP-7702 nonce of 2^53 + 1 is signed for its exact value; beyond uint64, or as an imprecise JSON number, refused', async () => {
    const nonce = 2n ** 53n + 1n;
    const authorization = { address: CONTRACT, chainId: 1, nonce: nonce.toString() };
    const signature = signatureOf(await signRaw(JSON.stringify(authorization), 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION'));
    // viem's hash takes the bigint at run time; its types say number, which cannot hold this nonce.
    const exact = { address: CONTRACT, chainId: 1, nonce: nonce as unknown as number };
    expect(await recoverAuthorizationAddress({ authorization: exact, signature })).toBe(ethereumAddress);
    const rounded = { ...exact, nonce: BigInt(Number(nonce)) as unknown as number };
    expect(await recoverAddress({ hash: hashAuthorization(rounded), signature })).not.toBe(ethereumAddress);
    await expectRawRefused(
      JSON.stringify({ ...authorization, nonce: (2n ** 64n).toString() }),
      'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
      /"nonce" 18446744073709551616 does not fit in uint64/,
    );
    await expectRawRefused(
      `{"address":"${CONTRACT}","chainId":1,"nonce":9007199254740993}`,
      'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
      /send it as a decimal string/,
    );
  });

  it(`typed data nested deeper than ${MAX_TYPED_DATA_DEPTH} levels is refused before any recursion`, async () => {
    const nested = (depth: number) => {
      let message = '{"next":[]}';
      for (let level = 0; level < depth; level++) message = `{"next":[${message}]}`;
      return `{"types":{"Node":[{"name":"next","type":"Node[]"}]},"primaryType":"Node","domain":{"name":"x"},"message":${message}}`;
    };
    // The document, message and innermost list levels, then two (a list and a Node) per level of nesting.
    expect(decodeTypedData(nested(Math.floor((MAX_TYPED_DATA_DEPTH - 3) / 2)), 'payload').policy.primary_type).toBe('Node');
    await expectRawRefused(nested(MAX_TYPED_DATA_DEPTH), 'PAYLOAD_ENCODING_EIP712', /nested more than 32 levels deep/);
    await expectRawRefused(nested(2_000), 'PAYLOAD_ENCODING_EIP712', /nested more than 32 levels deep/);
  });

  it('integers outside their declared uintN / intN range, and values of the wrong kind', async () => {
    const withValue = (type: string, value: string) =>
      `{"types":{"Amount":[{"name":"value","type":"${type}"}]},"primaryType":"Amount","domain":{"name":"x"},"message":{"value":${value}}}`;
    await expectRawRefused(withValue('uint8', '256'), 'PAYLOAD_ENCODING_EIP712', /256 is outside the range of uint8 \(0 to 255\)/);
    await expectRawRefused(withValue('int8', '"-129"'), 'PAYLOAD_ENCODING_EIP712', /-129 is outside the range of int8 \(-128 to 127\)/);
    await expectRawRefused(withValue('uint256', `"${2n ** 256n}"`), 'PAYLOAD_ENCODING_EIP712', /is outside the range of uint256/);
    await expectRawRefused(
      withValue('uint256', `"${'9'.repeat(200_000)}"`),
      'PAYLOAD_ENCODING_EIP712',
      /a 200000-character integer is too long for uint256/,
    );
    await expectRawRefused(
      `{"address":"${CONTRACT}","chainId":"${'1'.repeat(200_000)}","nonce":0}`,
      'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
      /"chainId" must be a non-negative integer of at most 80 characters/,
    );
    await expectRawRefused(withValue('uint256', '"1e80"'), 'PAYLOAD_ENCODING_EIP712', /"1e80" is not an integer \(uint256/);
    await expectRawRefused(withValue('uint256', '1.5'), 'PAYLOAD_ENCODING_EIP712', /1.5 is not an integer/);
    // A string member given a number would be hashed as bytes but shown as text.
    await expectRawRefused(withValue('string', '5'), 'PAYLOAD_ENCODING_EIP712', /5 is not a string/);
    await expectRawRefused(withValue('bool', '"false"'), 'PAYLOAD_ENCODING_EIP712', /"false" is not true or false/);
    const signature = signatureOf(await signRaw(withValue('int8', '"-128"'), 'PAYLOAD_ENCODING_EIP712'));
    const definition = {
      types: { Amount: [{ name: 'value', type: 'int8' }] },
      primaryType: 'Amount',
      domain: { name: 'x' },
      message: { value: -128 },
    } as const;
    expect(await recoverAddress({ hash: hashTypedData(definition), signature })).toBe(ethereumAddress);
  });
});

describe('finding 6: a PSBT input asking for sighash NONE, SINGLE or ANYONECANPAY is a 400, nothing recorded', () => {
  const psbtSpending = (address: string, fields: { sighashType?: number | undefined }) => {
    const psbt = new BitcoinTransaction({ allowLegacyWitnessUtxo: true });
    const script = OutScript.encode(Address(NETWORK).decode(address));
    psbt.addInput({
      txid: '22'.repeat(32),
      index: 0,
      witnessUtxo: { script, amount: 10_000n },
      ...(fields.sighashType === undefined ? {} : { sighashType: fields.sighashType }),
    });
    psbt.addOutputAddress(bitcoinAddress, 9_000n, NETWORK);
    return Buffer.from(psbt.toPSBT()).toString('hex');
  };
  const signPsbt = (signWith: string, unsignedTransaction: string) =>
    t.client().signTransaction({
      ...t.nextEnvelope('ACTIVITY_TYPE_SIGN_TRANSACTION_V2'),
      parameters: { signWith, unsignedTransaction, type: 'TRANSACTION_TYPE_BITCOIN' },
    });

  it.each([
    ['NONE', SigHash.NONE],
    ['SINGLE', SigHash.SINGLE],
    ['ALL_ANYONECANPAY', SigHash.ALL_ANYONECANPAY],
    ['NONE_ANYONECANPAY', SigHash.NONE_ANYONECANPAY],
    ['SINGLE_ANYONECANPAY', SigHash.SINGLE_ANYONECANPAY],
  ])('sighash %s', async (name, sighashType) => {
    const before = recordedRows(t);
    const error = await clientRefusal(signPsbt(bitcoinAddress, psbtSpending(bitcoinAddress, { sighashType })));
    expect(error.code, error.message).toBe(3);
    expect(error.message).toContain(`PSBT input 0 asks for sighash ${name}; only ALL is signed`);
    expect(recordedRows(t)).toBe(before);
  });

  it('SIGHASH_ALL, said or left out, is signed; a P2PKH input without its previous transaction is a 400', async () => {
    for (const sighashType of [undefined, SigHash.ALL]) {
      const reply = await signPsbt(bitcoinAddress, psbtSpending(bitcoinAddress, { sighashType }));
      expect(reply.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    }
    const before = recordedRows(t);
    const error = await clientRefusal(signPsbt(legacyBitcoinAddress, psbtSpending(legacyBitcoinAddress, {})));
    expect(error.message).toContain('PSBT input 0 spends a P2PKH output; include the whole previous transaction');
    expect(recordedRows(t)).toBe(before);
  });
});

describe('finding 7: an explicit deny answers Turnkey’s message', () => {
  it('policy engine denied request explicitly, with the evaluations in the details', async () => {
    const blocked = JSON.stringify({
      ...MAIL,
      primaryType: 'Blocked',
      types: { ...MAIL.types, Blocked: [{ name: 'note', type: 'string' }] },
      message: { note: 'x' },
    });
    const before = recordedRows(t);
    const error = await clientRefusal(
      t.client(signer.key).signRawPayload({
        ...t.nextEnvelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'),
        parameters: { signWith: ethereumAddress, payload: blocked, encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' },
      }),
    );
    expect(error.code).toBe(7);
    expect(error.message).toMatch(/^Turnkey error 7: policy engine denied request explicitly \(Details: /);
    const details = error.details as { '@type': string; policyEvaluations?: { outcome: string }[] }[];
    expect(
      details.find((detail) => detail['@type'].endsWith('PolicyEnginePermissionError'))?.policyEvaluations?.map((evaluation) => evaluation.outcome),
    ).toContain('OUTCOME_DENY_EXPLICIT');
    expect(recordedRows(t)).toBe(before);
  });
});
