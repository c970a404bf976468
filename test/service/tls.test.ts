/**
 * Serving beyond loopback (docs/sandbox.md#teams-tls): HTTPS with a given certificate and key, and a refusal to bind a
 * non-loopback address over plain HTTP unless told that the network in between is private.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '../../src/service';
import { rejection } from '../support/assertions';
import { newKey, stampedHeaders } from '../support/service';

const directory = mkdtempSync(join(tmpdir(), 'quorumkey-tls-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A self-signed P-256 certificate for 127.0.0.1 and localhost, valid for a day. */
function selfSignedCertificate(): { cert: string; key: string } {
  const [certFile, keyFile] = [join(directory, 'cert.pem'), join(directory, 'key.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/** POSTs over HTTPS trusting only `ca`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
function postTls(url: string, body: string, headers: Record<string, string>, ca: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers, ca }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

describe('TLS', () => {
  it('serves HTTPS with the given certificate: a stamped whoami answers over it, and plain HTTP does not', async () => {
    const tls = selfSignedCertificate();
    const root = newKey('p256');
    const service = await startService({ db: ':memory:', tls, rootPublicKeys: [root], log: () => undefined });
    try {
      expect(service.info.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const body = JSON.stringify({ organizationId: service.info.organizationId });
      const reply = await postTls(`${service.info.baseUrl}/public/v1/query/whoami`, body, await stampedHeaders(body, root), tls.cert);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ organizationId: service.info.organizationId, userId: service.info.rootUserId });
      // An HTTPS client that does not trust the certificate is refused by the handshake.
      await expect(fetch(`${service.info.baseUrl}/health`)).rejects.toThrow();
      await expect(fetch(`${service.info.baseUrl.replace('https:', 'http:')}/health`)).rejects.toThrow();
    } finally {
      await service.close();
    }
  });

  it('refuses to bind a non-loopback address without TLS, naming the flags; --allow-plaintext or TLS lets it', async () => {
    const refused = await rejection(startService({ db: ':memory:', host: '0.0.0.0', log: () => undefined }));
    expect(refused.code).toBe('CONFIG_INVALID');
    expect(refused.message).toMatch(/0\.0\.0\.0 is not a loopback address.*--tls-cert FILE --tls-key FILE.*--allow-plaintext/);
    for (const options of [{ allowPlaintext: true }, { tls: selfSignedCertificate() }]) {
      const service = await startService({ db: ':memory:', host: '0.0.0.0', log: () => undefined, ...options });
      await service.close();
    }
    // Loopback in any spelling needs neither.
    for (const host of ['127.0.0.1', 'localhost', '::1']) {
      const service = await startService({ db: ':memory:', host, log: () => undefined });
      await service.close();
    }
  });
});
