/**
 * X-Stamp signing throughput: our node:crypto backend and our pure (noble) signer against the named baseline,
 * `@turnkey/api-key-stamper`'s ApiKeyStamper in its default Node runtime, in the same run over the same bodies.
 * Goal: node backend ≥ 5× the baseline.
 *
 * X-Stamp reading, which every query and activity pays in the service: parseApiKeyStamp's CPU per header against
 * the named baseline, its careful parser alone (parseApiKeyStamp before its fast path, issue 38).
 */
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { createNodeStampSigner } from '../../src/node/stamp-backend.js';
import { API_KEY_CURVES, generateApiKeyPair } from '../../src/shared/crypto/keys.js';
import { parseApiKeyStamp, parseApiKeyStampCarefully, signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp.js';

const GOAL_RATIO = 5;
const BODY_COUNT = 256;
const WARMUP_STAMPS = 200;
const ROUNDS = 6;
const SLICE_MS = 250;
const PARSE_HEADERS_PER_CURVE = 64;
const PARSE_WARMUP_PASSES = 50;
const PARSE_SLICE_HEADERS = 50_000;

export interface StampBenchResult {
  name: string;
  stamps: number;
  stampsPerSecond: number;
}

/** Realistic activity bodies of varying size, as a client would send them. */
function activityBodies(): string[] {
  return Array.from({ length: BODY_COUNT }, (_, index) =>
    JSON.stringify({
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      timestampMs: String(1_767_225_600_000 + index),
      organizationId: '7ff189fb-1111-4222-8333-944455556666',
      parameters: {
        signWith: `0x${index.toString(16).padStart(40, '0')}`,
        payload: 'ab'.repeat(32 + (index % 64) * 8),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      },
    }),
  );
}

interface Contender {
  name: string;
  stamp: (body: string) => Promise<unknown>;
}

/**
 * Interleaves short slices of each contender so that load from other processes on the machine affects all of them
 * alike, then reports each one's total rate.
 */
async function measure(contenders: Contender[], bodies: string[]): Promise<StampBenchResult[]> {
  const totals = contenders.map(() => ({ stamps: 0, milliseconds: 0 }));
  for (const { stamp } of contenders) {
    for (let index = 0; index < WARMUP_STAMPS; index++) await stamp(bodies[index % bodies.length]!);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, { stamp }] of contenders.entries()) {
      const total = totals[index]!;
      const started = performance.now();
      let elapsed = 0;
      while (elapsed < SLICE_MS) {
        await stamp(bodies[total.stamps % bodies.length]!);
        total.stamps++;
        elapsed = performance.now() - started;
      }
      total.milliseconds += elapsed;
    }
  }
  return contenders.map(({ name }, index) => {
    const { stamps, milliseconds } = totals[index]!;
    return { name, stamps, stampsPerSecond: Math.round((stamps / milliseconds) * 1000) };
  });
}

export interface StampParseBenchResult {
  name: string;
  headers: number;
  cpuMicrosecondsPerHeader: number;
}

/**
 * Interleaves slices of each parser over the same headers and charges each one the main thread's CPU time
 * (`process.threadCpuUsage`), which other processes' load does not inflate the way it does wall time.
 */
function measureParsing(parsers: Array<{ name: string; parse: (header: string) => unknown }>, headers: string[]): StampParseBenchResult[] {
  const totals = parsers.map(() => ({ headers: 0, microseconds: 0 }));
  for (const { parse } of parsers) {
    for (let pass = 0; pass < PARSE_WARMUP_PASSES; pass++) for (const header of headers) parse(header);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, { parse }] of parsers.entries()) {
      const started = process.threadCpuUsage();
      for (let count = 0; count < PARSE_SLICE_HEADERS; count++) parse(headers[count % headers.length]!);
      const { user, system } = process.threadCpuUsage(started);
      totals[index]!.headers += PARSE_SLICE_HEADERS;
      totals[index]!.microseconds += user + system;
    }
  }
  return parsers.map(({ name }, index) => {
    const { headers: parsed, microseconds } = totals[index]!;
    return { name, headers: parsed, cpuMicrosecondsPerHeader: microseconds / parsed };
  });
}

/** Headers of all three schemes in turn, signed over the activity bodies. */
async function stampHeaders(bodies: string[]): Promise<string[]> {
  const signers = API_KEY_CURVES.map((curve) => signerFromPrivateKey(curve, generateApiKeyPair(curve).privateKey));
  const headers: string[] = [];
  for (const body of bodies.slice(0, PARSE_HEADERS_PER_CURVE)) {
    for (const signer of signers) headers.push((await stampBody(body, signer)).headerValue);
  }
  return headers;
}

export async function run(): Promise<{ signing: StampBenchResult[]; parsing: StampParseBenchResult[] }> {
  const bodies = activityBodies();
  const { privateKey, publicKey } = generateApiKeyPair('p256');
  const baseline = new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: privateKey });
  const nodeSigner = createNodeStampSigner('p256', privateKey);
  const pureSigner = signerFromPrivateKey('p256', privateKey);

  const results = await measure(
    [
      { name: '@turnkey/api-key-stamper ApiKeyStamper (baseline)', stamp: (body) => baseline.stamp(body) },
      { name: 'QuorumKey node:crypto backend', stamp: (body) => stampBody(body, nodeSigner) },
      { name: 'QuorumKey pure (noble) signer', stamp: (body) => stampBody(body, pureSigner) },
    ],
    bodies,
  );
  const baselineRate = results[0]!.stampsPerSecond;
  for (const result of results) {
    const ratio = result.stampsPerSecond / baselineRate;
    console.log(`stamps ${result.name}: ${result.stampsPerSecond} stamps/s (${ratio.toFixed(2)}× baseline)`);
  }
  const nodeRatio = results[1]!.stampsPerSecond / baselineRate;
  console.log(
    `stamps: node backend is ${nodeRatio.toFixed(2)}× @turnkey/api-key-stamper — ` +
      (nodeRatio >= GOAL_RATIO ? `meets the ≥ ${GOAL_RATIO}× goal` : `BELOW the ≥ ${GOAL_RATIO}× goal`),
  );

  const parsing = measureParsing(
    [
      { name: 'parseApiKeyStampCarefully, the careful parser alone (baseline)', parse: parseApiKeyStampCarefully },
      { name: 'parseApiKeyStamp', parse: parseApiKeyStamp },
    ],
    await stampHeaders(bodies),
  );
  const baselineCost = parsing[0]!.cpuMicrosecondsPerHeader;
  for (const result of parsing) {
    const cost = result.cpuMicrosecondsPerHeader;
    console.log(
      `stamps reading ${result.name}: ${cost.toFixed(2)} µs CPU/header, ${Math.round(1_000_000 / cost)} headers/s ` +
        `(${(baselineCost / cost).toFixed(2)}× baseline), p256, secp256k1 and Ed25519 in turn`,
    );
  }
  return { signing: results, parsing };
}
