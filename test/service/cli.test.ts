/**
 * The service's command line (`npm run service`) as a child process: what it prints, the root keys it takes or
 * generates, its usage errors, and a SIGTERM that arrives while requests are in flight.
 */
import { request } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { p256PublicKeyFromPrivate } from '../../src/shared/crypto/keys';
import { newKey, postJson, type Reply, stampedHeaders, type TestKey } from '../support/service';
import { killCliProcesses, spawnCli, startCli, type CliProcess } from './cli-process';

const directory = mkdtempSync(join(tmpdir(), 'quorumkey-cli-'));
afterAll(() => {
  killCliProcesses();
  rmSync(directory, { recursive: true, force: true });
});

let databases = 0;
function newDb(): string {
  databases += 1;
  return join(directory, `service-${databases}.db`);
}

/** SIGTERM, then the exit code and signal once the process has closed its output. */
async function terminate(cli: CliProcess): Promise<[number | null, NodeJS.Signals | null]> {
  cli.child.kill('SIGTERM');
  await cli.closed;
  return [cli.child.exitCode, cli.child.signalCode];
}

type PrivateKey = Pick<TestKey, 'curve' | 'privateKey'>;

async function whoami(baseUrl: string, organizationId: string, key: PrivateKey): Promise<Reply> {
  const body = JSON.stringify({ organizationId });
  return postJson(`${baseUrl}/public/v1/query/whoami`, body, await stampedHeaders(body, key));
}

describe('the info line', () => {
  it('is one JSON object with exactly the documented fields, served on 127.0.0.1, and the only stdout output', async () => {
    const root = newKey();
    const cli = await startCli(['--db', newDb(), '--port', '0', '--root-public-key', root.publicKey]);
    const { info } = cli;
    expect(Object.keys(info).sort()).toEqual([
      'attestationRootFingerprint',
      'authProxyConfigId',
      'authProxyUrl',
      'baseUrl',
      'enclaveSignerPublicKey',
      'organizationId',
      'otpTokenSignerPublicKey',
      'rootUserId',
      'sessionSignerPublicKey',
    ]);
    expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*$/);
    expect(info.authProxyUrl).toBe(info.baseUrl);
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    expect([info.organizationId, info.rootUserId, info.authProxyConfigId]).toEqual([
      expect.stringMatching(uuid),
      expect.stringMatching(uuid),
      expect.stringMatching(uuid),
    ]);
    for (const signer of [info.enclaveSignerPublicKey, info.sessionSignerPublicKey, info.otpTokenSignerPublicKey]) {
      expect(signer).toMatch(/^04[0-9a-f]{128}$/);
    }
    expect(info.attestationRootFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(await terminate(cli)).toEqual([0, null]);
    expect(cli.stdout()).toBe(`${JSON.stringify(info)}\n`);
  });
});

describe('root keys', () => {
  it('--root-public-key is repeatable, and a key of each curve stamps whoami as the root user', async () => {
    const keys = [newKey('p256'), newKey('secp256k1'), newKey('ed25519')];
    const cli = await startCli(['--db', newDb(), ...keys.flatMap((key) => ['--root-public-key', `${key.publicKey}:${key.curve}`])]);
    const { baseUrl, organizationId, rootUserId } = cli.info;
    for (const key of keys) {
      expect(await whoami(baseUrl, organizationId, key), key.curve).toMatchObject({ status: 200, body: { organizationId, userId: rootUserId } });
    }
    // A key that was not given is refused, so the 200s above are the flags' doing.
    expect((await whoami(baseUrl, organizationId, newKey('p256'))).status).toBe(401);
    expect(await terminate(cli)).toEqual([0, null]);
  });

  it('without --root-public-key, a generated P-256 key pair is written beside the db, mode 0600, and stamps whoami', async () => {
    const db = newDb();
    const cli = await startCli(['--db', db]);
    const file = `${db}.root-api-key.json`;
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    const pair = JSON.parse(readFileSync(file, 'utf8')) as TestKey;
    expect(pair).toEqual({
      publicKey: expect.stringMatching(/^0[23][0-9a-f]{64}$/),
      privateKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      curve: 'p256',
    });
    expect(pair.publicKey).toBe(p256PublicKeyFromPrivate(pair.privateKey, true));
    const { baseUrl, organizationId, rootUserId } = cli.info;
    expect(await whoami(baseUrl, organizationId, pair)).toMatchObject({ status: 200, body: { organizationId, userId: rootUserId } });
    expect(await terminate(cli)).toEqual([0, null]);
    expect(cli.stderr()).toContain(`its key pair is in ${file}`);
  });
});

