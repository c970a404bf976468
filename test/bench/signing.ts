/**
 * Signing throughput as a client sees it: sign_raw_payload activities/s (each a full authenticate → authorize →
 * open the key → sign → record transaction) against the service in its own process, with the load threads of the
 * service bench, beside the node:crypto secp256k1 sign bound measured in the same run before the service starts, and
 * their ratio. Once with a private key and once with a wallet account, whose key is derived from the wallet's seed for
 * every signature:
 * BIP-32 down m/44'/60'/0'/0/0, six HMAC-SHA512s (the three public keys it needs are remembered after the first).
 * The seed, PBKDF2 over the mnemonic (2,048 rounds of HMAC-SHA512 on libuv's thread pool), is kept for a minute after
 * it is computed, so in this burst only the first signature of each minute pays for it.
 * Then the signing workers: sign_raw_payloads at its cap of payloads, one request after another, against a service
 * with one signing worker and against one with a worker per core, as signatures/s beside the same bound.
 * Both sign_raw_payload phases are printed against the budget in docs/performance.md (≥ 0.5× the sign bound).
 * Numbers and ratios only; no assertions.
 * QK_BENCH_CPU_PROFILE=DIR runs the service under `node --cpu-prof`, keeps the profile in DIR and prints the
 * service's top self-time functions (both phases together), and its event-loop CPU per signature by stage for each.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceInfo } from '../../src/service';
import { MAX_RAW_PAYLOADS } from '../../src/shared/api/primitives';
import { stampPublicKeyOf } from '../../src/service/auth/stamp-public-key';
import { createNodeStampSigner } from '../../src/node/stamp-backend';
import { generateApiKeyPair } from '../../src/shared/crypto/keys';
import { stampBody } from '../../src/shared/crypto/stamp';
import { listProfiles, printNewProfiles, type ProfiledPhase } from './cpu-profile';
import { reportWarmUp, runPhase, startServiceProcess, stopServiceProcess, WARMUP_ACTIVITIES, type PhaseResult } from './service';

/** The budget of docs/performance.md: one signature per activity at half the sign bound or better. */
const BUDGET_OF_SIGN_BOUND = 0.5;
const SIGNATURES = 3_000;
const SIGN_ROUNDS = 5_000;
const PROFILE_TOP_FUNCTIONS = 30;
/** sign_raw_payloads requests (each MAX_RAW_PAYLOADS signatures) per worker count, after one to start the workers. */
const BATCHES = 5;

export interface SigningBenchResult {
  privateKey: PhaseResult;
  walletAccount: PhaseResult;
  signBoundPerSecond: number;
  /** sign_raw_payloads signatures/s by number of signing workers. */
  batchesByWorkers: Record<number, number>;
}

/** Single-threaded OpenSSL secp256k1 signatures per second over a 32-byte payload. */
function signBound(): number {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  const digest = Buffer.alloc(32, 7);
  const started = performance.now();
  for (let index = 0; index < SIGN_ROUNDS; index += 1) sign('sha256', digest, privateKey);
  return SIGN_ROUNDS / ((performance.now() - started) / 1000);
}

async function submitAsRoot(info: ServiceInfo, privateKey: string, name: string, type: string, parameters: unknown): Promise<unknown> {
  const body = JSON.stringify({ type, timestampMs: String(Date.now()), organizationId: info.organizationId, parameters });
  const stamp = await stampBody(body, createNodeStampSigner('p256', privateKey));
  const response = await fetch(`${info.baseUrl}/public/v1/submit/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [stamp.headerName]: stamp.headerValue },
    body,
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('"ACTIVITY_STATUS_COMPLETED"')) throw new Error(`${name} answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { activity: { result: unknown } }).activity.result;
}

function print(label: string, phase: PhaseResult, bound: number): void {
  console.log(
    `${label}: ${phase.perSecond.toFixed(0)}/s, ${(phase.perSecond / bound).toFixed(3)}× the sign bound ` +
      `(budget ≥ ${BUDGET_OF_SIGN_BOUND}×: ${phase.perSecond / bound >= BUDGET_OF_SIGN_BOUND ? 'met' : 'NOT met'})  ` +
      `p50 ${phase.p50Ms.toFixed(2)} ms  p99 ${phase.p99Ms.toFixed(2)} ms  (${phase.completed} completed, ${phase.failures} failed)`,
  );
  if (phase.serviceCpuMicrosPerRequest !== undefined) {
    // The whole process adds the thread pool's work: signature checks of stamps and a wallet account's PBKDF2.
    const processMicros = phase.serviceProcessCpuMicrosPerRequest;
    console.log(
      `  service CPU per signature: ${phase.serviceCpuMicrosPerRequest.toFixed(0)} µs on its event loop` +
        (processMicros === undefined ? '' : `, ${processMicros.toFixed(0)} µs in all its threads`) +
        `; the load threads used ${phase.loadCpuMicrosPerRequest.toFixed(0)} µs`,
    );
  }
}

