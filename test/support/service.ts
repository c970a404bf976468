/**
 * The one harness that starts the service for tests: in-process on a free loopback port with a temporary database
 * (or the given file), a movable clock, a root API key, the OIDC issuers the test trusts and an OTP outbox it can
 * read; plus helpers to stamp and post requests, call the auth proxy, or use Turnkey's official client. Tests that
 * need more around it (operators with keychain-backed profiles) build on `startTestService`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { encryptOtpCodeToBundle } from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { generateApiKeyPair, type ApiKeyCurve } from '../../src/shared/crypto/keys';
import { signerFromPrivateKey, stampBody } from '../../src/shared/crypto/stamp';
import { startService, type RunningService, type ServiceInfo, type ServiceOptions } from '../../src/service';
import { apiKeyCredentialTypeByCurve } from '../../src/service/auth/credentials';
import { stampPublicKeyOf } from '../../src/service/auth/stamp-public-key';
import { readOtpOutbox } from '../../src/service/proxy/outbox';
import type { Store } from '../../src/service/store';
import type { SeedCopy } from './seed';

/** An API key as the service registers it: the curve and the stamp form of the public key. */
export interface ApiPublicKey {
  curve: ApiKeyCurve;
  /** Stamp form (compressed SEC1 / raw Ed25519) hex. */
  publicKey: string;
}

/** An API key the test holds both halves of, so it can stamp. */
export interface TestKey extends ApiPublicKey {
  privateKey: string;
}

export function newKey(curve: ApiKeyCurve = 'p256'): TestKey {
  const pair = generateApiKeyPair(curve);
  return { curve, publicKey: stampPublicKeyOf({ publicKey: pair.publicKey, curve }), privateKey: pair.privateKey };
}

/** The JSON content type and the stamp header of `body` signed by `key`. */
export async function stampedHeaders(body: string, key: Pick<TestKey, 'curve' | 'privateKey'>): Promise<Record<string, string>> {
  const stamp = await stampBody(body, signerFromPrivateKey(key.curve, key.privateKey));
  return { 'content-type': 'application/json', [stamp.headerName]: stamp.headerValue };
}

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- responses are asserted field by field
}

/** POSTs `body` as is with `headers` and reads the JSON reply (an empty body reads as undefined). */
export async function postJson(url: string, body: string, headers: Record<string, string>): Promise<Reply> {
  const response = await fetch(url, { method: 'POST', headers, body });
  const raw = await response.text();
  return { status: response.status, body: raw === '' ? undefined : JSON.parse(raw) };
}

/** The HTTP status and turnkeyErrorCode of a refused request, to compare as a pair. */
export function refusal(reply: Reply): [number, unknown] {
  return [reply.status, reply.body?.details?.[0]?.turnkeyErrorCode];
}

/** clientSignature over a token usage, signed (raw r‖s) by `key` with Turnkey's own stamper. */
export async function clientSignature(key: TestKey, message: object) {
  const text = JSON.stringify(message);
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
  return {
    publicKey: key.publicKey,
    scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256' as const,
    message: text,
    signature: await stamper.sign(text, SignatureFormat.Raw),
  };
}

/** A verification or session token's `id` claim (read without verifying, as a client does). */
export function tokenIdOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { id: string }).id;
}

export interface PostOptions {
  key?: TestKey;
  /** Extra or replacing headers (e.g. a forged stamp). */
  headers?: Record<string, string>;
  /** Skip stamping entirely (e.g. to send only X-Stamp-WebAuthn in `headers`). */
  unstamped?: boolean;
}

export interface SubmitOptions extends PostOptions {
  /** Defaults to the root organization. */
  organizationId?: string;
  /** Defaults to the clock's now. */
  timestampMs?: string;
}

export interface TestClock {
  now: () => number;
  advance: (ms: number) => void;
}

export interface TestServiceOptions {
  /** Database file; a private temporary one by default. */
  db?: string;
  /** The clock's start; now by default. */
  startMs?: number;
  /** The cap on fees a node fills in (`--max-node-fee`). */
  maxNodeFeeWei?: ServiceOptions['maxNodeFeeWei'];
  stampVerifier?: ServiceOptions['stampVerifier'];
  /** OIDC issuers whose tokens oauth_login and OAuth providers accept. */
  oidcIssuers?: ServiceOptions['oidcIssuers'];
  /** Host names served besides the loopback ones. */
  allowedHosts?: ServiceOptions['allowedHosts'];
  /** The OTP outbox file, when the test brings its own; by default one in a temporary directory. */
  otpOutbox?: string;
  /** A seed file to start from instead of a root key, and the key file (beside it) the test stamps with as root. */
  seed?: { file: SeedCopy; rootKeyFile: string };
  /** Serve the clock route's moves (`--clock-control`). */
  clockControl?: boolean;
  /** Nodes to send transactions to (`--rpc`). */
  rpc?: ServiceOptions['rpc'];
  /** ERC-20 contracts whose balances are reported, per chain (`--token`). */
  tokens?: ServiceOptions['tokens'];
  /** Told of every request once answered (the Sandbox's request log). */
  requestLog?: ServiceOptions['requestLog'];
  /** Webhook endpoints may name any host (`--webhook-allow-any-host`). */
  webhookAllowAnyHost?: boolean;
}

