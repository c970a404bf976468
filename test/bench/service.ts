/**
 * Service throughput over loopback: stamped whoami queries/s and create_policy-then-delete activities/s,
 * with p50/p99 latency, beside the node:crypto P-256 verify bound measured in the same run.
 * Goals: ≥ 5,000 queries/s, ≥ 1,000 activities/s. Ratios and numbers only; no assertions.
 */
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { createNodeStampSigner } from '../../src/service/crypto/node-backend';
import { stampBody } from '../../src/shared/crypto/stamp';
import { startService } from '../../src/service';
import { newKey } from '../service/helpers';

const CONCURRENCY = 32;
const QUERIES = 10_000;
const ACTIVITIES = 3_000;

function fetchJson(post: (path: string, body: string) => Promise<unknown>, path: string, body: unknown): Promise<unknown> {
  return post(path, JSON.stringify(body));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(label: string, count: number, request: (index: number) => Promise<void>): Promise<number> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const index = next++;
        const begin = performance.now();
        await request(index);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const rate = count / seconds;
  console.log(
    `${label}: ${rate.toFixed(0)}/s  p50 ${percentile(latencies, 50).toFixed(2)} ms  p99 ${percentile(latencies, 99).toFixed(2)} ms  (${count} requests, ${CONCURRENCY} in flight)`,
  );
  return rate;
}

function verifyBound(): number {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const message = Buffer.alloc(200, 7);
  const signature = sign('sha256', message, privateKey);
  const rounds = 5_000;
  const started = performance.now();
  for (let index = 0; index < rounds; index += 1) verify('sha256', message, publicKey, signature);
  const rate = rounds / ((performance.now() - started) / 1000);
  console.log(`node:crypto P-256 verify bound (one core): ${rate.toFixed(0)}/s`);
  return rate;
}

export async function run(): Promise<{ queriesPerSecond: number; activitiesPerSecond: number; verifyPerSecond: number }> {
  const root = newKey();
  const service = await startService({ db: ':memory:', rootPublicKeys: [{ publicKey: root.publicKey, curve: 'p256' }], log: () => {} });
  const signer = createNodeStampSigner('p256', root.privateKey);
  const { baseUrl, organizationId } = service.info;
  const post = async (path: string, body: string): Promise<unknown> => {
    const stamp = await stampBody(body, signer);
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [stamp.headerName]: stamp.headerValue },
      body,
    });
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  try {
    const verifyPerSecond = verifyBound();
    const whoami = JSON.stringify({ organizationId });
    const queriesPerSecond = await measure('stamped whoami queries', QUERIES, () =>
      post('/public/v1/query/whoami', whoami).then(() => undefined),
    );
    const created = await fetchJson(post, '/public/v1/submit/create_policy', {
      type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
      timestampMs: String(Date.now()),
      organizationId,
      parameters: { policyName: 'bench', effect: 'EFFECT_ALLOW', condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'", notes: '' },
    });
    const policyId = (created as { activity: { result: { createPolicyResult: { policyId: string } } } }).activity.result.createPolicyResult.policyId;
    // Each update is a full activity (authorize, execute, record) without growing toward the 100-policies limit.
    const activitiesPerSecond = await measure('activities (update_policy)', ACTIVITIES, (index) =>
      post(
        '/public/v1/submit/update_policy',
        JSON.stringify({
          type: 'ACTIVITY_TYPE_UPDATE_POLICY_V2',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: { policyId, policyNotes: `revision ${index}` },
        }),
      ).then(() => undefined),
    );
    console.log(`queries at ${(queriesPerSecond / verifyPerSecond).toFixed(2)}× the verify bound; goals 5,000 queries/s, 1,000 activities/s`);
    return { queriesPerSecond, activitiesPerSecond, verifyPerSecond };
  } finally {
    await service.close();
  }
}
