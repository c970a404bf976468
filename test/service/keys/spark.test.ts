/**
 * spark_prepare_lightning_receive over HTTP with Turnkey's client; the operators' side is eciesjs: each decrypts its
 * package, checks its share against the Feldman commitments, and a threshold of them rebuilds the preimage.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { TurnkeyClient } from '@turnkey/http';
import { decrypt as eciesDecrypt } from 'eciesjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSecretShare, reconstructSecret, verifyShare } from '../../../src/service/enclave/spark';
import { startTestService, type TestService } from '../../support/service';

let t: TestService;
let client: TurnkeyClient;
let sparkAddress: string;
let ethereumAddress: string;

beforeAll(async () => {
  t = await startTestService();
  client = t.client();
  const { activity } = await client.createWallet({
    type: 'ACTIVITY_TYPE_CREATE_WALLET',
    timestampMs: String(t.clock.now()),
    organizationId: t.info.organizationId,
    parameters: {
      walletName: 'spark',
      accounts: [
        { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/86'/1'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_SPARK_REGTEST' },
        { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
      ],
    },
  });
  [sparkAddress, ethereumAddress] = activity.result.createWalletResult!.addresses as [string, string];
});
afterAll(() => t.close());

function operators(count: number) {
  return Array.from({ length: count }, (_, index) => {
    const secretKey = secp256k1.utils.randomSecretKey();
    return {
      operatorId: `00000000-0000-4000-8000-00000000000${index}`,
      secretKey,
      encryptionPublicKey: bytesToHex(secp256k1.getPublicKey(secretKey, true)),
    };
  });
}

const submit = (signWith: string, threshold: number, recipients: { operatorId: string; encryptionPublicKey: string }[]) =>
  t.submit('spark_prepare_lightning_receive', 'ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE', {
    signWith,
    lightningReceive: { threshold, operatorRecipients: recipients },
  });

describe('spark_prepare_lightning_receive', () => {
  it('shares a fresh preimage to the operators; any threshold of them rebuilds the preimage of paymentHash', async () => {
    const ops = operators(3);
    const { activity } = await client.sparkPrepareLightningReceive({
      type: 'ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE',
      timestampMs: String(t.clock.now()),
      organizationId: t.info.organizationId,
      parameters: {
        signWith: sparkAddress,
        lightningReceive: {
          threshold: 2,
          operatorRecipients: ops.map(({ operatorId, encryptionPublicKey }) => ({ operatorId, encryptionPublicKey })),
        },
      },
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const result = activity.result.sparkPrepareLightningReceiveResult!;
    expect(result.operatorPackages.map((entry) => entry.operatorId)).toEqual(ops.map((op) => op.operatorId));
    const shares = result.operatorPackages.map((entry, position) => {
      const decoded = decodeSecretShare(eciesDecrypt(ops[position]!.secretKey, Buffer.from(entry.encryptedPackage, 'hex')));
      expect(verifyShare(decoded.share, decoded.proofs, position + 1)).toBe(true);
      return { index: position + 1, share: decoded.share };
    });
    expect(bytesToHex(sha256(reconstructSecret([shares[0]!, shares[2]!])))).toBe(result.paymentHash);
    expect(bytesToHex(sha256(reconstructSecret([shares[1]!])))).not.toBe(result.paymentHash);
    expect(JSON.stringify(activity)).not.toContain(bytesToHex(reconstructSecret([shares[0]!, shares[1]!])));
  });

  it('refuses an address that is not a Spark account of the organization', async () => {
    const recipients = operators(2).map(({ operatorId, encryptionPublicKey }) => ({ operatorId, encryptionPublicKey }));
    const ethereum = await submit(ethereumAddress, 2, recipients);
    expect(ethereum.status).toBe(400);
    expect(ethereum.body.message).toMatch(/Spark account/);
    expect((await submit('sparkrt1unknown', 2, recipients)).status).toBe(404);
  });

  it('refuses a bad threshold or operator list with 400 before anything is recorded', async () => {
    const before = await t.activityCount();
    const [first, second] = operators(2).map(({ operatorId, encryptionPublicKey }) => ({ operatorId, encryptionPublicKey })) as [
      { operatorId: string; encryptionPublicKey: string },
      { operatorId: string; encryptionPublicKey: string },
    ];
    const refusals: [number, { operatorId: string; encryptionPublicKey: string }[], RegExp][] = [
      [1, [first, second], /threshold must be an integer of at least 2/],
      [3, [first, second], /threshold 3 exceeds the 2 operatorRecipients/],
      [2, [], /at least two operators/],
      [2, [first, { ...second, operatorId: first.operatorId }], /operatorRecipients\[1\]\.operatorId .* repeats operatorRecipients\[0\]/],
      [2, [first, { ...second, operatorId: 'operator-2' }], /operatorRecipients\[1\]\.operatorId must be a UUID/],
      [
        2,
        [first, { ...second, encryptionPublicKey: '04' + 'ab'.repeat(32) }],
        /operatorRecipients\[1\]\.encryptionPublicKey must be a hex compressed secp256k1 point/,
      ],
    ];
    for (const [threshold, recipients, message] of refusals) {
      const refused = await submit(sparkAddress, threshold, recipients);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.message).toMatch(message);
    }
    expect(await t.activityCount()).toBe(before);
  });
});
