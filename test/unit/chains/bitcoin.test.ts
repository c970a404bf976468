import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, createBase58check, hex } from '@scure/base';
import { Address, NETWORK, OutScript, SigHash, Transaction } from '@scure/btc-signer';
import { addressFor } from '../../../src/service/enclave/addresses.js';
import { describe, expect, it } from 'vitest';
import { createKeyDeriver } from '../../../src/service/enclave/derivation.js';
import { mnemonicToSeed } from '../../../src/service/enclave/mnemonic.js';
import { signBitcoinPsbt } from '../../../src/service/enclave/sign-bitcoin.js';
import { decodeBitcoinPsbt, readPsbt } from '../../../src/shared/chains/bitcoin.js';
import { expectQkError, itemAt } from '../../support/assertions';

// ---- BIP-174 test vectors (bitcoin/bips bip-0174.mediawiki, "Test Vectors") ----

/** Valid: "PSBT with one P2PKH input. Outputs are empty". */
const BIP174_P2PKH_INPUT =
  '70736274ff0100750200000001268171371edff285e937adeea4b37b78000c0566cbb3ad64641713ca42171bf60000000000feffffff02d3dff505000000001976a914d0c59903c5bac2868760e90fd521a4665aa7652088ac00e1f5050000000017a9143545e6e33b832c47050f24d3eeb93c9c03948bc787b32e1300000100fda5010100000000010289a3c71eab4d20e0371bbba4cc698fa295c9463afa2e397f8533ccb62f9567e50100000017160014be18d152a9b012039daf3da7de4f53349eecb985ffffffff86f8aa43a71dff1448893a530a7237ef6b4608bbb2dd2d0171e63aec6a4890b40100000017160014fe3e9ef1a745e974d902c4355943abcb34bd5353ffffffff0200c2eb0b000000001976a91485cff1097fd9e008bb34af709c62197b38978a4888ac72fef84e2c00000017a914339725ba21efd62ac753a9bcd067d6c7a6a39d05870247304402202712be22e0270f394f568311dc7ca9a68970b8025fdd3b240229f07f8a5f3a240220018b38d7dcd314e734c9276bd6fb40f673325bc4baa144c800d2f2f02db2765c012103d2e15674941bad4a996372cb87e1856d3652606d98562fe39c5e9e7e413f210502483045022100d12b852d85dcd961d2f5f4ab660654df6eedcc794c0c33ce5cc309ffb5fce58d022067338a8e0e1725c197fb1a88af59f51e44e4255b20167c8684031c05d1f2592a01210223b72beef0965d10be0778efecd61fcac6f79a4ea169393380734464f84f2ab300000000000000';

/** Valid: "PSBT with one P2WSH input of a 2-of-2 multisig. witnessScript, keypaths, and global xpubs are available" (testnet). */
const BIP174_P2WSH_TESTNET =
  '70736274ff01005202000000019dfc6628c26c5899fe1bd3dc338665bfd55d7ada10f6220973df2d386dec12760100000000ffffffff01f03dcd1d000000001600147b3a00bfdc14d27795c2b74901d09da6ef133579000000004f01043587cf02da3fd0088000000097048b1ad0445b1ec8275517727c87b4e4ebc18a203ffa0f94c01566bd38e9000351b743887ee1d40dc32a6043724f2d6459b3b5a4d73daec8fbae0472f3bc43e20cd90c6a4fae000080000000804f01043587cf02da3fd00880000001b90452427139cd78c2cff2444be353cd58605e3e513285e528b407fae3f6173503d30a5e97c8adbc557dac2ad9a7e39c1722ebac69e668b6f2667cc1d671c83cab0cd90c6a4fae000080010000800001012b0065cd1d000000002200202c5486126c4978079a814e13715d65f36459e4d6ccaded266d0508645bafa6320105475221029da12cdb5b235692b91536afefe5c91c3ab9473d8e43b533836ab456299c88712103372b34234ed7cf9c1fea5d05d441557927be9542b162eb02e1ab2ce80224c00b52ae2206029da12cdb5b235692b91536afefe5c91c3ab9473d8e43b533836ab456299c887110d90c6a4fae0000800000008000000000220603372b34234ed7cf9c1fea5d05d441557927be9542b162eb02e1ab2ce80224c00b10d90c6a4fae0000800100008000000000002202039eff1f547a1d5f92dfa2ba7af6ac971a4bd03ba4a734b03156a256b8ad3a1ef910ede45cc500000080000000800100008000';

