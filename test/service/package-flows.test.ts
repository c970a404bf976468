/**
 * The packaged Sandbox proven end to end (issue 37): `quorumkey-sandbox` packed and installed with `--omit=dev` into an
 * empty app, as package.test.ts does, then started with a seed and a real Anvil node as `--rpc` — once as its bin, once
 * through `startSandbox` imported from the package — and driven by Turnkey's own clients, unchanged:
 * `@turnkey/viem` signs a message, typed data and transactions; `@turnkey/sdk-server` sends a transaction until
 * INCLUDED, runs a consensus vote, and exports a wallet that `@turnkey/crypto` decrypts to the account's mnemonic.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { decryptExportBundle, generateP256KeyPair } from '@turnkey/crypto';
import { Turnkey, type TurnkeyApiClient } from '@turnkey/sdk-server';
import { createAccount } from '@turnkey/viem';
import { createPublicClient, http, parseEther, type Hex, type PublicClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ServiceInfo } from '../../src/service';
import { startAnvil, type Anvil } from '../support/anvil';
import { expectViemAccountSigns } from '../support/signer-checks';
import { killCliProcesses, startCli } from './cli-process';

const ROOT = resolve(import.meta.dirname, '../..');
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'sandbox/package.json'), 'utf8')) as { name: string; bin: Record<string, string> };
const run = promisify(execFile);
/** The SDKs' types list Turnkey's hosted chains; the Sandbox serves the chains its --rpc flags name, hence `as never`. */
const CHAIN = 'eip155:31337';
const CI_USER = '11111111-2222-4333-8444-555555555555';
const MEMBER_USER = '22222222-3333-4444-8555-666666666666';
const POLLER = { intervalMs: 20, numRetries: 2 };
const directory = mkdtempSync(join(tmpdir(), 'quorumkey-package-flows-'));
const app = join(directory, 'app');
const bin = join(app, 'node_modules', MANIFEST.name, MANIFEST.bin['quorumkey-sandbox']!);
const seed = join(directory, 'seed.yaml');

let anvil: Anvil;
let node: PublicClient;

beforeAll(async () => {
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module' }));
  // Packed once per run by the project's global setup (test/support/sandbox-pack-setup.ts).
  await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', inject('sandboxTarball')], { cwd: app });
  writeFileSync(
    seed,
    [
      'organization:',
      '  organizationName: Packaged flows',
      '  users:',
      `    - { userId: ${CI_USER}, userName: ci, apiKeys: [{ apiKeyName: ci, keyFile: ci.key.json }] }`,
      `    - { userId: ${MEMBER_USER}, userName: member, apiKeys: [{ apiKeyName: member, keyFile: member.key.json }] }`,
      '  rootQuorum: { threshold: 1, userNames: [ci] }',
      '  wallets:',
      '    - walletName: Treasury',
      `      accounts: [{ curve: CURVE_SECP256K1, pathFormat: PATH_FORMAT_BIP32, path: "m/44'/60'/0'/0/0", addressFormat: ADDRESS_FORMAT_ETHEREUM }]`,
      '  policies:',
      '    - policyName: members create wallets with ci',
      '      effect: EFFECT_ALLOW',
      `      consensus: "approvers.any(user, user.id == '${CI_USER}')"`,
      "      condition: \"activity.resource == 'WALLET' && activity.action == 'CREATE'\"",
      '',
    ].join('\n'),
  );
  anvil = await startAnvil();
  node = createPublicClient({ transport: http(anvil.url) });
}, 600_000);

afterAll(() => {
  killCliProcesses();
  anvil?.process.kill('SIGTERM');
  rmSync(directory, { recursive: true, force: true });
});

function keyOf(name: string): { publicKey: string; privateKey: string } {
  return JSON.parse(readFileSync(join(directory, `${name}.key.json`), 'utf8')) as { publicKey: string; privateKey: string };
}

function sdkClient(info: ServiceInfo, user: 'ci' | 'member'): TurnkeyApiClient {
  const key = keyOf(user);
  return new Turnkey({
    apiBaseUrl: info.baseUrl,
    apiPublicKey: key.publicKey,
    apiPrivateKey: key.privateKey,
    defaultOrganizationId: info.organizationId,
    activityPoller: POLLER,
  }).apiClient();
}