export interface TestService<RootKey extends ApiPublicKey = TestKey> {
  info: ServiceInfo;
  service: RunningService;
  store: Store;
  rootKey: RootKey;
  /** The file the service appends OTP codes and emailed credential bundles to. */
  outbox: string;
  /** What the service logged (errors with ids, policy evaluation errors). */
  logs: string[];
  clock: TestClock;
  /** Stamps `body` (an object is serialised once) with `key` (default: the root key) and posts it. */
  post: (path: string, body: unknown, options?: PostOptions) => Promise<Reply>;
  query: (name: string, request: Record<string, unknown>, options?: PostOptions) => Promise<Reply>;
  /** The activity envelope Turnkey's clients take, stamped with the clock's now (root organization by default). */
  envelope: <const T extends string, P>(
    type: T,
    parameters: P,
    organizationId?: string,
  ) => { type: T; timestampMs: string; organizationId: string; parameters: P };
  /**
   * Moves the clock 1 ms and returns the envelope without its parameters, for a run of requests through Turnkey's
   * clients: identical bodies would be one idempotent activity.
   */
  nextEnvelope: <T extends string>(type: T, organizationId?: string) => { type: T; timestampMs: string; organizationId: string };
  /** Builds the submit envelope for `name` and posts it. */
  submit: (name: string, type: string, parameters: unknown, options?: SubmitOptions) => Promise<Reply>;
  /** Turnkey's official client, stamping with `key` (P-256 only, as ApiKeyStamper). */
  client: (key?: TestKey) => TurnkeyClient;
  /** Plain fetch to the auth proxy's `/v1/<name>` with the configuration header (override, or drop it with undefined). */
  proxy: (name: string, body: unknown, headers?: Record<string, string | undefined>) => Promise<Reply>;
  /** The OTP code last sent to `contact`. */
  lastCode: (contact: string) => { code: string; otpId: string };
  /** otp_init_v2 → outbox → encryptOtpCodeToBundle → otp_verify_v2; returns the verification token bound to `key`. */
  verifyContact: (contact: string, key: TestKey, otpType?: string) => Promise<string>;
  /** Adds a user with one API key (a fresh one of `curve` unless `key` is given) directly through the repositories. */
  addUser: <Key extends ApiPublicKey = TestKey>(options?: {
    organizationId?: string;
    name?: string;
    curve?: ApiKeyCurve;
    key?: Key;
    tagIds?: string[];
  }) => Promise<{ userId: string; key: Key }>;
  /** How many activities list_activities shows in the organization (root by default), up to its 100-item page. */
  activityCount: (organizationId?: string) => Promise<number>;
  /** Makes the root quorum `threshold` of `userIds` (test setup, straight through the store). */
  setRootQuorum: (threshold: number, userIds: string[]) => Promise<void>;
  close: () => Promise<void>;
}