/** Valid: "PSBT with unknown types in the inputs" (an OP_RETURN output, no spent-output data). */
const BIP174_UNKNOWN_TYPES =
  '70736274ff01003f0200000001ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff0000000000ffffffff010000000000000000036a010000000000000af00102030405060708090f0102030405060708090a0b0c0d0e0f0000';

/** Invalid vectors from the same section. */
const BIP174_INVALID: [string, string][] = [
  [
    'PSBT missing outputs',
    '70736274ff0100750200000001268171371edff285e937adeea4b37b78000c0566cbb3ad64641713ca42171bf60000000000feffffff02d3dff505000000001976a914d0c59903c5bac2868760e90fd521a4665aa7652088ac00e1f5050000000017a9143545e6e33b832c47050f24d3eeb93c9c03948bc787b32e1300000100fda5010100000000010289a3c71eab4d20e0371bbba4cc698fa295c9463afa2e397f8533ccb62f9567e50100000017160014be18d152a9b012039daf3da7de4f53349eecb985ffffffff86f8aa43a71dff1448893a530a7237ef6b4608bbb2dd2d0171e63aec6a4890b40100000017160014fe3e9ef1a745e974d902c4355943abcb34bd5353ffffffff0200c2eb0b000000001976a91485cff1097fd9e008bb34af709c62197b38978a4888ac72fef84e2c00000017a914339725ba21efd62ac753a9bcd067d6c7a6a39d05870247304402202712be22e0270f394f568311dc7ca9a68970b8025fdd3b240229f07f8a5f3a240220018b38d7dcd314e734c9276bd6fb40f673325bc4baa144c800d2f2f02db2765c012103d2e15674941bad4a996372cb87e1856d3652606d98562fe39c5e9e7e413f210502483045022100d12b852d85dcd961d2f5f4ab660654df6eedcc794c0c33ce5cc309ffb5fce58d022067338a8e0e1725c197fb1a88af59f51e44e4255b20167c8684031c05d1f2592a01210223b72beef0965d10be0778efecd61fcac6f79a4ea169393380734464f84f2ab30000000000',
  ],
  [
    'PSBT with duplicate keys in an input',
    '70736274ff0100750200000001268171371edff285e937adeea4b37b78000c0566cbb3ad64641713ca42171bf60000000000feffffff02d3dff505000000001976a914d0c59903c5bac2868760e90fd521a4665aa7652088ac00e1f5050000000017a9143545e6e33b832c47050f24d3eeb93c9c03948bc787b32e1300000100fda5010100000000010289a3c71eab4d20e0371bbba4cc698fa295c9463afa2e397f8533ccb62f9567e50100000017160014be18d152a9b012039daf3da7de4f53349eecb985ffffffff86f8aa43a71dff1448893a530a7237ef6b4608bbb2dd2d0171e63aec6a4890b40100000017160014fe3e9ef1a745e974d902c4355943abcb34bd5353ffffffff0200c2eb0b000000001976a91485cff1097fd9e008bb34af709c62197b38978a4888ac72fef84e2c00000017a914339725ba21efd62ac753a9bcd067d6c7a6a39d05870247304402202712be22e0270f394f568311dc7ca9a68970b8025fdd3b240229f07f8a5f3a240220018b38d7dcd314e734c9276bd6fb40f673325bc4baa144c800d2f2f02db2765c012103d2e15674941bad4a996372cb87e1856d3652606d98562fe39c5e9e7e413f210502483045022100d12b852d85dcd961d2f5f4ab660654df6eedcc794c0c33ce5cc309ffb5fce58d022067338a8e0e1725c197fb1a88af59f51e44e4255b20167c8684031c05d1f2592a01210223b72beef0965d10be0778efecd61fcac6f79a4ea169393380734464f84f2ab30000000001003f0200000001ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff0000000000ffffffff010000000000000000036a010000000000000000',
  ],
  [
    'PSBT with invalid global transaction typed key',
    '70736274ff020001550200000001279a2323a5dfb51fc45f220fa58b0fc13e1e3342792a85d7e36cd6333b5cbc390000000000ffffffff01a05aea0b000000001976a914ffe9c0061097cc3b636f2cb0460fa4fc427d2b4588ac0000000000010120955eea0b0000000017a9146345200f68d189e1adc0df1c4d16ea8f14c0dbeb87220203b1341ccba7683b6af4f1238cd6e97e7167d569fac47f1e48d47541844355bd4646304302200424b58effaaa694e1559ea5c93bbfd4a89064224055cdf070b6771469442d07021f5c8eb0fea6516d60b8acb33ad64ede60e8785bfb3aa94b99bdf86151db9a9a010104220020771fd18ad459666dd49f3d564e3dbc42f4c84774e360ada16816a8ed488d5681010547522103b1341ccba7683b6af4f1238cd6e97e7167d569fac47f1e48d47541844355bd462103de55d1e1dac805e3f8a58c1fbf9b94c02f3dbaafe127fefca4995f26f82083bd52ae220603b1341ccba7683b6af4f1238cd6e97e7167d569fac47f1e48d47541844355bd4610b4a6ba67000000800000008004000080220603de55d1e1dac805e3f8a58c1fbf9b94c02f3dbaafe127fefca4995f26f82083bd10b4a6ba670000008000000080050000800000',
  ],
];

