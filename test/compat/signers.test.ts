/**
 * Turnkey's official signers, unchanged, against a started service: every signature they get back verifies with an
 * independent library (viem, ethers, web3.js, noble, @scure/btc-signer) against the key the service holds.
 */
import { p256 } from '@noble/curves/nist.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Address, NETWORK, OutScript, SigHash, Transaction as BitcoinTransaction, p2pkh } from '@scure/btc-signer';
import { PublicKey, SystemProgram, Transaction as SolanaTransaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { TurnkeySigner as EthersSigner } from '@turnkey/ethers';
import type { TurnkeyClient } from '@turnkey/http';
import { TurnkeySigner as SolanaSigner } from '@turnkey/solana';
import { createAccount } from '@turnkey/viem';
import { getAddress, hashTypedData, parseGwei, recoverTransactionAddress, serializeTransaction } from 'viem';
import { recoverAuthorizationAddress } from 'viem/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';
import { recordedRows } from '../service/signing/recorded';
import { itemAt } from '../support/assertions';
import { MAIL } from '../support/eip712-mail';
import {
  ETHEREUM_ACCOUNT,
  SOLANA_ACCOUNT,
  SOLANA_BLOCKHASH,
  SOLANA_RECIPIENT,
  expectEthersSignerSigns,
  expectSolanaFullySigned,
  expectSolanaSignature,
  expectViemAccountSigns,
  solanaTransfer,
} from '../support/signer-checks';

let service: TestService;
let client: TurnkeyClient;
let organizationId: string;
let walletAddress: `0x${string}`;
let solanaAddress: string;
let keyId: string;
let keyAddress: `0x${string}`;
let p256KeyId: string;
let p256PublicKey: string;
let ed25519KeyId: string;
let ed25519PublicKey: string;

beforeAll(async () => {
  service = await startTestService();
  client = service.client();
  organizationId = service.info.organizationId;
  const wallet = await client.createWallet({
    ...service.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET'),
    parameters: { walletName: 'signers', accounts: [ETHEREUM_ACCOUNT, SOLANA_ACCOUNT] },
  });
  [walletAddress, solanaAddress] = wallet.activity.result.createWalletResult!.addresses as [`0x${string}`, string];
  const keys = await client.createPrivateKeys({
    ...service.nextEnvelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'),
    parameters: {
      privateKeys: [
        { privateKeyName: 'eth key', curve: 'CURVE_SECP256K1', addressFormats: ['ADDRESS_FORMAT_ETHEREUM'], privateKeyTags: [] },
        { privateKeyName: 'p256 key', curve: 'CURVE_P256', addressFormats: [], privateKeyTags: [] },
        { privateKeyName: 'ed key', curve: 'CURVE_ED25519', addressFormats: ['ADDRESS_FORMAT_SOLANA'], privateKeyTags: [] },
      ],
    },
  });
  const [eth, p, ed] = keys.activity.result.createPrivateKeysResultV2!.privateKeys;
  keyId = eth!.privateKeyId!;
  keyAddress = eth!.addresses![0]!.address as `0x${string}`;
  p256KeyId = p!.privateKeyId!;
  ed25519KeyId = ed!.privateKeyId!;
  p256PublicKey = (await client.getPrivateKey({ organizationId, privateKeyId: p256KeyId })).privateKey.publicKey;
  ed25519PublicKey = (await client.getPrivateKey({ organizationId, privateKeyId: ed25519KeyId })).privateKey.publicKey;
});
afterAll(() => service.close());

describe('@turnkey/viem createAccount', () => {
  for (const [label, signWith] of [
    ['wallet account address', () => walletAddress],
    ['private key address', () => keyAddress],
    ['private key id', () => keyId],
  ] as const) {
    it(`signs a message, typed data, a transaction and an authorization with signWith = ${label}`, async () => {
      // @turnkey/viem and @turnkey/ethers each pin their own @turnkey/http; the client is the same on the wire.
      const account = await createAccount({ client: client as never, organizationId, signWith: signWith() });
      const address = (signWith() === keyId ? keyAddress : signWith()) as `0x${string}`;
      await expectViemAccountSigns(account, address);

      const authorization = await account.signAuthorization!({ address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', chainId: 1, nonce: 3 });
      expect(await recoverAuthorizationAddress({ authorization })).toBe(address);
      const delegated = await account.signTransaction({
        type: 'eip7702',
        chainId: 1,
        nonce: 4,
        to: address,
        gas: 100000n,
        maxFeePerGas: parseGwei('30'),
        maxPriorityFeePerGas: parseGwei('1'),
        authorizationList: [authorization],
      });
      expect(await recoverTransactionAddress({ serializedTransaction: delegated as never })).toBe(address);
    });
  }
});

describe('@turnkey/ethers TurnkeySigner', () => {
  it('signs a message, typed data and a transaction that ethers verifies', async () => {
    const signer = new EthersSigner({ client: client as never, organizationId, signWith: walletAddress });
    await expectEthersSignerSigns(signer, walletAddress);
  });
});

describe('@turnkey/http signRawPayload, signRawPayloads and signTransaction', () => {
  const text = 'payload text';
  const bytes = new TextEncoder().encode(text);
  const hex = Buffer.from(bytes).toString('hex');
  const digest = Buffer.from(sha256(bytes)).toString('hex');

  async function signRaw(signWith: string, payload: string, encoding: string, hashFunction: string) {
    const reply = await client.signRawPayload({
      ...service.nextEnvelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'),
      parameters: { signWith, payload, encoding: encoding as never, hashFunction: hashFunction as never },
    });
    expect(reply.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    return reply.activity.result.signRawPayloadResult!;
  }

  function recoverSecp256k1(signature: { r: string; s: string; v: string }, messageDigest: Uint8Array): string {
    const sig = secp256k1.Signature.fromHex(signature.r + signature.s).addRecoveryBit(Number.parseInt(signature.v, 16));
    expect(sig.hasHighS()).toBe(false);
    return Buffer.from(sig.recoverPublicKey(messageDigest).toBytes(true)).toString('hex');
  }

  it('secp256k1: every hash function and encoding, recovered to the account key', async () => {
    const { account } = await client.getWalletAccount({
      organizationId,
      walletId: (await client.getWallets({ organizationId })).wallets[0]!.walletId,
      address: walletAddress,
    });
    const publicKey = account.publicKey!;
    const cases = [
      [hex, 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_SHA256', sha256(bytes)],
      [`0x${hex}`, 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_KECCAK256', keccak_256(bytes)],
      [text, 'PAYLOAD_ENCODING_TEXT_UTF8', 'HASH_FUNCTION_SHA256', sha256(bytes)],
      [text, 'PAYLOAD_ENCODING_TEXT_UTF8', 'HASH_FUNCTION_KECCAK256', keccak_256(bytes)],
      [digest, 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_NO_OP', sha256(bytes)],
      [JSON.stringify(MAIL), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP', Buffer.from(hashTypedData(MAIL).slice(2), 'hex')],
    ] as const;
    for (const [payload, encoding, hashFunction, expectedDigest] of cases) {
      const signature = await signRaw(walletAddress, payload, encoding, hashFunction);
      expect(recoverSecp256k1(signature, expectedDigest), `${encoding} ${hashFunction}`).toBe(publicKey);
    }
  });

  it('EIP-712 Mail example: the digest EIP-712 publishes', () => {
    expect(hashTypedData(MAIL)).toBe('0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2');
  });

  it('P-256: SHA-256 and NO_OP verify with noble against the stored key, low-S', async () => {
    const signature = await signRaw(p256KeyId, text, 'PAYLOAD_ENCODING_TEXT_UTF8', 'HASH_FUNCTION_SHA256');
    const compact = Buffer.from(signature.r + signature.s, 'hex');
    expect(p256.verify(compact, sha256(bytes), Buffer.from(p256PublicKey, 'hex'), { prehash: false, lowS: true })).toBe(true);
    const noOp = await signRaw(p256KeyId, digest, 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_NO_OP');
    expect(p256.verify(Buffer.from(noOp.r + noOp.s, 'hex'), sha256(bytes), Buffer.from(p256PublicKey, 'hex'), { prehash: false })).toBe(true);
    const recovered = p256.Signature.fromHex(noOp.r + noOp.s)
      .addRecoveryBit(Number.parseInt(noOp.v, 16))
      .recoverPublicKey(sha256(bytes));
    expect(Buffer.from(recovered.toBytes(true)).toString('hex')).toBe(p256PublicKey);
  });

  it('Ed25519: NOT_APPLICABLE over hex and text, by private key id and by wallet account address', async () => {
    for (const [signWith, publicKey] of [
      [ed25519KeyId, () => ed25519PublicKey],
      [
        solanaAddress,
        async () =>
          (
            await client.getWalletAccount({
              organizationId,
              walletId: (await client.getWallets({ organizationId })).wallets[0]!.walletId,
              address: solanaAddress,
            })
          ).account.publicKey!,
      ],
    ] as const) {
      for (const [payload, encoding] of [
        [hex, 'PAYLOAD_ENCODING_HEXADECIMAL'],
        [text, 'PAYLOAD_ENCODING_TEXT_UTF8'],
      ] as const) {
        const signature = await signRaw(signWith, payload, encoding, 'HASH_FUNCTION_NOT_APPLICABLE');
        expect(ed25519.verify(Buffer.from(signature.r + signature.s, 'hex'), bytes, Buffer.from(await publicKey(), 'hex'))).toBe(true);
      }
    }
  });

  it('signRawPayloads signs each payload in order', async () => {
    const payloads = ['aa', 'bbbb', 'cccccc'];
    const reply = await client.signRawPayloads({
      ...service.nextEnvelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS'),
      parameters: { signWith: keyId, payloads, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' },
    });
    const signatures = reply.activity.result.signRawPayloadsResult!.signatures!;
    expect(signatures).toHaveLength(3);
    const { privateKey } = await client.getPrivateKey({ organizationId, privateKeyId: keyId });
    signatures.forEach((signature, index) => {
      expect(recoverSecp256k1(signature, keccak_256(Buffer.from(payloads[index]!, 'hex')))).toBe(privateKey.publicKey);
    });
  });

  it('signTransaction returns the signed serialization without 0x, signed by the private key address', async () => {
    const unsigned = serializeTransaction({
      type: 'eip1559',
      chainId: 5,
      nonce: 1,
      to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      value: 5n,
      gas: 21000n,
      maxFeePerGas: 3n,
      maxPriorityFeePerGas: 1n,
    });
    const reply = await client.signTransaction({
      ...service.nextEnvelope('ACTIVITY_TYPE_SIGN_TRANSACTION_V2'),
      parameters: { signWith: keyAddress, unsignedTransaction: unsigned.slice(2), type: 'TRANSACTION_TYPE_ETHEREUM' },
    });
    const signed = reply.activity.result.signTransactionResult!.signedTransaction;
    expect(signed.startsWith('0x')).toBe(false);
    expect(await recoverTransactionAddress({ serializedTransaction: `0x${signed}` as never })).toBe(getAddress(keyAddress));
  });
});

describe('@turnkey/solana TurnkeySigner', () => {
  it('signs a message and a legacy transaction that web3.js verifies', async () => {
    const signer = new SolanaSigner({ client: client as never, organizationId });
    const message = new TextEncoder().encode('solana message');
    const signature = await signer.signMessage(message, solanaAddress);
    expectSolanaSignature(signature, message, solanaAddress);

    const signed = (await signer.signTransaction(solanaTransfer(solanaAddress), solanaAddress)) as SolanaTransaction;
    expectSolanaFullySigned(signed);
    expect(signed.signature).not.toBeNull();
  });

  it('signs a v0 transaction, filling only its own slot', async () => {
    const signer = new SolanaSigner({ client: client as never, organizationId });
    const coSigner = SOLANA_RECIPIENT;
    const message = new TransactionMessage({
      payerKey: new PublicKey(solanaAddress),
      recentBlockhash: SOLANA_BLOCKHASH,
      instructions: [
        SystemProgram.transfer({ fromPubkey: new PublicKey(solanaAddress), toPubkey: SOLANA_RECIPIENT, lamports: 5 }),
        SystemProgram.transfer({ fromPubkey: coSigner, toPubkey: new PublicKey(solanaAddress), lamports: 1 }),
      ],
    }).compileToV0Message();
    const signed = (await signer.signTransaction(new VersionedTransaction(message), solanaAddress)) as VersionedTransaction;
    const slots = signed.message.staticAccountKeys.slice(0, signed.message.header.numRequiredSignatures).map((key) => key.toBase58());
    expect(slots).toEqual([solanaAddress, coSigner.toBase58()]);
    expectSolanaSignature(signed.signatures[0]!, signed.message.serialize(), solanaAddress);
    expect(signed.signatures[1]!.every((byte) => byte === 0)).toBe(true);
  });

  it('refuses a transaction in which signWith is not a required signer: a 400, nothing recorded', async () => {
    const before = recordedRows(service);
    const unsigned = solanaTransfer(SOLANA_RECIPIENT.toBase58()).serialize({ requireAllSignatures: false, verifySignatures: false });
    const reply = await service.submit('sign_transaction', 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', {
      signWith: solanaAddress,
      unsignedTransaction: Buffer.from(unsigned).toString('hex'),
      type: 'TRANSACTION_TYPE_SOLANA',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/is not a required signer of this Solana transaction/);
    expect(recordedRows(service)).toBe(before);
  });
});

describe('@turnkey/http signTransaction with a Bitcoin PSBT', () => {
  const P2WPKH = {
    curve: 'CURVE_SECP256K1',
    pathFormat: 'PATH_FORMAT_BIP32',
    path: "m/84'/0'/0'/0/0",
    addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH',
  } as const;
  const P2TR = {
    curve: 'CURVE_SECP256K1',
    pathFormat: 'PATH_FORMAT_BIP32',
    path: "m/86'/0'/0'/0/0",
    addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR',
  } as const;
  const AMOUNT = 50_000n;

  /** A PSBT spending one made-up output of `address` (witness UTXO given) to a fixed P2WPKH address. */
  function psbtSpending(address: string): string {
    const tx = new BitcoinTransaction();
    tx.addInput({ txid: '11'.repeat(32), index: 1, witnessUtxo: { script: OutScript.encode(Address(NETWORK).decode(address)), amount: AMOUNT } });
    tx.addOutputAddress('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 40_000n, NETWORK);
    return Buffer.from(tx.toPSBT()).toString('hex');
  }

  it('signs the P2WPKH and P2TR inputs of wallet accounts; the PSBT finalizes and each signature verifies', async () => {
    const created = await client.createWallet({
      ...service.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET'),
      parameters: { walletName: 'bitcoin', accounts: [P2WPKH, P2TR] },
    });
    const { walletId, addresses } = created.activity.result.createWalletResult!;
    const [segwit, taproot] = addresses as [string, string];
    for (const address of [segwit, taproot]) {
      const reply = await client.signTransaction({
        ...service.nextEnvelope('ACTIVITY_TYPE_SIGN_TRANSACTION_V2'),
        parameters: { signWith: address, unsignedTransaction: psbtSpending(address), type: 'TRANSACTION_TYPE_BITCOIN' },
      });
      expect(reply.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      const signed = BitcoinTransaction.fromPSBT(Buffer.from(reply.activity.result.signTransactionResult!.signedTransaction, 'hex'));
      const input = signed.getInput(0);
      const publicKey = Buffer.from((await client.getWalletAccount({ organizationId, walletId, address })).account.publicKey!, 'hex');
      const script = input.witnessUtxo!.script;
      if (address === segwit) {
        const [key, signature] = itemAt(input.partialSig ?? [], 0);
        expect(Buffer.from(key).equals(publicKey)).toBe(true);
        const digest = signed.preimageWitnessV0(0, p2pkh(publicKey).script, SigHash.ALL, AMOUNT);
        expect(secp256k1.verify(signature.subarray(0, -1), digest, publicKey, { prehash: false, format: 'der' })).toBe(true);
      } else {
        const digest = signed.preimageWitnessV1(0, [script], SigHash.DEFAULT, [AMOUNT]);
        expect(schnorr.verify(input.tapKeySig!, digest, script.subarray(2))).toBe(true);
      }
      signed.finalize();
      expect(signed.extract().length).toBeGreaterThan(0);
    }
  });
});