/** Signatures/s of sign_raw_payloads at the cap, against a service with `workers` signing workers. */
async function batchSignaturesPerSecond(workers: number): Promise<number> {
  const directory = mkdtempSync(join(tmpdir(), 'quorumkey-bench-signing-workers-'));
  const root = generateApiKeyPair('p256');
  const { child, info } = await startServiceProcess(directory, stampPublicKeyOf({ publicKey: root.publicKey, curve: 'p256' }), undefined, [
    '--signing-workers',
    String(workers),
  ]);
  try {
    const keys = (await submitAsRoot(info, root.privateKey, 'create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [{ privateKeyName: 'bench', curve: 'CURVE_SECP256K1', addressFormats: ['ADDRESS_FORMAT_ETHEREUM'], privateKeyTags: [] }],
    })) as { createPrivateKeysResultV2: { privateKeys: { privateKeyId: string }[] } };
    const signWith = keys.createPrivateKeysResultV2.privateKeys[0]!.privateKeyId;
    const batch = (round: number) =>
      submitAsRoot(info, root.privateKey, 'sign_raw_payloads', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', {
        signWith,
        payloads: Array.from(
          { length: MAX_RAW_PAYLOADS },
          (_, index) => `${round.toString(16).padStart(8, '0')}${index.toString(16).padStart(56, '0')}`,
        ),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      });
    await batch(0);
    const started = performance.now();
    for (let round = 1; round <= BATCHES; round += 1) await batch(round);
    return (BATCHES * MAX_RAW_PAYLOADS) / ((performance.now() - started) / 1000);
  } finally {
    await stopServiceProcess(child);
    rmSync(directory, { recursive: true, force: true });
  }
}

async function compareWorkers(signBoundPerSecond: number): Promise<Record<number, number>> {
  const counts = [...new Set([1, availableParallelism()])];
  const byWorkers: Record<number, number> = {};
  for (const workers of counts) {
    byWorkers[workers] = await batchSignaturesPerSecond(workers);
    console.log(
      `sign_raw_payloads (${MAX_RAW_PAYLOADS} a request) with ${workers} signing worker${workers === 1 ? '' : 's'}: ` +
        `${byWorkers[workers].toFixed(0)} signatures/s, ${(byWorkers[workers] / signBoundPerSecond).toFixed(3)}× the sign bound` +
        (workers === 1 ? '' : `, ${(byWorkers[workers] / byWorkers[1]!).toFixed(2)}× one worker`),
    );
  }
  return byWorkers;
}

export async function run(): Promise<SigningBenchResult> {
  const directory = mkdtempSync(join(tmpdir(), 'quorumkey-bench-signing-'));
  const profileDirectory = process.env.QK_BENCH_CPU_PROFILE || undefined;
  const profilesBefore = new Set(profileDirectory === undefined ? [] : listProfiles(profileDirectory));
  const root = generateApiKeyPair('p256');
  // Before the service starts: its start (compiling the TypeScript, starting its workers) takes a core for seconds.
  const signBoundPerSecond = signBound();
  console.log(`node:crypto secp256k1 sign bound (one core, this process, measured before the service started): ${signBoundPerSecond.toFixed(0)}/s`);
  const { child, info, gc } = await startServiceProcess(directory, stampPublicKeyOf({ publicKey: root.publicKey, curve: 'p256' }), profileDirectory);
  let phases: Omit<SigningBenchResult, 'batchesByWorkers'>;
  const profiled: ProfiledPhase[] = [];
  try {
    const keys = (await submitAsRoot(info, root.privateKey, 'create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [{ privateKeyName: 'bench', curve: 'CURVE_SECP256K1', addressFormats: ['ADDRESS_FORMAT_ETHEREUM'], privateKeyTags: [] }],
    })) as { createPrivateKeysResultV2: { privateKeys: { privateKeyId: string }[] } };
    const wallet = (await submitAsRoot(info, root.privateKey, 'create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'bench',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    })) as { createWalletResult: { addresses: string[] } };
    const load = { baseUrl: info.baseUrl, organizationId: info.organizationId, privateKey: root.privateKey, kind: 'sign' as const };

    const byKey = { ...load, signWith: keys.createPrivateKeysResultV2.privateKeys[0]!.privateKeyId };
    const privateKeyWarmUp = await runPhase(child.pid!, byKey, WARMUP_ACTIVITIES);
    const privateKey = await runPhase(child.pid!, byKey, SIGNATURES);
    profiled.push({
      label: 'private key',
      window: privateKey.window,
      requests: privateKey.completed,
      eventLoopMicrosPerRequest: privateKey.serviceCpuMicrosPerRequest,
    });
    print('sign_raw_payload with a private key', privateKey, signBoundPerSecond);
    console.log(gc.describe(privateKey.window));
    reportWarmUp(privateKeyWarmUp);

    const byAccount = { ...load, signWith: wallet.createWalletResult.addresses[0]! };
    const walletAccountWarmUp = await runPhase(child.pid!, byAccount, WARMUP_ACTIVITIES);
    const walletAccount = await runPhase(child.pid!, byAccount, SIGNATURES);
    profiled.push({
      label: 'wallet account',
      window: walletAccount.window,
      requests: walletAccount.completed,
      eventLoopMicrosPerRequest: walletAccount.serviceCpuMicrosPerRequest,
    });
    print('sign_raw_payload with a wallet account', walletAccount, signBoundPerSecond);
    console.log(gc.describe(walletAccount.window));
    reportWarmUp(walletAccountWarmUp);
    phases = { privateKey, walletAccount, signBoundPerSecond };
  } finally {
    await stopServiceProcess(child);
    if (profileDirectory !== undefined) printNewProfiles(profileDirectory, profilesBefore, PROFILE_TOP_FUNCTIONS, profiled);
    rmSync(directory, { recursive: true, force: true });
  }
  // With the first service stopped, so that only the one measured uses the cores.
  return { ...phases, batchesByWorkers: await compareWorkers(phases.signBoundPerSecond) };
}
