/**
 * One load-generator thread of the service bench. It opens its own keep-alive connections and builds and stamps
 * every request before the timed window (an activity's timestampMs is then seconds old when it is sent, well
 * within the hour the service accepts): on two cores, what the client spends stamping is taken from the service
 * it measures. It waits for `go`, then keeps `concurrency` requests in flight until it has sent `requests` or
 * the deadline passes; a request's latency runs from its write to its answer.
 */
import { connect, type Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { createNodeStampSigner } from '../../src/node/stamp-backend';
import { stampBody } from '../../src/shared/crypto/stamp';

export interface LoadWorkerInput {
  baseUrl: string;
  organizationId: string;
  /** P-256 root API key (private scalar hex) to stamp with. */
  privateKey: string;
  /** `activity`: update_policy; `sign`: sign_raw_payload of a fresh 32-byte digest. */
  kind: 'query' | 'activity' | 'sign';
  /** For activities: the policy each update_policy rewrites. */
  policyId?: string;
  /** For `sign`: the key that signs. */
  signWith?: string;
  workerIndex: number;
  requests: number;
  concurrency: number;
  /** Stop issuing new requests this many milliseconds after `go`. */
  maxDurationMs: number;
}

/** What a worker posts: `ready` once prepared, then `done` with one latency (ms) per completed request. */
export type LoadWorkerMessage =
  { type: 'ready' } | { type: 'done'; latencies: Float64Array; failureCount: number; failureSamples: string[] } | { type: 'error'; message: string };

interface PreparedRequest {
  path: string;
  body: string;
  stamp: string;
}

const input = workerData as LoadWorkerInput;
const port = parentPort!;
const signer = createNodeStampSigner('p256', input.privateKey);
const { hostname, port: serverPort } = new URL(input.baseUrl);

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

/** A distinct digest per request (worker and index in it), so that no two bodies share a fingerprint. */
async function prepareSign(index: number): Promise<PreparedRequest> {
  const body = JSON.stringify({
    type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    timestampMs: String(Date.now()),
    organizationId: input.organizationId,
    parameters: {
      signWith: input.signWith,
      payload: `${input.workerIndex.toString(16).padStart(8, '0')}${index.toString(16).padStart(8, '0')}`.padEnd(64, 'a'),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    },
  });
  return { path: '/public/v1/submit/sign_raw_payload', body, stamp: (await stampBody(body, signer)).headerValue };
}

/**
 * One keep-alive HTTP/1.1 connection, one request at a time, written as a single pre-built buffer and read back by
 * Content-Length (the service always sends it). Far lighter than node:http's client, which matters here: on a
 * 2-core machine every microsecond the load spends is taken from the service it measures.
 */
class Connection {
  private readonly socket: Socket;
  private buffered: Buffer = Buffer.alloc(0);
  private pending: { resolve: (text: string) => void; reject: (error: Error) => void; path: string } | undefined;

  constructor() {
    this.socket = connect({ host: hostname, port: Number(serverPort), noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.received(chunk));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(new Error('the service closed the connection')));
  }

  /** Resolves once the connection is open, rejects if it fails to open. */
  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.socket.connecting) return resolve();
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
  }

  /** Posts one request; resolves with the response text, rejects on a non-200 answer. */
  post({ path, body, stamp }: PreparedRequest): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.socket.destroyed) return reject(new Error(`the connection for ${path} is closed`));
      this.pending = { resolve, reject, path };
      const bytes = Buffer.from(body, 'utf8');
      const head =
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${serverPort}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${bytes.length}\r\nX-Stamp: ${stamp}\r\n\r\n`;
      this.socket.write(Buffer.concat([Buffer.from(head, 'latin1'), bytes]));
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private received(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const headerEnd = this.buffered.indexOf('\r\n\r\n');
    if (headerEnd < 0 || this.pending === undefined) return;
    const head = this.buffered.subarray(0, headerEnd).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null) return this.fail(new Error(`${this.pending.path} answered without Content-Length: ${head}`));
    const end = headerEnd + 4 + Number(length[1]);
    if (this.buffered.length < end) return;
    const text = this.buffered.subarray(headerEnd + 4, end).toString('utf8');
    this.buffered = this.buffered.subarray(end);
    const { resolve, reject, path } = this.pending;
    this.pending = undefined;
    const status = Number(head.slice(9, 12));
    if (status === 200) resolve(text);
    else reject(new Error(`${path} answered ${status}: ${text.slice(0, 300)}`));
  }

  private fail(error: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }
}

async function main(): Promise<void> {
  const prepare = input.kind === 'query' ? prepareQuery : input.kind === 'sign' ? prepareSign : prepareActivity;
  const prestamped = await Promise.all(Array.from({ length: input.requests }, (_, index) => prepare(index)));
  const connections = Array.from({ length: input.concurrency }, () => new Connection());
  await Promise.all(connections.map((connection) => connection.opened()));
  await new Promise<void>((resolve) => {
    port.once('message', () => resolve());
    port.postMessage({ type: 'ready' } satisfies LoadWorkerMessage);
  });
  const deadline = performance.now() + input.maxDurationMs;
  const latencies = new Float64Array(input.requests);
  const failures: string[] = [];
  let issued = 0;
  let completed = 0;
  const lane = async (connection: Connection): Promise<void> => {
    try {
      while (issued < input.requests && performance.now() < deadline) {
        const index = issued++;
        const begin = performance.now();
        const prepared = prestamped[index]!;
        try {
          const text = await connection.post(prepared);
          // An activity answered 200 may still have FAILED in execution; only completed ones count.
          if (input.kind !== 'query' && !text.includes('"ACTIVITY_STATUS_COMPLETED"')) {
            throw new Error(`${prepared.path} did not complete: ${text.slice(0, 300)}`);
          }
          latencies[completed++] = performance.now() - begin;
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    } finally {
      connection.close();
    }
  };
  await Promise.all(connections.map(lane));
  const done = latencies.slice(0, completed);
  port.postMessage(
    { type: 'done', latencies: done, failureCount: failures.length, failureSamples: failures.slice(0, 3) } satisfies LoadWorkerMessage,
    [done.buffer],
  );
}

main().catch((error: unknown) => {
  port.postMessage({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies LoadWorkerMessage);
});
