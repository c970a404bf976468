/**
 * The CLI against the Sandbox profile of a data dir (the embedded service, restarted by each command over the same
 * database) and the real keychain: export a wallet to a stored encryption key, decrypt it with networking disabled,
 * encrypt a mnemonic to an import bundle from init_import_wallet and import it with `request`.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_KEYCHAIN_SERVICE, type Keychain } from '../../src/main/keychain/keychain';
import { OsSecretStore } from '../../src/main/keychain/secret-store';
import { SANDBOX_SERVICE_SECRET_ACCOUNT } from '../../src/main/sandbox/service-secret';
import type { WalletAccountParams } from '../../src/shared/api';
import { utf8Encode } from '../../src/shared/crypto/encoding';
import { addressFor } from '../../src/service/enclave/addresses';
import { deriveKey } from '../../src/service/enclave/derivation';
import { mnemonicToSeed } from '../../src/service/enclave/mnemonic';
import { RecordingStore } from '../support/recording-secret-store';
import { scanForSecrets } from '../support/scan-for-secrets';
import { runCli, writeNoNetworkPreload, type CliRun } from './helpers';
import { prepareSandboxDataDir, type SandboxDataDir } from './sandbox-data-dir';

const ACCOUNTS: WalletAccountParams[] = [
  { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
  { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' },
];

let dataDir: string;
let work: string;
let noNetwork: string;
let store: RecordingStore;
let keychain: Keychain;
let sandboxDataDir: SandboxDataDir;
let sandbox: { organizationId: string; rootUserId: string; signer: string };
const runs: CliRun[] = [];
/** Secrets seen by the test (mnemonics, seeds, derived keys) for the final scan. */
const seen: Uint8Array[] = [];

async function cli(args: string[], options: { offline?: boolean } = {}): Promise<CliRun> {
  const run = await runCli(dataDir, args, options.offline ? { noNetwork } : {});
  runs.push(run);
  return run;
}

/** Runs a command that must succeed, and answers its stdout as JSON (or undefined when it prints nothing). */
async function cliJson<T>(args: string[], options: { offline?: boolean } = {}): Promise<T> {
  const run = await cli(args, options);
  expect(run.stderr, args.slice(0, 2).join(' ')).toBe('');
  expect(run.code).toBe(0);
  return (run.stdout === '' ? undefined : JSON.parse(run.stdout)) as T;
}

async function deriveAddresses(mnemonic: string): Promise<string[]> {
  const seed = await mnemonicToSeed(mnemonic);
  seen.push(seed);
  return ACCOUNTS.map(({ curve, path, addressFormat }) => {
    const { privateKey, publicKey } = deriveKey({ seed, curve, path });
    seen.push(privateKey);
    return addressFor({ curve, publicKey, format: addressFormat });
  });
}

/** A submit body as the CLI user writes it for `request`. */
function submitBody(type: string, parameters: Record<string, unknown>): string {
  return JSON.stringify({ type, timestampMs: String(Date.now()), organizationId: sandbox.organizationId, parameters });
}

beforeAll(async () => {
  // The app's first start: the Sandbox profile, its key in the keychain, and a wallet to export.
  store = new RecordingStore(new OsSecretStore(DEFAULT_KEYCHAIN_SERVICE));
  sandboxDataDir = await prepareSandboxDataDir('qk-cli-sandbox-data-', { accounts: ACCOUNTS, secrets: store });
  ({ dataDir, keychain } = sandboxDataDir);
  const { info } = sandboxDataDir.sandbox;
  sandbox = { organizationId: info.organizationId, rootUserId: info.rootUserId, signer: info.enclaveSignerPublicKey };
  work = await mkdtemp(join(tmpdir(), 'qk-cli-sandbox-work-'));
  noNetwork = await writeNoNetworkPreload(work);
});

afterAll(async () => {
  await sandboxDataDir?.remove();
  await rm(work, { recursive: true, force: true });
});

