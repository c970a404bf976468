/**
 * Seeded garbage for every signing input the decoders read (transactions of each type, typed data, authorizations,
 * PSBT-like bytes): the service answers a 4xx naming the problem, never a 5xx, and records nothing.
 */
import { serializeTransaction } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAIL } from '../../support/eip712-mail';
import { startTestService, type TestService } from '../../support/service';
import { recordedRows } from './recorded';
import { prng } from '../../support/random';

const ROUNDS = 150;

let t: TestService;
let ethereum: string;
let solana: string;
let bitcoin: string;

beforeAll(async () => {
  t = await startTestService();
  const reply = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', {
    walletName: 'garbage',
    accounts: [
      { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
      { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' },
      { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/84'/0'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH' },
    ],
  });
  [ethereum, solana, bitcoin] = reply.body.activity.result.createWalletResult.addresses;
});
afterAll(() => t.close());

it('mutated transactions, typed data and authorizations: a specific 4xx each, never a 5xx, nothing recorded', async () => {
  const random = prng(0x5151);
  const byte = () => Math.floor(random() * 256);
  const validEthereum = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 1,
    to: ethereum as `0x${string}`,
    value: 1n,
    gas: 21000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
  }).slice(2);
  /** A valid body with a few bytes flipped, cut short or extended. */
  function mutate(hex: string): string {
    const bytes = Buffer.from(hex, 'hex');
    const choice = random();
    if (choice < 0.4) {
      for (let count = 0; count < 1 + Math.floor(random() * 3); count++) bytes[Math.floor(random() * bytes.length)] = byte();
      return bytes.toString('hex');
    }
    if (choice < 0.7) return bytes.subarray(0, Math.floor(random() * bytes.length)).toString('hex');
    return Buffer.concat([bytes, Buffer.from(Array.from({ length: 1 + Math.floor(random() * 8) }, byte))]).toString('hex');
  }
  const randomHex = () => Buffer.from(Array.from({ length: Math.floor(random() * 200) }, byte)).toString('hex');
  const mailVariant = () => {
    const document = JSON.parse(JSON.stringify(MAIL)) as Record<string, Record<string, unknown>>;
    const section = (['types', 'domain', 'message'] as const)[Math.floor(random() * 3)]!;
    const keys = Object.keys(document[section]!);
    document[section]![keys[Math.floor(random() * keys.length)]!] = [null, 7, 'x', [], {}, true][Math.floor(random() * 6)];
    return JSON.stringify(document);
  };

  const before = recordedRows(t);
  const statuses = new Map<number, number>();
  for (let round = 0; round < ROUNDS; round++) {
    t.clock.advance(1);
    const kind = Math.floor(random() * 5);
    const reply =
      kind === 0
        ? await t.submit('sign_transaction', 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', {
            signWith: ethereum,
            unsignedTransaction: mutate(validEthereum),
            type: 'TRANSACTION_TYPE_ETHEREUM',
          })
        : kind === 1
          ? await t.submit('sign_transaction', 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', {
              signWith: solana,
              unsignedTransaction: randomHex(),
              type: 'TRANSACTION_TYPE_SOLANA',
            })
          : kind === 2
            ? await t.submit('sign_transaction', 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', {
                signWith: bitcoin,
                unsignedTransaction: `70736274ff${randomHex()}`,
                type: 'TRANSACTION_TYPE_BITCOIN',
              })
            : kind === 3
              ? await t.submit('sign_raw_payload', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
                  signWith: ethereum,
                  payload: mailVariant(),
                  encoding: 'PAYLOAD_ENCODING_EIP712',
                  hashFunction: 'HASH_FUNCTION_NO_OP',
                })
              : await t.submit('sign_raw_payload', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
                  signWith: ethereum,
                  payload: JSON.stringify({
                    address: random() < 0.5 ? ethereum : randomHex(),
                    chainId: random() < 0.5 ? 1 : 'x',
                    nonce: Math.floor(random() * 3) - 1,
                  }),
                  encoding: 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
                  hashFunction: 'HASH_FUNCTION_NO_OP',
                });
    statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(500);
    if (reply.status === 200) {
      // A mutation can still be a valid request; then it is signed and completes, never FAILED.
      expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    } else {
      expect(reply.body.message.length).toBeGreaterThan(10);
    }
  }
  // Each completed request wrote its activity and the proposer's vote; the refused ones wrote nothing.
  expect(recordedRows(t)).toBe(before + 2 * (statuses.get(200) ?? 0));
  expect(statuses.get(400) ?? 0).toBeGreaterThan(ROUNDS / 2);
});
