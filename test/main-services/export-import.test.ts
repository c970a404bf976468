/**
 * Exporter and Importer end to end against a real local service and a real keychain: what is revealed or imported
 * is checked by deriving addresses locally with the service's enclave code and comparing them with the service's.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalletAccountParams } from '../../src/shared/api';
import { ExportRequests } from '../../src/main/exports/export-requests';
import { Exporter, openExportBundle, type RevealedSecret } from '../../src/main/exports/exporter';
import { APPROVAL_WINDOW_MS } from '../../src/shared/approvals/voting';
import type { AppEvent } from '../../src/shared/ipc/events';
import { Importer } from '../../src/main/imports/importer';
import { formatPrivateKey, parsePrivateKey, PRIVATE_KEY_FORMATS, type PrivateKeyFormat } from '../../src/shared/crypto/bundles';
import { bytesToHex, hexToBytes } from '../../src/shared/crypto/encoding';
import { generateEncryptionKeyPair } from '../../src/shared/crypto/keys';
import { addressFor, type AddressFormat } from '../../src/service/enclave/addresses';
import { deriveKey, publicKeyFromPrivate, type Curve } from '../../src/service/enclave/derivation';
import { mnemonicToSeed } from '../../src/service/enclave/mnemonic';
import { rejection } from '../support/assertions';
import { scanForSecrets } from '../support/scan-for-secrets';
import { startTestBed, type TestBed } from './helpers';

const ACCOUNTS: WalletAccountParams[] = [
  { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
  { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/84'/0'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH' },
  { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' },
];

let bed: TestBed;
/** Every secret this file sees, for the final scan of the data dir and the service log. */
const seen: Uint8Array[] = [];

beforeAll(async () => {
  bed = await startTestBed(1);
  await bed.operators[0]!.keychain.generateEncryptionKey({ name: 'export-target' });
});

afterAll(async () => {
  await bed.close();
});

function operator() {
  return bed.operators[0]!;
}

function exporter(overrides: { enclaveSignerPublicKey?: string } = {}): Exporter {
  const { client, keychain, profile } = operator();
  return new Exporter({ client, keychain, enclaveSignerPublicKey: overrides.enclaveSignerPublicKey ?? profile.enclaveSignerPublicKey });
}

/**
 * Identical bodies are one activity (same fingerprint), and the test clock stands still: without a tick, a second
 * init_import for the same user would answer the first, already used, import target.
 */
function importer(): Importer {
  bed.clock.advance(1000);
  const { client, profile } = operator();
  return new Importer({ client, enclaveSignerPublicKey: profile.enclaveSignerPublicKey });
}

/** The addresses a mnemonic (and passphrase) gives for `accounts`, derived here, not by the service. */
async function deriveAddresses(mnemonic: string, passphrase: string | undefined, accounts: WalletAccountParams[]): Promise<string[]> {
  const seed = await mnemonicToSeed(mnemonic, passphrase);
  seen.push(seed);
  return accounts.map(({ curve, path, addressFormat }) => {
    const { privateKey, publicKey } = deriveKey({ seed, curve, path });
    seen.push(privateKey);
    return addressFor({ curve, publicKey, format: addressFormat });
  });
}

function addressOfKey(curve: Curve, privateKey: Uint8Array, format: AddressFormat): string {
  return addressFor({ curve, publicKey: publicKeyFromPrivate(curve, privateKey), format });
}

function mnemonicOf(secret: RevealedSecret): { mnemonic: string; passphrase?: string } {
  if (secret.kind !== 'mnemonic') throw new Error(`expected a mnemonic, got a ${secret.kind}`);
  seen.push(new TextEncoder().encode(secret.mnemonic));
  return secret;
}

function keyOf(secret: RevealedSecret, format: PrivateKeyFormat): Uint8Array {
  if (secret.kind !== 'private-key') throw new Error(`expected a private key, got a ${secret.kind}`);
  expect(secret.format).toBe(format);
  const bytes = parsePrivateKey(secret.privateKey, format);
  seen.push(bytes);
  return bytes;
}

async function createWallet(name: string): Promise<{ walletId: string; addresses: string[] }> {
  const outcome = await operator().client.submit('create_wallet', { walletName: name, accounts: ACCOUNTS, mnemonicLength: 24 });
  if (outcome.state !== 'completed') throw new Error(`create_wallet is ${outcome.state}`);
  return outcome.result;
}