describe('usage errors', () => {
  const key = newKey();
  it.each([
    ['an unknown flag', ['--colour', 'blue'], "Unknown option '--colour'"],
    ['a bad curve suffix', ['--root-public-key', `${key.publicKey}:p384`], 'curve must be p256, secp256k1 or ed25519, got p384'],
    ['a missing value', ['--root-public-key'], "Option '--root-public-key <value>' argument missing"],
    ['an unknown log level', ['--log-level', 'loud'], '--log-level must be error, warn, info, got loud'],
    ['a fee cap that is no amount of wei', ['--max-node-fee', '0.1'], '--max-node-fee must be a whole number of wei above 0, got 0.1'],
    ['a token without its chain', ['--token', '0x000000000000000000000000000000000000dEaD'], '--token expects CAIP2=ADDRESS'],
  ])('%s exits with code 2, the reason and the usage on stderr, nothing on stdout', async (_, args, reason) => {
    const db = newDb();
    const cli = spawnCli(['--db', db, ...args]);
    await cli.closed;
    expect([cli.child.exitCode, cli.child.signalCode]).toEqual([2, null]);
    expect(cli.stderr()).toContain(reason);
    expect(cli.stderr()).toContain('usage: quorumkey-sandbox');
    expect(cli.stdout()).toBe('');
    expect(existsSync(db)).toBe(false);
  });
});

type Outcome =
  /** A whole response. */
  | { kind: 'answered'; status: number; body: string }
  /** The connection failed before any response: refused, or closed with the request unread. */
  | { kind: 'unanswered'; error: string }
  /** A response began but never ended. */
  | { kind: 'cut'; error: string };

interface Posted {
  /** The request is on the wire (or has failed); a held one has been read and routed by the server. */
  sent: Promise<void>;
  outcome: Promise<Outcome>;
  /** Sends a held request's body. */
  release(): void;
}

/**
 * Posts on a connection of its own, so that each request's fate is its own. `hold` sends only the headers, with
 * `Expect: 100-continue`: the server answers 100 as it routes the request, so the test knows the request is in
 * the server's hands, and the body follows on `release()`.
 */
function post(url: string, headers: Record<string, string>, body: string, hold = false): Posted {
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const outgoing = request(url, {
    method: 'POST',
    headers: hold ? { ...headers, expect: '100-continue', 'content-length': String(Buffer.byteLength(body)) } : headers,
    agent: false,
  });
  const outcome = new Promise<Outcome>((resolve) => {
    let responded = false;
    outgoing.once(hold ? 'continue' : 'finish', markSent);
    outgoing.once('error', (error) => {
      markSent();
      resolve({ kind: responded ? 'cut' : 'unanswered', error: error.message });
    });
    outgoing.once('response', (response) => {
      responded = true;
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('end', () => resolve({ kind: 'answered', status: response.statusCode!, body: text }));
      response.once('error', (error) => resolve({ kind: 'cut', error: error.message }));
      response.once('close', () => {
        if (!response.complete) resolve({ kind: 'cut', error: 'the connection closed mid-response' });
      });
    });
  });
  if (hold) outgoing.flushHeaders();
  else outgoing.end(body);
  return { sent, outcome, release: () => outgoing.end(body) };
}

/** Resolves once the process has written `text` on stderr. */
function stderrShows(cli: CliProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!cli.stderr().includes(text)) return;
      cli.child.stderr!.off('data', check);
      resolve();
    };
    cli.child.stderr!.on('data', check);
    check();
    void cli.closed.then(() => reject(new Error(`the service closed without writing "${text}": ${cli.stderr()}`)));
  });
}

