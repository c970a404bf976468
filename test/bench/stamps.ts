/**
 * X-Stamp signing throughput: our node:crypto backend and our pure (noble) signer against the named baseline,
 * `@turnkey/api-key-stamper`'s ApiKeyStamper in its default Node runtime, in the same run over the same bodies.
 * Goal: node backend ≥ 5× the baseline.
 */
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { createNodeStampSigner } from '../../src/node/stamp-backend.js';
import { generateApiKeyPair } from '../../src/shared/crypto/keys.js';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp.js';

const GOAL_RATIO = 5;
const BODY_COUNT = 256;
const WARMUP_STAMPS = 200;
const ROUNDS = 6;
const SLICE_MS = 250;

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

export async function run(): Promise<StampBenchResult[]> {
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
  return results;
}