async function createPrivateKey(name: string, curve: Curve, format: AddressFormat): Promise<{ privateKeyId: string; address: string }> {
  const outcome = await operator().client.submit('create_private_keys', {
    privateKeys: [{ privateKeyName: name, curve, privateKeyTags: [], addressFormats: [format] }],
  });
  if (outcome.state !== 'completed') throw new Error(`create_private_keys is ${outcome.state}`);
  const [created] = outcome.result.privateKeys;
  return { privateKeyId: created!.privateKeyId!, address: created!.addresses![0]!.address! };
}

async function revealed(result: Promise<Awaited<ReturnType<Exporter['reveal']>>>): Promise<RevealedSecret> {
  const outcome = await result;
  if (outcome.state !== 'revealed') throw new Error(`export is ${outcome.state}`);
  expect(outcome.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  return outcome.secret;
}

describe('Exporter.reveal', () => {
  it('reveals a wallet mnemonic to a one-time key and to a stored encryption key; it derives the service addresses', async () => {
    const wallet = await createWallet('to reveal');
    const ephemeral = mnemonicOf(await revealed(exporter().reveal({ kind: 'wallet', walletId: wallet.walletId }, { kind: 'ephemeral' })));
    expect(ephemeral.mnemonic.split(' ')).toHaveLength(24);
    expect(ephemeral.passphrase).toBeUndefined();
    expect(await deriveAddresses(ephemeral.mnemonic, undefined, ACCOUNTS)).toEqual(wallet.addresses);

    const stored = await revealed(
      exporter().reveal({ kind: 'wallet', walletId: wallet.walletId }, { kind: 'encryption-key', name: 'export-target' }),
    );
    expect(stored).toEqual({ kind: 'mnemonic', mnemonic: ephemeral.mnemonic, language: 'MNEMONIC_LANGUAGE_ENGLISH' });
  });

  it('reveals a wallet in another mnemonic language and says which', async () => {
    const wallet = await createWallet('in spanish');
    const secret = await revealed(
      exporter().reveal({ kind: 'wallet', walletId: wallet.walletId, language: 'MNEMONIC_LANGUAGE_SPANISH' }, { kind: 'ephemeral' }),
    );
    expect(secret).toMatchObject({ kind: 'mnemonic', language: 'MNEMONIC_LANGUAGE_SPANISH' });
    mnemonicOf(secret);
  });

  it('reveals a private key in every key format, each the key behind the service address', async () => {
    const secp = await createPrivateKey('secp key', 'CURVE_SECP256K1', 'ADDRESS_FORMAT_ETHEREUM');
    const edwards = await createPrivateKey('ed key', 'CURVE_ED25519', 'ADDRESS_FORMAT_SOLANA');
    for (const format of PRIVATE_KEY_FORMATS) {
      for (const [created, curve, addressFormat] of [
        [secp, 'CURVE_SECP256K1', 'ADDRESS_FORMAT_ETHEREUM'],
        [edwards, 'CURVE_ED25519', 'ADDRESS_FORMAT_SOLANA'],
      ] as const) {
        const target = format === 'solana' ? ({ kind: 'encryption-key', name: 'export-target' } as const) : ({ kind: 'ephemeral' } as const);
        const secret = await revealed(exporter().reveal({ kind: 'private-key', privateKeyId: created.privateKeyId }, target, format));
        expect(addressOfKey(curve, keyOf(secret, format), addressFormat), `${curve} as ${format}`).toBe(created.address);
      }
    }
  });

  it('reveals wallet accounts in every key format, each the key derived from the wallet mnemonic at its path', async () => {
    const wallet = await createWallet('accounts to reveal');
    const { mnemonic } = mnemonicOf(await revealed(exporter().reveal({ kind: 'wallet', walletId: wallet.walletId }, { kind: 'ephemeral' })));
    const seed = await mnemonicToSeed(mnemonic);
    seen.push(seed);
    for (const [index, account] of ACCOUNTS.entries()) {
      const expected = deriveKey({ seed, curve: account.curve, path: account.path }).privateKey;
      for (const format of PRIVATE_KEY_FORMATS) {
        const secret = await revealed(
          exporter().reveal({ kind: 'wallet-account', address: wallet.addresses[index]! }, { kind: 'ephemeral' }, format),
        );
        expect(bytesToHex(keyOf(secret, format)), `${account.addressFormat} as ${format}`).toBe(bytesToHex(expected));
      }
    }
  });

  it('refuses a bundle verified against another pinned signer or organization, and opens it with the right ones', async () => {
    const wallet = await createWallet('pinned');
    const wrongSigner = await rejection(
      exporter({ enclaveSignerPublicKey: generateEncryptionKeyPair().publicKey }).reveal(
        { kind: 'wallet', walletId: wallet.walletId },
        { kind: 'ephemeral' },
      ),
    );
    expect(wrongSigner.code).toBe('BUNDLE_SIGNER_MISMATCH');

    const target = generateEncryptionKeyPair();
    seen.push(hexToBytes(target.privateKey, 'target'));
    const outcome = await exporter().exportTo({ kind: 'wallet', walletId: wallet.walletId }, target.publicKey);
    if (outcome.state !== 'completed') throw new Error(`export is ${outcome.state}`);
    const { exportBundle } = outcome.result;
    const signerPublicKey = operator().profile.enclaveSignerPublicKey;
    const key = () => hexToBytes(target.privateKey, 'target');
    const otherOrganization = await rejection(
      openExportBundle(exportBundle, key(), { signerPublicKey, organizationId: '11111111-2222-4333-8444-555555555555' }, 'mnemonic'),
    );
    expect(otherOrganization.code).toBe('BUNDLE_ORGANIZATION_MISMATCH');
    const opened = await openExportBundle(exportBundle, key(), { signerPublicKey, organizationId: bed.service.info.organizationId }, 'mnemonic');
    expect(await deriveAddresses(mnemonicOf(opened).mnemonic, undefined, ACCOUNTS)).toEqual(wallet.addresses);
  });

  it('opens an export that completed earlier with the stored key it was sealed to, and refuses a non-export', async () => {
    const wallet = await createWallet('later');
    const outcome = await exporter().exportTo(
      { kind: 'wallet-account', address: wallet.addresses[0]! },
      (await operator().keychain.listEncryptionKeys())[0]!.publicKey,
    );
    if (outcome.state !== 'completed') throw new Error(`export is ${outcome.state}`);
    const later = await exporter().revealCompleted(outcome.activity.id, { kind: 'encryption-key', name: 'export-target' }, 'wif-mainnet');
    const { mnemonic } = mnemonicOf(await revealed(exporter().reveal({ kind: 'wallet', walletId: wallet.walletId }, { kind: 'ephemeral' })));
    const seed = await mnemonicToSeed(mnemonic);
    seen.push(seed);
    expect(bytesToHex(keyOf(later, 'wif-mainnet'))).toBe(
      bytesToHex(deriveKey({ seed, curve: ACCOUNTS[0]!.curve, path: ACCOUNTS[0]!.path }).privateKey),
    );

    const created = (await operator().client.query('list_activities', { filterByType: ['ACTIVITY_TYPE_CREATE_WALLET'] })).activities[0]!;
    const notExport = await rejection(exporter().revealCompleted(created.id, { kind: 'encryption-key', name: 'export-target' }));
    expect(notExport.code).toBe('REQUEST_INVALID');
  });
});

describe('Importer', () => {
  it('imports a wallet without and with a passphrase; the service addresses are the locally derived ones', async () => {
    const mnemonic = generateMnemonic(english, 256);
    seen.push(new TextEncoder().encode(mnemonic));
    const plain = await importer().importWallet({ name: 'imported', mnemonic, accounts: ACCOUNTS });
    if (plain.state !== 'imported') throw new Error(`import is ${plain.state} at ${plain.step}`);
    expect(plain.result.addresses).toEqual(await deriveAddresses(mnemonic, undefined, ACCOUNTS));

    const passphrase = 'correct horse battery staple';
    const guarded = await importer().importWallet({ name: 'imported with passphrase', mnemonic, passphrase, accounts: ACCOUNTS });
    if (guarded.state !== 'imported') throw new Error(`import is ${guarded.state} at ${guarded.step}`);
    expect(guarded.result.addresses).toEqual(await deriveAddresses(mnemonic, passphrase, ACCOUNTS));
    expect(guarded.result.addresses).not.toEqual(plain.result.addresses);

    // The round trip: what was imported is what export reveals, passphrase included.
    const back = await revealed(exporter().reveal({ kind: 'wallet', walletId: guarded.result.walletId }, { kind: 'ephemeral' }));
    expect(back).toEqual({ kind: 'mnemonic', mnemonic, passphrase, language: 'MNEMONIC_LANGUAGE_ENGLISH' });
  });

  it('refuses a mnemonic with a bad checksum before any activity is created', async () => {
    const words = generateMnemonic(english, 128).split(' ').slice(0, 11);
    // Known words whose checksum fails: only the checksum check can refuse it.
    const badLast = english.find((word) => !validateMnemonic([...words, word].join(' '), english))!;
    const before = (await operator().client.query('list_activities', {})).activities.length;
    const error = await rejection(importer().importWallet({ name: 'typo', mnemonic: [...words, badLast].join(' '), accounts: ACCOUNTS }));
    expect(error.code).toBe('MNEMONIC_INVALID');
    expect((await operator().client.query('list_activities', {})).activities).toHaveLength(before);
  });

  it.each([
    ['hexadecimal', 'CURVE_SECP256K1', 'ADDRESS_FORMAT_ETHEREUM'],
    ['solana', 'CURVE_ED25519', 'ADDRESS_FORMAT_SOLANA'],
    ['wif-mainnet', 'CURVE_SECP256K1', 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH'],
    ['wif-testnet', 'CURVE_SECP256K1', 'ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH'],
  ] as const)('imports a %s private key on %s; the service address is the locally derived one', async (format, curve, addressFormat) => {
    const keyBytes = hexToBytes(generateEncryptionKeyPair().privateKey, 'key');
    seen.push(keyBytes.slice());
    const outcome = await importer().importPrivateKey({
      name: `imported ${format}`,
      privateKey: formatPrivateKey(keyBytes, format),
      format,
      curve,
      addressFormats: [addressFormat],
    });
    if (outcome.state !== 'imported') throw new Error(`import is ${outcome.state} at ${outcome.step}`);
    expect(outcome.result.addresses).toEqual([{ format: addressFormat, address: addressOfKey(curve, keyBytes, addressFormat) }]);

    const back = await revealed(exporter().reveal({ kind: 'private-key', privateKeyId: outcome.result.privateKeyId }, { kind: 'ephemeral' }, format));
    expect(bytesToHex(keyOf(back, format))).toBe(bytesToHex(keyBytes));
  });
});

describe('Exporter under a 2-of-2 root quorum', () => {
  it('waits for the second vote, then opens the completed export with the stored key it was sealed to', async () => {
    const quorumBed = await startTestBed(2);
    try {
      const [first, second] = quorumBed.operators;
      const created = await first!.client.submit('create_wallet', { walletName: 'guarded', accounts: ACCOUNTS });
      if (created.state !== 'completed') throw new Error(`create_wallet is ${created.state}`);
      await quorumBed.setRootQuorum(2, [first!.userId, second!.userId]);
      await first!.keychain.generateEncryptionKey({ name: 'after-votes' });
      const guarded = new Exporter({
        client: first!.client,
        keychain: first!.keychain,
        enclaveSignerPublicKey: first!.profile.enclaveSignerPublicKey,
      });

      const waiting = await guarded.reveal({ kind: 'wallet', walletId: created.result.walletId }, { kind: 'encryption-key', name: 'after-votes' });
      expect(waiting.state).toBe('consensus-needed');
      const early = await rejection(guarded.revealCompleted(waiting.activity.id, { kind: 'encryption-key', name: 'after-votes' }));
      expect(early.code).toBe('FAILED_PRECONDITION');

      const approved = await second!.client.submit('approve_activity', { fingerprint: waiting.activity.fingerprint });
      expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      const { mnemonic } = mnemonicOf(await guarded.revealCompleted(waiting.activity.id, { kind: 'encryption-key', name: 'after-votes' }));
      expect(await deriveAddresses(mnemonic, undefined, ACCOUNTS)).toEqual(created.result.addresses);
    } finally {
      await quorumBed.close();
    }
  });

  it('holds the one-time key of an export waiting for votes until it is opened, and lets it go when the export ends', async () => {
    const quorumBed = await startTestBed(2);
    try {
      const [first, second] = quorumBed.operators;
      const created = await first!.client.submit('create_wallet', { walletName: 'held', accounts: ACCOUNTS });
      if (created.state !== 'completed') throw new Error(`create_wallet is ${created.state}`);
      const { walletId } = created.result;
      await quorumBed.setRootQuorum(2, [first!.userId, second!.userId]);
      const guarded = new Exporter({
        client: first!.client,
        keychain: first!.keychain,
        enclaveSignerPublicKey: first!.profile.enclaveSignerPublicKey,
      });
      const told: AppEvent[] = [];
      const requests = new ExportRequests({ dataDir: first!.dataDir, keychain: first!.keychain, events: { emit: (event) => told.push(event) } });
      const ask = async () => {
        const waiting = await guarded.reveal({ kind: 'wallet', walletId }, { kind: 'ephemeral' });
        if (waiting.state !== 'consensus-needed') throw new Error(`export is ${waiting.state}`);
        const request = {
          activityId: waiting.activity.id,
          profileId: first!.profile.id,
          organizationId: waiting.activity.organizationId,
          what: 'wallet held',
        };
        await requests.add({ ...request, sealedTo: { kind: 'one-time' }, requestedAtMs: 0 });
        return waiting.activity;
      };

      const approvedLater = await ask();
      // Held in the keychain under the export, sealed to exactly that key; nothing is exported yet.
      const targetPublicKey = (Object.values(approvedLater.intent)[0] as { targetPublicKey: string }).targetPublicKey;
      expect(await first!.keychain.listOneTimeKeys()).toEqual([{ activityId: approvedLater.id, publicKey: targetPublicKey }]);
      expect((await first!.client.query('get_wallet', { walletId })).wallet.exported).toBe(false);

      const approved = await second!.client.submit('approve_activity', { fingerprint: approvedLater.fingerprint });
      expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      await requests.follow(approved.activity, 1);
      await requests.follow(approved.activity, 2);
      expect(told).toEqual([{ type: 'export', change: 'approved', organizationId: approvedLater.organizationId, activityId: approvedLater.id }]);
      expect((await requests.get(approvedLater.id))?.approvedAtMs).toBe(1);
      expect((await first!.client.query('get_wallet', { walletId })).wallet.exported).toBe(true);

      const { mnemonic } = mnemonicOf(await guarded.revealCompleted(approvedLater.id, { kind: 'ephemeral' }));
      expect(await deriveAddresses(mnemonic, undefined, ACCOUNTS)).toEqual(created.result.addresses);
      await requests.forget(approvedLater.id, 'opened');
      expect(await first!.keychain.listOneTimeKeys()).toEqual([]);
      expect(await requests.get(approvedLater.id)).toBeUndefined();
      const again = await rejection(guarded.revealCompleted(approvedLater.id, { kind: 'ephemeral' }));
      expect(again.code).toBe('KEY_NOT_FOUND');
      expect(again.message).toContain('no longer holds the one-time key');

      // Rejected: nothing will ever be sealed to the key, so it goes, and the requester is told.
      const rejectedLater = await ask();
      const rejected = await second!.client.submit('reject_activity', { fingerprint: rejectedLater.fingerprint });
      await requests.follow(rejected.activity, 3);
      expect(told.at(-1)).toEqual({ type: 'export', change: 'ended', organizationId: rejectedLater.organizationId, activityId: rejectedLater.id });
      expect(await first!.keychain.listOneTimeKeys()).toEqual([]);

      // Expired: its approvals lapsed without consensus.
      const expiredLater = await ask();
      await requests.follow(expiredLater, quorumBed.clock.now());
      expect(await first!.keychain.listOneTimeKeys()).toHaveLength(1);
      await requests.follow(expiredLater, quorumBed.clock.now() + APPROVAL_WINDOW_MS + 60_000);
      expect(await first!.keychain.listOneTimeKeys()).toEqual([]);
      expect(await requests.list(first!.profile.id)).toEqual([]);
    } finally {
      await quorumBed.close();
    }
  });
});

describe('after the run', () => {
  it('leaves no API key, encryption key, mnemonic, seed or exported key in the data dir or the service log', async () => {
    const { dataDir, store, keychain } = operator();
    const encryptionKeys: Uint8Array[] = [];
    for (const { name } of await keychain.listEncryptionKeys())
      await keychain.withEncryptionPrivateKey(name, (key) => void encryptionKeys.push(key.slice()));
    expect(encryptionKeys).toHaveLength(1);
    const secrets = [...store.secrets, ...encryptionKeys, ...seen];
    expect(seen.length).toBeGreaterThan(20);
    expect(await scanForSecrets(dataDir, secrets)).toEqual([]);
    const logDir = await mkdtemp(join(tmpdir(), 'qk-service-log-'));
    try {
      await writeFile(join(logDir, 'service.log'), bed.logs.join('\n'));
      expect(await scanForSecrets(logDir, secrets)).toEqual([]);
    } finally {
      await rm(logDir, { recursive: true, force: true });
    }
  });
});