it('exports a wallet from the Sandbox profile to a stored encryption key; decrypt opens it offline into a 0600 file', async () => {
  const generated = await cliJson<{ name: string; publicKey: string }>(['encryption-keys', 'generate', 'cold-storage']);
  expect(generated.name).toBe('cold-storage');

  const wallets = await cliJson<{ walletId: string; walletName: string }[]>(['wallets', 'list']);
  expect(wallets.map((wallet) => wallet.walletName)).toEqual(['treasury']);
  const { accounts } = await cliJson<{ accounts: { address: string }[] }>([
    'request',
    '--path',
    '/public/v1/query/list_wallet_accounts',
    '--body',
    JSON.stringify({ organizationId: sandbox.organizationId, walletId: wallets[0]!.walletId }),
  ]);

  const bundlePath = join(work, 'treasury.bundle.json');
  const exported = await cliJson<{ walletId: string; output: string }>([
    'wallets',
    'export',
    '--wallet',
    'treasury',
    '--encryption-key',
    'cold-storage',
    '--output',
    bundlePath,
  ]);
  expect(exported).toMatchObject({ walletId: wallets[0]!.walletId, output: bundlePath });

  const mnemonicPath = join(work, 'treasury.mnemonic');
  const decrypt = ['decrypt', '--bundle', bundlePath, '--encryption-key', 'cold-storage', '--organization', sandbox.organizationId];
  // Without --signer-public-key the production signer is pinned, which did not sign a sandbox bundle.
  const unpinned = await cli([...decrypt, '--plaintext-output', mnemonicPath], { offline: true });
  expect(unpinned.code).toBe(1);
  expect(unpinned.stderr).toMatch(/^BUNDLE_SIGNER_MISMATCH/);

  await cliJson([...decrypt, '--signer-public-key', sandbox.signer, '--plaintext-output', mnemonicPath], { offline: true });
  expect((await stat(mnemonicPath)).mode & 0o777).toBe(0o600);
  const mnemonic = (await readFile(mnemonicPath, 'utf8')).trim();
  seen.push(utf8Encode(mnemonic));
  expect(mnemonic.split(' ')).toHaveLength(12);
  expect(await deriveAddresses(mnemonic)).toEqual(accounts.map((account) => account.address));

  // An existing file is never overwritten with a secret.
  const again = await cli([...decrypt, '--signer-public-key', sandbox.signer, '--plaintext-output', mnemonicPath], { offline: true });
  expect(again.code).toBe(1);
});