/** With `rootPublicKey`, the root user's private key lives elsewhere (an operator's keychain): stamped calls name their key. */
export function startTestService(options?: TestServiceOptions): Promise<TestService>;
export function startTestService(options: TestServiceOptions & { rootPublicKey: ApiPublicKey }): Promise<TestService<ApiPublicKey>>;
export async function startTestService(options: TestServiceOptions & { rootPublicKey?: ApiPublicKey } = {}): Promise<TestService<ApiPublicKey>> {
  let nowMs = options.startMs ?? Date.now();
  let rootKey: ApiPublicKey = options.rootPublicKey ?? newKey('p256');
  const logs: string[] = [];
  const outboxDirectory = mkdtempSync(join(tmpdir(), 'quorumkey-test-outbox-'));
  const outbox = options.otpOutbox ?? join(outboxDirectory, 'otp-outbox.jsonl');
  const removeOutboxDirectory = () => rmSync(outboxDirectory, { recursive: true, force: true });
  let service: RunningService;
  try {
    service = await startService({
      db: options.db ?? ':memory:',
      port: 0,
      ...(options.maxNodeFeeWei === undefined ? {} : { maxNodeFeeWei: options.maxNodeFeeWei }),
      ...(options.seed === undefined
        ? { rootPublicKeys: [{ publicKey: rootKey.publicKey, curve: rootKey.curve }] }
        : { seed: options.seed.file.file }),
      now: () => nowMs,
      log: (line) => logs.push(line),
      otpOutbox: outbox,
      oidcIssuers: options.oidcIssuers ?? [],
      ...(options.stampVerifier === undefined ? {} : { stampVerifier: options.stampVerifier }),
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
      ...(options.clockControl === undefined ? {} : { clockControl: options.clockControl }),
      ...(options.rpc === undefined ? {} : { rpc: options.rpc }),
      ...(options.tokens === undefined ? {} : { tokens: options.tokens }),
      ...(options.requestLog === undefined ? {} : { requestLog: options.requestLog }),
      ...(options.webhookAllowAnyHost === undefined ? {} : { webhookAllowAnyHost: options.webhookAllowAnyHost }),
    });
  } catch (error) {
    removeOutboxDirectory();
    throw error;
  }
  const { info, store } = service;
  // A seed's key files exist once the service has started from it.
  if (options.seed !== undefined) rootKey = options.seed.file.key(options.seed.rootKeyFile);

  const signingKey = (key: TestKey | undefined): TestKey => {
    const chosen = key ?? rootKey;
    if (!('privateKey' in chosen)) throw new Error('the root key is held outside the test: pass the key to stamp with');
    return chosen as TestKey;
  };
  const post = async (path: string, body: unknown, postOptions: PostOptions = {}): Promise<Reply> => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const headers = postOptions.unstamped === true ? { 'content-type': 'application/json' } : await stampedHeaders(text, signingKey(postOptions.key));
    return postJson(`${info.baseUrl}${path}`, text, { ...headers, ...postOptions.headers });
  };
  const proxy = (name: string, body: unknown, headers: Record<string, string | undefined> = {}) => {
    const all: Record<string, string | undefined> = {
      'content-type': 'application/json',
      'x-auth-proxy-config-id': info.authProxyConfigId,
      ...headers,
    };
    const sent = Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
    return postJson(`${info.authProxyUrl}/v1/${name}`, JSON.stringify(body), sent);
  };
  const envelope = <const T extends string, P>(type: T, parameters: P, organizationId = info.organizationId) => ({
    type,
    timestampMs: String(nowMs),
    organizationId,
    parameters,
  });
  const lastCode = (contact: string) => {
    const message = readOtpOutbox(outbox)
      .filter((entry) => entry.contact === contact.toLowerCase())
      .at(-1);
    if (message === undefined) throw new Error(`no OTP was sent to ${contact}`);
    return { code: message.code, otpId: message.otpId };
  };

  return {
    info,
    service,
    store,
    rootKey,
    outbox,
    logs,
    clock: { now: () => nowMs, advance: (ms) => void (nowMs += ms) },
    post,
    query: (name, request, postOptions) => post(`/public/v1/query/${name}`, { organizationId: info.organizationId, ...request }, postOptions),
    envelope,
    nextEnvelope(type, organizationId = info.organizationId) {
      nowMs += 1;
      return { type, timestampMs: String(nowMs), organizationId };
    },
    submit: (name, type, parameters, submitOptions = {}) => {
      const body = envelope(type, parameters, submitOptions.organizationId);
      return post(`/public/v1/submit/${name}`, { ...body, timestampMs: submitOptions.timestampMs ?? body.timestampMs }, submitOptions);
    },
    client(key) {
      const { publicKey, privateKey } = signingKey(key);
      return new TurnkeyClient({ baseUrl: info.baseUrl }, new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: privateKey }));
    },
    proxy,
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
    async addUser<Key extends ApiPublicKey = TestKey>(userOptions: Parameters<TestService['addUser']>[0] & { key?: Key } = {}) {
      const key = (userOptions.key ?? newKey(userOptions.curve ?? 'p256')) as Key;
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
    async activityCount(organizationId = info.organizationId) {
      const reply = await post('/public/v1/query/list_activities', { organizationId, paginationOptions: { limit: '100' } });
      if (reply.status !== 200) throw new Error(`list_activities failed: ${JSON.stringify(reply.body)}`);
      return (reply.body.activities as unknown[]).length;
    },
    setRootQuorum: (threshold, userIds) =>
      store.transaction((tx) => tx.organizations.setRootQuorum(info.organizationId, { threshold, userIds }, nowMs)),
    async close() {
      await service.close();
      removeOutboxDirectory();
    },
  };
}