// ---- BIP-143 examples (bitcoin/bips bip-0143.mediawiki, "Example") ----

const BIP143_NATIVE_P2WPKH = {
  unsignedTx:
    '0100000002fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f0000000000eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac11000000',
  script: '00141d0f172a0ecb48aee1be1f2687d2963ae33f71a1',
  privateKey: '619c335025c7f4012e556c2a58b2506e30b8511b53ade95ea316fd8c3286feb9',
  publicKey: '025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee6357',
  signature:
    '304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee01',
};

const BIP143_P2SH_P2WPKH = {
  unsignedTx:
    '0100000001db6b1b20aa0fd7b23880be2ecbd4a98130974cf4748fb66092ac4d3ceb1a54770100000000feffffff02b8b4eb0b000000001976a914a457b684d7f0d539a46a45bbc043f35b59d0d96388ac0008af2f000000001976a914fd270b1ee6abcaea97fea7ad0402e8bd8ad6d77c88ac92040000',
  script: 'a9144733f37cf4db86fbc2efed2500b4f4e49f31202387',
  redeemScript: '001479091972186c449eb1ded22b78e40d009bdf0089',
  privateKey: 'eb696a065ef48a2192da5b28b694f87544b30fae8327c4510137a922f32c6dcf',
  publicKey: '03ad1d8e89212f0b92c74d23bb710c00662ad1470198ac48c43f7d6f93a2a26873',
  signature:
    '3044022047ac8e878352d3ebbde1c94ce3a10d057c24175747116f8288e5d794d12d482f0220217f36a485cae903c713331d877c1f64677e3622ad4010726870540656fe9dcb01',
};

/** BIP-86 test vector: "abandon … about", m/86'/0'/0'/0/0. */
const BIP86_FIRST_RECEIVE = {
  path: "m/86'/0'/0'/0/0",
  outputKey: 'a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c',
  address: 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
};
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

const base58check = createBase58check(sha256);

/** A PSBT around an unsigned transaction, with the given spent-output data per input. */
function psbtOf(unsignedTx: string, updates: Record<number, Parameters<Transaction['updateInput']>[1]>): Uint8Array {
  const transaction = Transaction.fromRaw(hex.decode(unsignedTx), { allowUnknownOutputs: true });
  for (const [index, update] of Object.entries(updates)) transaction.updateInput(Number(index), update);
  return transaction.toPSBT();
}