it('encrypts a mnemonic offline to the import bundle of init_import_wallet, and import_wallet through request gives its addresses', async () => {
  const init = await cliJson<{ activity: { status: string; result: { initImportWalletResult: { importBundle: string } } } }>([
    'request',
    '--path',
    '/public/v1/submit/init_import_wallet',
    '--body',
    submitBody('ACTIVITY_TYPE_INIT_IMPORT_WALLET', { userId: sandbox.rootUserId }),
  ]);
  expect(init.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  const importBundlePath = join(work, 'import.bundle.json');
  await writeFile(importBundlePath, init.activity.result.initImportWalletResult.importBundle);

  const mnemonic = generateMnemonic(english, 256);
  seen.push(utf8Encode(mnemonic));
  const plaintextPath = join(work, 'import.mnemonic');
  await writeFile(plaintextPath, `${mnemonic}\n`, { mode: 0o600 });
  const encryptedPath = join(work, 'import.encrypted.json');
  await cliJson(
    [
      'encrypt',
      '--import-bundle',
      importBundlePath,
      '--plaintext-input',
      plaintextPath,
      '--organization',
      sandbox.organizationId,
      '--user',
      sandbox.rootUserId,
      '--key-format',
      'mnemonic',
      '--signer-public-key',
      sandbox.signer,
      '--output',
      encryptedPath,
    ],
    { offline: true },
  );
  const encryptedBundle = (await readFile(encryptedPath, 'utf8')).trim();
  expect(Object.keys(JSON.parse(encryptedBundle))).toEqual(['encappedPublic', 'ciphertext']);

  const bodyPath = join(work, 'import_wallet.json');
  await writeFile(
    bodyPath,
    submitBody('ACTIVITY_TYPE_IMPORT_WALLET', { userId: sandbox.rootUserId, walletName: 'imported', encryptedBundle, accounts: ACCOUNTS }),
  );
  const imported = await cliJson<{ activity: { status: string; result: { importWalletResult: { walletId: string; addresses: string[] } } } }>([
    'request',
    '--path',
    '/public/v1/submit/import_wallet',
    '--body',
    `@${bodyPath}`,
  ]);
  expect(imported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  expect(imported.activity.result.importWalletResult.addresses).toEqual(await deriveAddresses(mnemonic));
  const wallets = await cliJson<{ walletName: string }[]>(['wallets', 'list']);
  expect(wallets.map((wallet) => wallet.walletName).toSorted()).toEqual(['imported', 'treasury']);
});

it('leaves no API key, encryption key, mnemonic or derived key in the data dir or the captured output', async () => {
  const encryptionKeys: Uint8Array[] = [];
  for (const { name } of await keychain.listEncryptionKeys())
    await keychain.withEncryptionPrivateKey(name, (key) => void encryptionKeys.push(key.slice()));
  expect(encryptionKeys).toHaveLength(1);
  // The sandbox API key, generated in this process (the 40-byte entry is the service secret, when this run made it).
  expect(store.secrets.filter((secret) => secret.length === 32)).toHaveLength(1);
  const serviceSecret = await store.get(SANDBOX_SERVICE_SECRET_ACCOUNT);
  expect(serviceSecret).toHaveLength(40);
  const secrets = [...store.secrets, serviceSecret!.subarray(0, 32), ...encryptionKeys, ...seen];
  expect(seen).toHaveLength(8); // two mnemonics, their seeds and two derived keys each
  expect(await scanForSecrets(dataDir, secrets)).toEqual([]);

  const logDir = await mkdtemp(join(tmpdir(), 'qk-cli-sandbox-log-'));
  try {
    expect(runs.length).toBeGreaterThan(8);
    await writeFile(join(logDir, 'cli-output.log'), runs.map((run) => `${run.stdout}\n${run.stderr}`).join('\n'));
    expect(await scanForSecrets(logDir, secrets)).toEqual([]);
  } finally {
    await rm(logDir, { recursive: true, force: true });
  }
});

it('lists activities newest first a page at a time: --before pages back from an activity id', async () => {
  type Listed = Array<{ id: string }>;
  const newest = await cliJson<Listed>(['activities', 'list', '--limit', '100']);
  expect(newest.length).toBeGreaterThanOrEqual(2);
  const [first] = await cliJson<Listed>(['activities', 'list', '--limit', '1']);
  const [second] = await cliJson<Listed>(['activities', 'list', '--limit', '1', '--before', first!.id]);
  expect([first!.id, second!.id]).toEqual(newest.slice(0, 2).map((activity) => activity.id));

  // A FAILED activity beside the COMPLETED ones, so that the status filter has something to leave out.
  const body = submitBody('ACTIVITY_TYPE_DELETE_POLICY', { policyId: 'no-such-policy' });
  const { activity: failed } = await cliJson<{ activity: { id: string; status: string } }>([
    'request',
    '--path',
    '/public/v1/submit/delete_policy',
    '--body',
    body,
  ]);
  expect(failed.status).toBe('ACTIVITY_STATUS_FAILED');
  const idsWith = async (status: string) =>
    (await cliJson<Listed>(['activities', 'list', '--status', status, '--limit', '100'])).map((activity) => activity.id);
  expect(await idsWith('ACTIVITY_STATUS_FAILED')).toEqual([failed.id]);
  expect(await idsWith('ACTIVITY_STATUS_COMPLETED')).toEqual(newest.map((activity) => activity.id));
});