/** Everything the issue asks of a packaged Sandbox, against the one whose first line is `info`. */
async function exerciseSandbox(info: ServiceInfo): Promise<void> {
  const ci = sdkClient(info, 'ci');
  const { wallets } = await ci.getWallets({});
  const treasury = wallets.find((wallet) => wallet.walletName === 'Treasury')!;
  const { accounts } = await ci.getWalletAccounts({ walletId: treasury.walletId });
  const address = accounts[0]!.address as Hex;

  // @turnkey/viem: a message, typed data (through a viem wallet client, as apps sign it) and a transaction of each
  // type, each recovered to the account's address.
  await expectViemAccountSigns(await createAccount({ client: ci, organizationId: info.organizationId, signWith: address }), address);

  // A send the Sandbox fills from the node, followed until the node includes it.
  await node.request({ method: 'anvil_setBalance' as never, params: [address, `0x${parseEther('1').toString(16)}`] as never });
  const recipient = '0x0000000000000000000000000000000000000B0b';
  const before = await node.getBalance({ address: recipient });
  const { sendTransactionStatusId } = await ci.ethSendTransaction({
    from: address,
    caip2: CHAIN as never,
    calls: [{ to: recipient, value: '12345' }],
  });
  const status = await ci.pollTransactionStatus({ sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 20_000 });
  expect(status.txStatus, JSON.stringify(status)).toBe('INCLUDED');
  expect(await node.getBalance({ address: recipient })).toBe(before + 12345n);

  // A consensus vote: the member's proposal waits for ci, whose approval completes it.
  const proposed = await sdkClient(info, 'member').createWallet({ walletName: 'needs ci', accounts: [] });
  expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
  const approved = await ci.approveActivity({ fingerprint: proposed.activity.fingerprint });
  expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  expect(approved.activity.votes.map((vote) => vote.userId).sort()).toEqual([CI_USER, MEMBER_USER].sort());

  // An export that @turnkey/crypto decrypts, pinned to this Sandbox's signer, to the mnemonic behind the account.
  const target = generateP256KeyPair();
  const exported = await ci.exportWallet({ walletId: treasury.walletId, targetPublicKey: target.publicKeyUncompressed });
  const mnemonic = await decryptExportBundle({
    exportBundle: exported.exportBundle,
    embeddedKey: target.privateKey,
    organizationId: info.organizationId,
    returnMnemonic: true,
    dangerouslyOverrideSignerPublicKey: info.enclaveSignerPublicKey,
  });
  expect(mnemonicToAccount(mnemonic).address).toBe(address);
}

describe('the packaged Sandbox, driven by Turnkey’s clients against a real node', () => {
  it('as its bin with --seed and --rpc', async () => {
    const sandbox = await startCli(['--db', ':memory:', '--seed', seed, '--rpc', `${CHAIN}=${anvil.url}`], [bin]);
    try {
      await exerciseSandbox(sandbox.info);
    } finally {
      sandbox.child.kill('SIGTERM');
      await sandbox.closed;
    }
    expect(sandbox.child.exitCode, sandbox.stderr()).toBe(0);
  }, 120_000);

  it('as startSandbox imported from the package, with seed and rpc', async () => {
    const script = join(app, 'start-sandbox.mjs');
    writeFileSync(
      script,
      [
        `import { startSandbox } from '${MANIFEST.name}';`,
        `const { stop, ...info } = await startSandbox({ seed: ${JSON.stringify(seed)}, rpc: { '${CHAIN}': ${JSON.stringify(anvil.url)} }, log: () => {} });`,
        'console.log(JSON.stringify(info));',
        "process.once('SIGTERM', () => void stop());",
        '',
      ].join('\n'),
    );
    const sandbox = await startCli([], [script]);
    try {
      await exerciseSandbox(sandbox.info);
    } finally {
      sandbox.child.kill('SIGTERM');
      await sandbox.closed;
    }
    expect(sandbox.child.exitCode, sandbox.stderr()).toBe(0);
  }, 120_000);
});
