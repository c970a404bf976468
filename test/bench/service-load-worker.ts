/**
 * One load-generator thread of the service bench. It opens its own keep-alive connections, prepares what
 * the protocol lets it prepare (query stamps cover only the body, so every query is stamped before the
 * timed window; activities carry a fresh timestampMs and are stamped as they are sent), waits for `go`,
 * then keeps `concurrency` requests in flight until it has sent `requests` or the deadline passes.
 */
import { Agent, request as httpRequest } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { createNodeStampSigner } from '../../src/service/crypto/node-backend';
import { stampBody } from '../../src/shared/crypto/stamp';

export interface LoadWorkerInput {
  baseUrl: string;
  organizationId: string;
  /** P-256 root API key (private scalar hex) to stamp with. */
  privateKey: string;
  kind: 'query' | 'activity';
  /** For activities: the policy each update_policy rewrites. */
  policyId?: string;
  workerIndex: number;
  requests: number;
  concurrency: number;
  /** Stop issuing new requests this many milliseconds after `go`. */
  maxDurationMs: number;
}

/** What a worker posts: `ready` once prepared, then `done` with one latency (ms) per completed request. */
export type LoadWorkerMessage =
  | { type: 'ready' }
  | { type: 'done'; latencies: Float64Array; failureCount: number; failureSamples: string[] }
  | { type: 'error'; message: string };

interface PreparedRequest {
  path: string;
  body: string;
  stamp: string;
}

const input = workerData as LoadWorkerInput;
const port = parentPort!;
const signer = createNodeStampSigner('p256', input.privateKey);
const { hostname, port: serverPort } = new URL(input.baseUrl);
const agent = new Agent({ keepAlive: true, maxSockets: input.concurrency });

async function prepareQuery(): Promise<PreparedRequest> {
  const body = JSON.stringify({ organizationId: input.organizationId });
  return { path: '/public/v1/query/whoami', body, stamp: (await stampBody(body, signer)).headerValue };
}

async function prepareActivity(index: number): Promise<PreparedRequest> {
  const body = JSON.stringify({
    type: 'ACTIVITY_TYPE_UPDATE_POLICY_V2',
    timestampMs: String(Date.now()),
    organizationId: input.organizationId,
    parameters: { policyId: input.policyId, policyNotes: `worker ${input.workerIndex} revision ${index}` },
  });
  return { path: '/public/v1/submit/update_policy', body, stamp: (await stampBody(body, signer)).headerValue };
}

/** Posts one request; resolves with the response text, rejects on a non-200 answer. */
function post({ path, body, stamp }: PreparedRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        agent,
        host: hostname,
        port: serverPort,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-stamp': stamp },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode === 200) resolve(text);
          else reject(new Error(`${path} answered ${response.statusCode}: ${text.slice(0, 300)}`));
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function main(): Promise<void> {
  const prestamped = input.kind === 'query' ? await Promise.all(Array.from({ length: input.requests }, prepareQuery)) : [];
  await new Promise<void>((resolve) => {
    port.once('message', () => resolve());
    port.postMessage({ type: 'ready' } satisfies LoadWorkerMessage);
  });
  const deadline = performance.now() + input.maxDurationMs;
  const latencies = new Float64Array(input.requests);
  const failures: string[] = [];
  let issued = 0;
  let completed = 0;
  const lane = async (): Promise<void> => {
    while (issued < input.requests && performance.now() < deadline) {
      const index = issued++;
      const begin = performance.now();
      const prepared = input.kind === 'query' ? prestamped[index]! : await prepareActivity(index);
      try {
        const text = await post(prepared);
        // An activity answered 200 may still have FAILED in execution; only completed ones count.
        if (input.kind === 'activity' && !text.includes('"ACTIVITY_STATUS_COMPLETED"')) {
          throw new Error(`update_policy did not complete: ${text.slice(0, 300)}`);
        }
        latencies[completed++] = performance.now() - begin;
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: input.concurrency }, lane));
  agent.destroy();
  const done = latencies.slice(0, completed);
  port.postMessage(
    { type: 'done', latencies: done, failureCount: failures.length, failureSamples: failures.slice(0, 3) } satisfies LoadWorkerMessage,
    [done.buffer],
  );
}

main().catch((error: unknown) => {
  port.postMessage({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies LoadWorkerMessage);
});
