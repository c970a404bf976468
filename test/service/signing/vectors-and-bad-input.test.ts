/**
 * Signing against published vectors (EIP-155's example transaction, EIP-712's Mail example signed by "cow"), an
 * EIP-1559 transaction beside viem's own local signer, and bad input (hex, transactions, typed data, PSBTs, keys):
 * each a specific 400 with nothing signed and nothing recorded.
 */
import { Address, NETWORK, OutScript, Transaction as BitcoinTransaction } from '@scure/btc-signer';
import { encryptPrivateKeyToBundle } from '@turnkey/crypto';
import { keccak256, serializeTransaction, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIL } from '../../support/eip712-mail';
import { newKey, type Reply, startTestService, type TestService } from '../../support/service';
import { recordedRows } from './recorded';

/** EIP-155's example: key 0x4646…46, nonce 9, 20 gwei, 21000 gas, 1 ether to 0x3535…35 on chain 1. */
const EIP155 = {
  privateKey: `0x${'46'.repeat(32)}`,
  unsigned: 'ec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080',
  signingHash: '0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53',
  signed:
    'f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83',
} as const;

/** EIP-712's Mail example is signed by keccak256("cow"). */
const COW = {
  privateKey: keccak256(toHex('cow')),
  r: '4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d',
  s: '07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b91562',
  v: '01',
};

let t: TestService;
let eip155KeyId: string;
let cowKeyId: string;
let walletAddress: string;

function submit(name: string, type: string, parameters: unknown, options: Parameters<TestService['submit']>[3] = {}): Promise<Reply> {
  t.clock.advance(1);
  return t.submit(name, type, parameters, options);
}