describe('decodeBitcoinPsbt on BIP-174 vectors', () => {
  it('reads the P2PKH-input PSBT: outpoint, previous output, outputs, locktime, fee', () => {
    const { policy } = decodeBitcoinPsbt(hex.decode(BIP174_P2PKH_INPUT));
    expect(policy.version).toBe(2n);
    // The unsigned tx names its input in wire order (26 81 71 …); the id is shown reversed.
    expect(policy.inputs).toEqual([
      {
        tx_id: 'f61b1742ca13176464adb3cb66050c00787bb3a4eead37e985f2df1e37718126',
        vout: 0n,
        sequence: 0xfffffffen,
        value: 200_000_000n,
        script_pubkey: '76a91485cff1097fd9e008bb34af709c62197b38978a4888ac',
        address: base58check.encode(hex.decode('0085cff1097fd9e008bb34af709c62197b38978a48')),
        address_type: 'P2PKH',
      },
    ]);
    expect(policy.outputs).toEqual([
      {
        value: 99_999_699n,
        script_pubkey: '76a914d0c59903c5bac2868760e90fd521a4665aa7652088ac',
        address: base58check.encode(hex.decode('00d0c59903c5bac2868760e90fd521a4665aa76520')),
        address_type: 'P2PKH',
      },
      {
        value: 100_000_000n,
        script_pubkey: 'a9143545e6e33b832c47050f24d3eeb93c9c03948bc787',
        address: base58check.encode(hex.decode('053545e6e33b832c47050f24d3eeb93c9c03948bc7')),
        address_type: 'P2SH',
      },
    ]);
    expect(policy.locktime).toEqual({ amount: 1_257_139n, type: 'BLOCK_HEIGHT' });
    expect(policy.fee).toBe(200_000_000n - 99_999_699n - 100_000_000n);
  });

  it('reads the P2WSH testnet PSBT with testnet addresses', () => {
    const { policy } = decodeBitcoinPsbt(hex.decode(BIP174_P2WSH_TESTNET), 'testnet');
    const witnessAddress = (program: string) => bech32.encode('tb', [0, ...bech32.toWords(hex.decode(program))]);
    expect(policy.inputs[0]).toMatchObject({
      vout: 1n,
      value: 500_000_000n,
      address: witnessAddress('2c5486126c4978079a814e13715d65f36459e4d6ccaded266d0508645bafa632'),
      address_type: 'P2WSH',
    });
    expect(policy.outputs).toEqual([
      {
        value: 499_990_000n,
        script_pubkey: '00147b3a00bfdc14d27795c2b74901d09da6ef133579',
        address: witnessAddress('7b3a00bfdc14d27795c2b74901d09da6ef133579'),
        address_type: 'P2WPKH',
      },
    ]);
    expect(policy.fee).toBe(10_000n);
  });

  it('reads an OP_RETURN output without an address, and leaves the fee out when an input value is unknown', () => {
    const { policy } = decodeBitcoinPsbt(hex.decode(BIP174_UNKNOWN_TYPES));
    expect(policy.outputs).toEqual([{ value: 0n, script_pubkey: '6a0100', address_type: 'OP_RETURN' }]);
    expect(policy.inputs[0]).toEqual({ tx_id: 'ff'.repeat(32), vout: 0n, sequence: 0xffffffffn });
    expect(policy.fee).toBeUndefined();
  });

  it.each(BIP174_INVALID)('refuses the invalid vector "%s"', (_name, vector) => {
    expectQkError(() => decodeBitcoinPsbt(hex.decode(vector)), 'ENCODING_INVALID', /not a valid PSBT/);
  });

  it('refuses empty, truncated and non-PSBT bytes', () => {
    expectQkError(() => decodeBitcoinPsbt(new Uint8Array()), 'ENCODING_INVALID', /empty/);
    const truncated = hex.decode(BIP174_P2PKH_INPUT).subarray(0, 100);
    expectQkError(() => decodeBitcoinPsbt(truncated), 'ENCODING_INVALID', /not a valid PSBT/);
    expectQkError(() => decodeBitcoinPsbt(hex.decode(BIP143_NATIVE_P2WPKH.unsignedTx)), 'ENCODING_INVALID', /not a valid PSBT/);
  });
});

