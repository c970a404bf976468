/**
 * `startTestService()`: the service in-process on a free loopback port with a temporary database, a root
 * API key, a movable clock, and helpers to stamp and post requests or to use Turnkey's official client.
 */
import { randomUUID } from 'node:crypto';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { generateApiKeyPair, type ApiKeyCurve } from '../../src/shared/crypto/keys';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp';
import { startService, type RunningService, type ServiceInfo, type ServiceOptions } from '../../src/service';
import { apiKeyCredentialTypeByCurve } from '../../src/service/auth/credentials';
import { stampPublicKeyOf } from '../../src/service/bootstrap';
import type { Store } from '../../src/service/store';

export interface TestKey {
  curve: ApiKeyCurve;
  /** Stamp form (compressed SEC1 / raw Ed25519) hex. */
  publicKey: string;
  privateKey: string;
}

export function newKey(curve: ApiKeyCurve = 'p256'): TestKey {
  const pair = generateApiKeyPair(curve);
  return { curve, publicKey: stampPublicKeyOf({ publicKey: pair.publicKey, curve }), privateKey: pair.privateKey };
}

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- responses are asserted field by field
}

export interface PostOptions {
  key?: TestKey;
  /** Extra or replacing headers (e.g. a forged stamp). */
  headers?: Record<string, string>;
  /** Skip stamping entirely. */
  unstamped?: boolean;
}

export interface TestService {
  info: ServiceInfo;
  service: RunningService;
  store: Store;
  rootKey: TestKey;
  /** What the service logged (errors with ids, policy evaluation errors). */
  logs: string[];
  clock: { now: () => number; advance: (ms: number) => void };
  /** Stamps `body` (an object is serialised once) with `key` (default: the root key) and posts it. */
  post(path: string, body: unknown, options?: PostOptions): Promise<Reply>;
  query(name: string, request: Record<string, unknown>, options?: PostOptions): Promise<Reply>;
  /** Builds the submit envelope for `name` in the root organization unless `organizationId` is given. */
  submit(
    name: string,
    type: string,
    parameters: unknown,
    options?: PostOptions & { organizationId?: string; timestampMs?: string },
  ): Promise<Reply>;
  /** Turnkey's official client, stamping with `key` (P-256 only, as ApiKeyStamper). */
  client(key?: TestKey): TurnkeyClient;
  /** Adds a user with one fresh API key directly through the repositories. */
  addUser(options?: { organizationId?: string; name?: string; curve?: ApiKeyCurve; tagIds?: string[] }): Promise<{ userId: string; key: TestKey }>;
  setRootQuorum(threshold: number, userIds: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function startTestService(
  options: { db?: string; startMs?: number; stampVerifier?: ServiceOptions['stampVerifier']; otpOutbox?: string } = {},
): Promise<TestService> {
  let nowMs = options.startMs ?? Date.now();
  const rootKey = newKey('p256');
  const logs: string[] = [];
  const service = await startService({
    db: options.db ?? ':memory:',
    port: 0,
    rootPublicKeys: [{ publicKey: rootKey.publicKey, curve: 'p256' }],
    now: () => nowMs,
    log: (line) => logs.push(line),
    ...(options.stampVerifier === undefined ? {} : { stampVerifier: options.stampVerifier }),
    ...(options.otpOutbox === undefined ? {} : { otpOutbox: options.otpOutbox }),
  });
  const { info, store } = service;

  const post = async (path: string, body: unknown, postOptions: PostOptions = {}): Promise<Reply> => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (postOptions.unstamped !== true) {
      const key = postOptions.key ?? rootKey;
      const stamp = await stampBody(text, signerFromPrivateKey(key.curve, key.privateKey));
      headers[stamp.headerName] = stamp.headerValue;
    }
    Object.assign(headers, postOptions.headers);
    const response = await fetch(`${info.baseUrl}${path}`, { method: 'POST', headers, body: text });
    const raw = await response.text();
    return { status: response.status, body: raw === '' ? undefined : JSON.parse(raw) };
  };

  return {
    info,
    service,
    store,
    rootKey,
    logs,
    clock: { now: () => nowMs, advance: (ms) => void (nowMs += ms) },
    post,
    query: (name, request, postOptions) =>
      post(`/public/v1/query/${name}`, { organizationId: info.organizationId, ...request }, postOptions),
    submit: (name, type, parameters, submitOptions = {}) =>
      post(
        `/public/v1/submit/${name}`,
        {
          type,
          timestampMs: submitOptions.timestampMs ?? String(nowMs),
          organizationId: submitOptions.organizationId ?? info.organizationId,
          parameters,
        },
        submitOptions,
      ),
    client: (key = rootKey) =>
      new TurnkeyClient({ baseUrl: info.baseUrl }, new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey })),
    async addUser(userOptions = {}) {
      const key = newKey(userOptions.curve ?? 'p256');
      const userId = randomUUID();
      const organizationId = userOptions.organizationId ?? info.organizationId;
      await store.transaction((tx) => {
        tx.users.insert({ id: userId, organizationId, name: userOptions.name ?? `user ${userId.slice(0, 8)}`, now: nowMs });
        tx.apiKeys.insert({
          id: randomUUID(),
          organizationId,
          userId,
          name: 'test key',
          publicKey: key.publicKey,
          credentialType: apiKeyCredentialTypeByCurve[key.curve],
          expirationSeconds: undefined,
          sessionProfileId: undefined,
          now: nowMs,
        });
        for (const tagId of userOptions.tagIds ?? []) tx.userTags.addMember(tagId, userId);
      });
      return { userId, key };
    },
    setRootQuorum: (threshold, userIds) =>
      store.transaction((tx) => tx.organizations.setRootQuorum(info.organizationId, { threshold, userIds }, nowMs)),
    close: () => service.close(),
  };
}