async function importKey(name: string, privateKeyHex: string): Promise<string> {
  const init = await submit('init_import_private_key', 'ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY', { userId: t.info.rootUserId });
  const encryptedBundle = await encryptPrivateKeyToBundle({
    privateKey: privateKeyHex.slice(2),
    keyFormat: 'HEXADECIMAL',
    importBundle: init.body.activity.result.initImportPrivateKeyResult.importBundle,
    userId: t.info.rootUserId,
    organizationId: t.info.organizationId,
    dangerouslyOverrideSignerPublicKey: t.info.enclaveSignerPublicKey,
  });
  const imported = await submit('import_private_key', 'ACTIVITY_TYPE_IMPORT_PRIVATE_KEY', {
    userId: t.info.rootUserId,
    privateKeyName: name,
    encryptedBundle,
    curve: 'CURVE_SECP256K1',
    addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
  });
  expect(imported.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  return imported.body.activity.result.importPrivateKeyResult.privateKeyId;
}

beforeAll(async () => {
  t = await startTestService();
  eip155KeyId = await importKey('eip-155', EIP155.privateKey);
  cowKeyId = await importKey('cow', COW.privateKey);
  const wallet = await submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', {
    walletName: 'w',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  walletAddress = wallet.body.activity.result.createWalletResult.addresses[0];
});
afterAll(() => t.close());

const signTransaction = (signWith: string, unsignedTransaction: string, type = 'TRANSACTION_TYPE_ETHEREUM') =>
  submit('sign_transaction', 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', { signWith, unsignedTransaction, type });
const signRaw = (signWith: string, payload: string, encoding: string, hashFunction: string) =>
  submit('sign_raw_payload', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', { signWith, payload, encoding, hashFunction });

describe('published vectors', () => {
  it("EIP-155's example transaction signs to the exact bytes the EIP publishes", async () => {
    expect(keccak256(`0x${EIP155.unsigned}`)).toBe(EIP155.signingHash);
    const reply = await signTransaction(eip155KeyId, EIP155.unsigned);
    expect(reply.body.activity.result.signTransactionResult.signedTransaction).toBe(EIP155.signed);
  });

  it('an EIP-1559 transaction signs to the bytes viem’s own local signer produces for the same key', async () => {
    const transaction = {
      type: 'eip1559',
      chainId: 1,
      nonce: 42,
      to: '0x3535353535353535353535353535353535353535',
      value: 10n ** 18n,
      data: '0xdeadbeef',
      gas: 50000n,
      maxFeePerGas: 40_000_000_000n,
      maxPriorityFeePerGas: 2_000_000_000n,
      accessList: [{ address: '0x3535353535353535353535353535353535353535', storageKeys: [`0x${'00'.repeat(31)}01`] }],
    } as const;
    const reply = await signTransaction(eip155KeyId, serializeTransaction(transaction).slice(2));
    const expected = await privateKeyToAccount(EIP155.privateKey).signTransaction(transaction);
    expect(`0x${reply.body.activity.result.signTransactionResult.signedTransaction}`).toBe(expected);
  });

  it("EIP-712's Mail example signed by cow gives the EIP's r, s and v", async () => {
    const reply = await signRaw(cowKeyId, JSON.stringify(MAIL), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP');
    expect(reply.body.activity.result.signRawPayloadResult).toEqual({ r: COW.r, s: COW.s, v: COW.v });
  });
});

describe('bad input is a specific 400: nothing signed, nothing recorded', () => {
  let before: number;
  const activityCount = () => recordedRows(t);
  beforeAll(async () => {
    before = activityCount();
  });

  async function expectRefused(reply: Reply, code: string, message: RegExp): Promise<void> {
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body.details[0].turnkeyErrorCode).toBe(code);
    expect(reply.body.message).toMatch(message);
    expect(activityCount()).toBe(before);
  }

  it('malformed hex and a truncated transaction', async () => {
    await expectRefused(await signTransaction(walletAddress, 'f86zz'), 'ENCODING_INVALID', /unsignedTransaction is not valid hex: odd length/);
    await expectRefused(
      await signTransaction(walletAddress, '02zz'),
      'ENCODING_INVALID',
      /unsignedTransaction is not valid hex: unexpected character at position 2/,
    );
    await expectRefused(
      await signTransaction(walletAddress, EIP155.unsigned.slice(0, -6)),
      'ENCODING_INVALID',
      /unsignedTransaction is not an unsigned Ethereum transaction/,
    );
    await expectRefused(await signTransaction(walletAddress, EIP155.signed), 'ENCODING_INVALID', /already carries a signature/);
    await expectRefused(
      await signRaw(walletAddress, 'abc', 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_SHA256'),
      'ENCODING_INVALID',
      /payload is not valid hex: odd length 3/,
    );
  });

  it('typed data that does not match its types', async () => {
    const missing = { ...MAIL, message: { from: MAIL.message.from, to: MAIL.message.to } };
    await expectRefused(
      await signRaw(walletAddress, JSON.stringify(missing), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'),
      'ENCODING_INVALID',
      /Mail needs "contents" \(string\)/,
    );
    const badAddress = { ...MAIL, message: { ...MAIL.message, to: { name: 'Bob', wallet: '0x1234' } } };
    await expectRefused(
      await signRaw(walletAddress, JSON.stringify(badAddress), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'),
      'ENCODING_INVALID',
      /does not match its types: Address "0x1234" is invalid/,
    );
    const extra = { ...MAIL, message: { ...MAIL.message, cc: 'x' } };
    await expectRefused(
      await signRaw(walletAddress, JSON.stringify(extra), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'),
      'ENCODING_INVALID',
      /"cc" is not a member of Mail/,
    );
    await expectRefused(
      await signRaw(walletAddress, JSON.stringify({ ...MAIL, primaryType: 'Letter' }), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'),
      'ENCODING_INVALID',
      /primaryType "Letter" is not among types/,
    );
  });

  it('wrong combinations of curve, encoding and hash function', async () => {
    await expectRefused(
      await signRaw(walletAddress, 'aa', 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_NO_OP'),
      'REQUEST_INVALID',
      /must be 32 bytes; it is 1/,
    );
    await expectRefused(
      await signRaw(walletAddress, 'aa', 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_NOT_APPLICABLE'),
      'REQUEST_INVALID',
      /HASH_FUNCTION_NOT_APPLICABLE is for Ed25519 keys/,
    );
    await expectRefused(
      await signRaw(walletAddress, JSON.stringify(MAIL), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_SHA256'),
      'REQUEST_INVALID',
      /not HASH_FUNCTION_SHA256/,
    );
    const created = await submit('create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [
        { privateKeyName: 'ed', curve: 'CURVE_ED25519', addressFormats: [], privateKeyTags: [] },
        { privateKeyName: 'p256', curve: 'CURVE_P256', addressFormats: [], privateKeyTags: [] },
      ],
    });
    const [ed, p256] = created.body.activity.result.createPrivateKeysResultV2.privateKeys.map((key: { privateKeyId: string }) => key.privateKeyId);
    before = activityCount();
    await expectRefused(
      await signRaw(ed, 'aa', 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_SHA256'),
      'REQUEST_INVALID',
      /an Ed25519 key hashes as part of signing; send HASH_FUNCTION_NOT_APPLICABLE/,
    );
    await expectRefused(
      await signRaw(ed, '{}', 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NOT_APPLICABLE'),
      'REQUEST_INVALID',
      /only a CURVE_SECP256K1 key signs; this key is CURVE_ED25519/,
    );
    await expectRefused(
      await signRaw(p256, JSON.stringify(MAIL), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'),
      'REQUEST_INVALID',
      /this key is CURVE_P256/,
    );
    await expectRefused(
      await signTransaction(ed, EIP155.unsigned),
      'REQUEST_INVALID',
      /TRANSACTION_TYPE_ETHEREUM is signed by a CURVE_SECP256K1 key/,
    );
    await expectRefused(
      await signTransaction(walletAddress, EIP155.unsigned, 'TRANSACTION_TYPE_TRON'),
      'REQUEST_INVALID',
      /TRANSACTION_TYPE_TRON is not supported by this service yet/,
    );
    await expectRefused(
      await submit('sign_raw_payloads', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', {
        signWith: walletAddress,
        payloads: [],
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_SHA256',
      }),
      'REQUEST_INVALID',
      /send at least one payload/,
    );
    await expectRefused(
      await submit('sign_raw_payloads', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', {
        signWith: walletAddress,
        payloads: ['aa', 'zz'],
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_SHA256',
      }),
      'ENCODING_INVALID',
      /parameters.payloads\[1\] is not valid hex/,
    );
  });

  it('a PSBT with no input of ours, and one that is not a PSBT', async () => {
    const created = await submit('create_wallet_accounts', 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', {
      walletId: (await t.query('list_wallets', {})).body.wallets[0].walletId,
      accounts: [
        {
          curve: 'CURVE_SECP256K1',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/84'/0'/0'/0/0",
          addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH',
        },
      ],
    });
    const ours = created.body.activity.result.createWalletAccountsResult.addresses[0] as string;
    const stranger = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
    const psbt = new BitcoinTransaction();
    psbt.addInput({ txid: '22'.repeat(32), index: 0, witnessUtxo: { script: OutScript.encode(Address(NETWORK).decode(stranger)), amount: 1000n } });
    psbt.addOutputAddress(ours, 900n, NETWORK);
    before = activityCount();
    await expectRefused(
      await signTransaction(ours, Buffer.from(psbt.toPSBT()).toString('hex'), 'TRANSACTION_TYPE_BITCOIN'),
      'REQUEST_INVALID',
      new RegExp(`the PSBT has no input spending ${ours}`),
    );
    await expectRefused(await signTransaction(ours, 'deadbeef', 'TRANSACTION_TYPE_BITCOIN'), 'ENCODING_INVALID', /not a valid PSBT/);
  });

  it('an account of another organization, an unknown id', async () => {
    const owner = newKey();
    const sub = await submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
      subOrganizationName: 'other',
      rootUsers: [
        {
          userName: 'owner',
          apiKeys: [{ apiKeyName: 'k', publicKey: owner.publicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
      wallet: {
        walletName: 'theirs',
        accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
      },
    });
    const theirs = sub.body.activity.result.createSubOrganizationResultV8.wallet.addresses[0] as string;
    before = activityCount();
    await expectRefused(
      await signTransaction(theirs, EIP155.unsigned),
      'REQUEST_INVALID',
      new RegExp(`${theirs} is not a wallet account address, private key address or private key id of organization ${t.info.organizationId}`),
    );
    await expectRefused(
      await signRaw('not-a-key', 'aa', 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_SHA256'),
      'REQUEST_INVALID',
      /not-a-key is not a wallet account address/,
    );
  });
});