describe('signBitcoinPsbt', () => {
  it('signs the BIP-143 native P2WPKH input with the published signature, leaving the other input alone', () => {
    // Input 0 (someone else's P2PK) carries no spent-output data, so nothing says it is ours.
    const psbt = psbtOf(BIP143_NATIVE_P2WPKH.unsignedTx, {
      1: { witnessUtxo: { script: hex.decode(BIP143_NATIVE_P2WPKH.script), amount: 600_000_000n } },
    });
    const result = signBitcoinPsbt(psbt, hex.decode(BIP143_NATIVE_P2WPKH.privateKey));
    expect(result.signedInputs).toEqual([1]);
    const signed = readPsbt(result.psbt);
    expect(signed.getInput(0).partialSig).toBeUndefined();
    const [publicKey, signature] = itemAt(signed.getInput(1).partialSig ?? [], 0);
    expect(hex.encode(publicKey)).toBe(BIP143_NATIVE_P2WPKH.publicKey);
    expect(hex.encode(signature)).toBe(BIP143_NATIVE_P2WPKH.signature);
    // Not finalized: the caller finalizes, as with Turnkey.
    expect(signed.getInput(1).finalScriptWitness).toBeUndefined();
  });

  it('signs the BIP-143 P2SH-P2WPKH input with the published signature, adding the redeem script', () => {
    const psbt = psbtOf(BIP143_P2SH_P2WPKH.unsignedTx, {
      0: { witnessUtxo: { script: hex.decode(BIP143_P2SH_P2WPKH.script), amount: 1_000_000_000n } },
    });
    const result = signBitcoinPsbt(psbt, hex.decode(BIP143_P2SH_P2WPKH.privateKey));
    const signed = readPsbt(result.psbt).getInput(0);
    expect(hex.encode(signed.redeemScript!)).toBe(BIP143_P2SH_P2WPKH.redeemScript);
    const [publicKey, signature] = itemAt(signed.partialSig ?? [], 0);
    expect(hex.encode(publicKey)).toBe(BIP143_P2SH_P2WPKH.publicKey);
    expect(hex.encode(signature)).toBe(BIP143_P2SH_P2WPKH.signature);
  });

  async function bip86Key(): Promise<Uint8Array> {
    const deriver = createKeyDeriver({ seed: await mnemonicToSeed(ABANDON), curve: 'CURVE_SECP256K1' });
    try {
      return deriver.derive(BIP86_FIRST_RECEIVE.path).privateKey;
    } finally {
      deriver.wipe();
    }
  }

  function taprootSpend(): { psbt: Uint8Array; script: Uint8Array; amount: bigint } {
    const script = hex.decode(`5120${BIP86_FIRST_RECEIVE.outputKey}`);
    const amount = 50_000n;
    const transaction = new Transaction();
    transaction.addInput({ txid: new Uint8Array(32).fill(7), index: 1, witnessUtxo: { script, amount } });
    transaction.addOutputAddress(BIP86_FIRST_RECEIVE.address, 49_000n);
    return { psbt: transaction.toPSBT(), script, amount };
  }

  it('signs a P2TR key-path input of the BIP-86 account with a Schnorr signature under the tweaked key', async () => {
    const { psbt, script, amount } = taprootSpend();
    const result = signBitcoinPsbt(psbt, await bip86Key(), { address: BIP86_FIRST_RECEIVE.address });
    expect(result.signedInputs).toEqual([0]);
    const signed = readPsbt(result.psbt);
    const signature = signed.getInput(0).tapKeySig;
    expect(signature?.length).toBe(64);
    const sighash = signed.preimageWitnessV1(0, [script], SigHash.DEFAULT, [amount]);
    expect(schnorr.verify(signature!, sighash, hex.decode(BIP86_FIRST_RECEIVE.outputKey))).toBe(true);
    signed.finalize();
    expect(signed.extract().length).toBeGreaterThan(0);
  });

  it('signs a P2WSH input of the wallet P2WSH address (1-of-1 multisig), adding the witness script', async () => {
    const deriver = createKeyDeriver({ seed: await mnemonicToSeed(ABANDON), curve: 'CURVE_SECP256K1' });
    const key = deriver.derive("m/48'/0'/0'/2'/0/0");
    deriver.wipe();
    const address = addressFor({
      curve: 'CURVE_SECP256K1',
      publicKey: key.publicKey,
      format: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH',
    });
    const transaction = new Transaction();
    const amount = 80_000n;
    const script = OutScript.encode(Address(NETWORK).decode(address));
    transaction.addInput({ txid: new Uint8Array(32).fill(3), index: 0, witnessUtxo: { script, amount } });
    transaction.addOutputAddress(BIP86_FIRST_RECEIVE.address, 79_000n);

    const result = signBitcoinPsbt(transaction.toPSBT(), key.privateKey, { address });
    const signed = readPsbt(result.psbt);
    const witnessScript = signed.getInput(0).witnessScript!;
    expect(hex.encode(witnessScript)).toBe(`5121${hex.encode(key.publicKey)}51ae`);
    const [publicKey, signature] = itemAt(signed.getInput(0).partialSig ?? [], 0);
    expect(publicKey).toEqual(key.publicKey);
    const sighash = signed.preimageWitnessV0(0, witnessScript, SigHash.ALL, amount);
    expect(secp256k1.verify(signature.subarray(0, -1), sighash, key.publicKey, { prehash: false, format: 'der' })).toBe(true);
    signed.finalize();
    expect(signed.extract().length).toBeGreaterThan(0);
  });

  it('refuses a PSBT with no input of ours, and an address filter that matches no input', async () => {
    const stranger = hex.decode('11'.repeat(32));
    const { psbt } = taprootSpend();
    expectQkError(() => signBitcoinPsbt(psbt, stranger), 'REQUEST_INVALID', /no input this key can sign/);

    const key = await bip86Key();
    const p2wpkhAddress = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
    expectQkError(() => signBitcoinPsbt(psbt, key, { address: p2wpkhAddress }), 'KEY_INVALID', /does not belong to the signing key/);
    expectQkError(() => signBitcoinPsbt(psbt, key, { address: 'not-an-address' }), 'ADDRESS_FORMAT_INVALID', /not a Bitcoin mainnet address/);
  });

  it('refuses a bad PSBT before signing anything', () => {
    expectQkError(
      () => signBitcoinPsbt(hex.decode(BIP174_INVALID[0]![1]), hex.decode(BIP143_NATIVE_P2WPKH.privateKey)),
      'ENCODING_INVALID',
      /not a valid PSBT/,
    );
  });
});
