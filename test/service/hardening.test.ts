/**
 * Issue 15 findings on the Sandbox's HTTP face: bodies that are not UTF-8 (finding 7), requests naming another host
 * (finding 10, DNS rebinding), and the OTP outbox's file mode (finding 9).
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64UrlEncode, utf8Encode } from '../../src/shared/crypto/encoding';
import { API_KEY_SCHEMES, signerFromPrivateKey } from '../../src/shared/crypto/stamp';
import { startTestService, type TestService } from '../support/service';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.close();
});

/** The X-Stamp of exactly these bytes. */
async function stampOfBytes(bytes: Uint8Array): Promise<string> {
  const signer = signerFromPrivateKey(t.rootKey.curve, t.rootKey.privateKey);
  const stamp = { publicKey: signer.publicKey, scheme: API_KEY_SCHEMES[signer.curve], signature: await signer.sign(bytes) };
  return base64UrlEncode(utf8Encode(JSON.stringify(stamp)));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
async function postBytes(url: string, bytes: Uint8Array<ArrayBuffer>, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: bytes });
  return { status: response.status, body: await response.json() };
}

/** A create_policy body, correctly stamped, whose policy name holds the byte 0xFF (never valid in UTF-8). */
function invalidUtf8Body(): Uint8Array<ArrayBuffer> {
  const text = JSON.stringify({
    type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
    timestampMs: String(t.clock.now()),
    organizationId: t.info.organizationId,
    parameters: { policyName: 'name MARK', effect: 'EFFECT_ALLOW', notes: '' },
  });
  const bytes = new TextEncoder().encode(text);
  const mark = Buffer.from(bytes.buffer).indexOf('MARK');
  bytes[mark] = 0xff;
  return bytes;
}

describe('finding 7: bodies that are not valid UTF-8 are refused with a 400 before anything else', () => {
  it('a stamped submit whose body is not UTF-8 is refused and nothing is recorded', async () => {
    const bytes = invalidUtf8Body();
    const before = t.store.read.activities.list({ organizationId: t.info.organizationId, limit: 100 }).length;
    const reply = await postBytes(`${t.info.baseUrl}/public/v1/submit/create_policy`, bytes, { 'x-stamp': await stampOfBytes(bytes) });
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body.details[0].turnkeyErrorCode).toBe('REQUEST_INVALID');
    expect(reply.body.message).toBe('bad request body: not valid UTF-8; JSON bodies must be UTF-8 encoded');
    expect(t.store.read.activities.list({ organizationId: t.info.organizationId, limit: 100 })).toHaveLength(before);
    expect(t.store.read.policies.countByOrganization(t.info.organizationId)).toBe(0);
  });

  it('the encoding is checked before the stamp and before the auth proxy header', async () => {
    const bytes = invalidUtf8Body();
    const unstamped = await postBytes(`${t.info.baseUrl}/public/v1/query/whoami`, bytes, {});
    expect(unstamped.status).toBe(400);
    expect(unstamped.body.message).toContain('not valid UTF-8');
    const proxy = await postBytes(`${t.info.baseUrl}/v1/otp_init`, bytes, {});
    expect(proxy.status).toBe(400);
    expect(proxy.body.message).toContain('not valid UTF-8');
  });
});

/** POSTs an empty JSON object to `baseUrl` + `path` naming `host` in the Host header (fetch may not set it). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
function postWithHost(baseUrl: string, path: string, host: string): Promise<{ status: number; body: any }> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host, 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end('{}');
  });
}

describe('finding 10: the Sandbox answers only requests that name it in the Host header (DNS rebinding)', () => {
  it('refuses a Host naming another domain, or another port, with a 400 that says which hosts it answers to', async () => {
    const port = new URL(t.info.baseUrl).port;
    const rebound = await postWithHost(t.info.baseUrl, '/public/v1/query/whoami', `attacker.example:${port}`);
    expect(rebound.status).toBe(400);
    expect(rebound.body.details[0].turnkeyErrorCode).toBe('HOST_NOT_ALLOWED');
    expect(rebound.body.message).toContain(
      `Host "attacker.example:${port}" is not this service: it answers only to localhost:${port}, 127.0.0.1:${port}, [::1]:${port}`,
    );
    const otherPort = await postWithHost(t.info.baseUrl, '/v1/otp_init', '127.0.0.1:1');
    expect(otherPort.body.details[0].turnkeyErrorCode).toBe('HOST_NOT_ALLOWED');
  });

  it('serves the loopback names with the port it listens on', async () => {
    const port = new URL(t.info.baseUrl).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      const reply = await postWithHost(t.info.baseUrl, '/public/v1/query/whoami', host);
      expect(reply.body.details[0].turnkeyErrorCode, host).toBe('REQUEST_INVALID');
    }
  });

  it('accepts the extra names a service bound elsewhere is configured with (allowedHosts, --allowed-host)', async () => {
    const service = await startTestService({ allowedHosts: ['sandbox.internal'] });
    try {
      const port = new URL(service.info.baseUrl).port;
      const named = await postWithHost(service.info.baseUrl, '/public/v1/query/whoami', `sandbox.internal:${port}`);
      expect(named.body.details[0].turnkeyErrorCode).toBe('REQUEST_INVALID');
      const other = await postWithHost(service.info.baseUrl, '/public/v1/query/whoami', `elsewhere.internal:${port}`);
      expect(other.body.details[0].turnkeyErrorCode).toBe('HOST_NOT_ALLOWED');
    } finally {
      await service.close();
    }
  });
});

describe('finding 9: an existing --otp-outbox file is tightened to 0600 like the database', () => {
  it.skipIf(process.platform === 'win32')('at startup, and again before a live code is appended', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'quorumkey-outbox-mode-'));
    const outbox = join(directory, 'outbox.jsonl');
    writeFileSync(outbox, '{"contact":"old@example.com","channel":"email","code":"OLDCODE00","otpId":"x","createdAt":"2024-01-01T00:00:00.000Z"}\n');
    chmodSync(outbox, 0o644);
    const service = await startTestService({ otpOutbox: outbox });
    try {
      expect(statSync(outbox).mode & 0o777).toBe(0o600);
      chmodSync(outbox, 0o664);
      const reply = await service.proxy('otp_init', { otpType: 'OTP_TYPE_EMAIL', contact: 'new@example.com' });
      expect(reply.status).toBe(200);
      expect(statSync(outbox).mode & 0o777).toBe(0o600);
    } finally {
      await service.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