/** What fastify (return503OnClosing) answers a request it reads once closing has begun, without running it. */
const CLOSING_REPLY = { status: 503, body: '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}' };

describe('SIGTERM', () => {
  it('with requests in flight: each is answered in full or turned away unrun, acknowledged activities are kept, exit 0', async () => {
    const root = newKey();
    const db = newDb();
    const cli = await startCli(['--db', db, '--root-public-key', root.publicKey]);
    const { baseUrl, organizationId, rootUserId } = cli.info;
    // Stamped up front so that the requests leave together. 25 policies stay below the per-organization limit.
    // The first two are held: routed by the server before the SIGTERM, their bodies sent after it.
    const requests = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        const hold = index < 2;
        if (index % 2 === 1) {
          const body = JSON.stringify({ organizationId });
          return { hold, policyName: undefined, path: 'query/whoami', body, headers: await stampedHeaders(body, root) };
        }
        const policyName = `shutdown ${index}`;
        const body = JSON.stringify({
          type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: { policyName, effect: 'EFFECT_ALLOW', notes: '' },
        });
        return { hold, policyName, path: 'submit/create_policy', body, headers: await stampedHeaders(body, root) };
      }),
    );
    const inFlight = requests.map((each) => post(`${baseUrl}/public/v1/${each.path}`, each.headers, each.body, each.hold));
    await Promise.all(inFlight.map((each) => each.sent));
    const stopped = terminate(cli);
    await stderrShows(cli, 'SIGTERM: finishing in-flight requests');
    inFlight.forEach((each, index) => {
      if (requests[index]!.hold) each.release();
    });
    const outcomes = await Promise.all(inFlight.map((each) => each.outcome));
    expect(await stopped, cli.stderr()).toEqual([0, null]);

    // The server answers in full every request it read before closing began (the held ones among them); one it
    // reads after gets the whole 503 above and is not run; the others' connections close unread.
    expect(outcomes.filter((outcome) => outcome.kind === 'cut')).toEqual([]);
    expect(outcomes.filter((_, index) => requests[index]!.hold)).toEqual([
      { kind: 'answered', status: 200, body: expect.any(String) },
      { kind: 'answered', status: 200, body: expect.any(String) },
    ]);
    const answered = outcomes.flatMap((outcome) => (outcome.kind === 'answered' ? [outcome] : []));
    const closingReply = (outcome: { status: number; body: string }): boolean =>
      outcome.status === CLOSING_REPLY.status && outcome.body === CLOSING_REPLY.body;
    expect(answered.filter((outcome) => outcome.status !== 200 && !closingReply(outcome))).toEqual([]);

    const acknowledged: string[] = [];
    requests.forEach(({ policyName }, index) => {
      const outcome = outcomes[index]!;
      if (outcome.kind !== 'answered' || outcome.status !== 200) return;
      const reply = JSON.parse(outcome.body) as { userId?: string; activity?: { status: string } };
      if (policyName === undefined) {
        expect(reply.userId).toBe(rootUserId);
      } else {
        expect(reply.activity?.status).toBe('ACTIVITY_STATUS_COMPLETED');
        acknowledged.push(policyName);
      }
    });

    const database = new DatabaseSync(db, { readOnly: true });
    try {
      expect(database.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      const stored = database.prepare('SELECT name FROM policies ORDER BY name').all() as { name: string }[];
      // Exactly the acknowledged ones: none lost, and none run without its answer reaching the client.
      expect(stored.map((row) => row.name)).toEqual(acknowledged.sort());
      const completed = database
        .prepare("SELECT count(*) AS n FROM activities WHERE type = 'ACTIVITY_TYPE_CREATE_POLICY_V3' AND status = 'ACTIVITY_STATUS_COMPLETED'")
        .get();
      expect(completed).toEqual({ n: acknowledged.length });
    } finally {
      database.close();
    }
  });
});
