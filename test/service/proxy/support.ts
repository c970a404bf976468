/**
 * A service with the auth proxy for tests: a movable clock, a temporary OTP outbox, an optional trusted OIDC
 * issuer, and helpers to call the proxy with plain fetch (docs/service.md#auth-proxy) and the main API with X-Stamp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { encryptOtpCodeToBundle } from '@turnkey/crypto';
import type { JSONWebKeySet } from 'jose';
import { signerFromPrivateKey, stampBody } from '../../../src/shared/crypto/stamp';
import { startService, type RunningService, type ServiceInfo } from '../../../src/service';
import { readOtpOutbox } from '../../../src/service/proxy/outbox';
import { newKey, type Reply, type TestKey } from '../helpers';

export interface ProxyTestService {
  info: ServiceInfo;
  service: RunningService;
  rootKey: TestKey;
  clock: { now(): number; advance(ms: number): void };
  /** Plain fetch to `/v1/<name>` with the configuration header (override or drop it with `headers`). */
  proxy(name: string, body: unknown, headers?: Record<string, string | undefined>): Promise<Reply>;
  /** A stamped main-API call; `headers` replace the stamp (e.g. X-Stamp-WebAuthn). */
  post(path: string, body: unknown, options?: { key?: TestKey; headers?: Record<string, string> }): Promise<Reply>;
  submit(name: string, type: string, organizationId: string, parameters: unknown, key?: TestKey): Promise<Reply>;
  /** The code last sent to `contact`. */
  lastCode(contact: string): { code: string; otpId: string };
  /** otp_init_v2 → outbox → encryptOtpCodeToBundle → otp_verify_v2; returns the verification token bound to `key`. */
  verifyContact(contact: string, key: TestKey, otpType?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startProxyTestService(options: { issuers?: { issuer: string; jwks: JSONWebKeySet }[] } = {}): Promise<ProxyTestService> {
  let nowMs = Date.now();
  const directory = mkdtempSync(join(tmpdir(), 'quorumkey-proxy-test-'));
  const outbox = join(directory, 'outbox.jsonl');
  const rootKey = newKey('p256');
  const service = await startService({
    db: ':memory:',
    rootPublicKeys: [{ publicKey: rootKey.publicKey, curve: 'p256' }],
    now: () => nowMs,
    log: () => {},
    otpOutbox: outbox,
    oidcIssuers: options.issuers ?? [],
  });
  const { info } = service;

  const reply = async (response: Response): Promise<Reply> => {
    const raw = await response.text();
    return { status: response.status, body: raw === '' ? undefined : JSON.parse(raw) };
  };
  const proxy = async (name: string, body: unknown, headers: Record<string, string | undefined> = {}) => {
    const all: Record<string, string | undefined> = { 'content-type': 'application/json', 'x-auth-proxy-config-id': info.authProxyConfigId, ...headers };
    const sent = Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
    return reply(await fetch(`${info.authProxyUrl}/v1/${name}`, { method: 'POST', headers: sent, body: JSON.stringify(body) }));
  };
  const post = async (path: string, body: unknown, postOptions: { key?: TestKey; headers?: Record<string, string> } = {}) => {
    const text = JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (postOptions.headers === undefined) {
      const key = postOptions.key ?? rootKey;
      const stamp = await stampBody(text, signerFromPrivateKey(key.curve, key.privateKey));
      headers[stamp.headerName] = stamp.headerValue;
    }
    Object.assign(headers, postOptions.headers);
    return reply(await fetch(`${info.baseUrl}${path}`, { method: 'POST', headers, body: text }));
  };
  const lastCode = (contact: string) => {
    const message = readOtpOutbox(outbox).filter((entry) => entry.contact === contact.toLowerCase()).at(-1);
    if (message === undefined) throw new Error(`no OTP was sent to ${contact}`);
    return { code: message.code, otpId: message.otpId };
  };

  return {
    info,
    service,
    rootKey,
    clock: { now: () => nowMs, advance: (ms) => void (nowMs += ms) },
    proxy,
    post,
    submit: (name, type, organizationId, parameters, key) =>
      post(`/public/v1/submit/${name}`, { type, timestampMs: String(nowMs), organizationId, parameters }, key === undefined ? {} : { key }),
    lastCode,
    async verifyContact(contact, key, otpType = 'OTP_TYPE_EMAIL') {
      const init = await proxy('otp_init_v2', { otpType, contact });
      if (init.status !== 200) throw new Error(`otp_init_v2 failed: ${JSON.stringify(init.body)}`);
      const { code, otpId } = lastCode(contact);
      const encryptedOtpBundle = await encryptOtpCodeToBundle(code, init.body.otpEncryptionTargetBundle, key.publicKey, info.otpTokenSignerPublicKey);
      const verified = await proxy('otp_verify_v2', { otpId, encryptedOtpBundle });
      if (verified.status !== 200) throw new Error(`otp_verify_v2 failed: ${JSON.stringify(verified.body)}`);
      return verified.body.verificationToken as string;
    },
    async close() {
      await service.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** clientSignature over a token usage, signed (raw r‖s) by `key` with Turnkey's own stamper. */
export async function clientSignature(key: TestKey, message: object) {
  const text = JSON.stringify(message);
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
  return { publicKey: key.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message: text, signature: await stamper.sign(text, SignatureFormat.Raw) };
}

/** The verification token's `id` claim (read without verifying, as a client does). */
export function tokenIdOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { id: string }).id;
}
