/** Stamper and ApiClient against a real local service and a real keychain. */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/main/client/api-client';
import { UNANSWERED_KEEP_MS, UnansweredSubmissions } from '../../src/main/client/unanswered';
import { verifyApiKeyStamp } from '../../src/shared/crypto/stamp';
import { fingerprintOf } from '../../src/shared/crypto/stamp';
import { scanForSecrets } from '../support/scan-for-secrets';
import { startTestBed, type TestBed } from './helpers';
import { rejection } from '../support/assertions';

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const allow = { policyName: 'allow all', effect: 'EFFECT_ALLOW', condition: 'true', consensus: 'true', notes: '' } as const;

describe('Stamper', () => {
  it('stamps the exact body with the keychain key so the stamp verifies over those bytes only', async () => {
    bed = await startTestBed(1);
    const [operator] = bed.operators;
    const body = '{"organizationId":"x"}';
    const stamp = await operator!.stamper.stamp({ apiKeyName: 'operator' }, body);
    expect(stamp.headerName).toBe('X-Stamp');
    expect(verifyApiKeyStamp(stamp.headerValue, new TextEncoder().encode(body)).publicKey).toBe(operator!.publicKey);
    expect(() => verifyApiKeyStamp(stamp.headerValue, new TextEncoder().encode(`${body} `))).toThrow(/does not match/);
  });
});

describe('ApiClient', () => {
  it('runs queries with the profile organization filled in', async () => {
    bed = await startTestBed(1);
    const client = bed.operators[0]!.client;
    const whoami = await client.query('whoami', {});
    expect(whoami.organizationId).toBe(bed.service.info.organizationId);
    expect(whoami.userId).toBe(bed.service.info.rootUserId);
  });

  it('submits an activity with the injected clock and returns the typed result of a completed one', async () => {
    bed = await startTestBed(1);
    const client = bed.operators[0]!.client;
    const outcome = await client.submit('create_policy', allow);
    expect(outcome.state).toBe('completed');
    if (outcome.state !== 'completed') return;
    expect(JSON.parse(outcome.request.body).timestampMs).toBe(String(bed.clock.now()));
    expect(outcome.activity.fingerprint).toBe(fingerprintOf(new TextEncoder().encode(outcome.request.body)));
    const { policy } = await client.query('get_policy', { policyId: outcome.result.policyId });
    expect(policy.policyName).toBe('allow all');
  });

  it('refuses an invalid request before stamping or posting, naming the field', async () => {
    bed = await startTestBed(1);
    const client = bed.operators[0]!.client;
    const error = await rejection(client.submit('create_policy', { ...allow, effect: 'EFFECT_MAYBE' as 'EFFECT_ALLOW' }));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.message).toContain('parameters.effect');
    expect((await client.query('list_activities', {})).activities).toEqual([]);
  });

  it('maps error bodies to QkErrors carrying the turnkeyErrorCode', async () => {
    bed = await startTestBed(1);
    const client = bed.operators[0]!.client;
    const missing = await rejection(client.query('get_policy', { policyId: '00000000-0000-4000-8000-000000000000' }));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.details).toMatchObject({ httpStatus: 404, turnkeyErrorCode: 'NOT_FOUND' });

    // A profile whose key the organization does not hold.
    const stranger = bed.operators[0]!;
    await stranger.keychain.generateApiKey({ name: 'stranger' });
    const strangerClient = new ApiClient({
      profile: { ...stranger.profile, apiKeyName: 'stranger' },
      stamper: stranger.stamper,
      now: bed.clock.now,
    });
    const unknownKey = await rejection(strangerClient.query('whoami', {}));
    expect(unknownKey.code).toBe('PUBLIC_KEY_NOT_FOUND');
    expect(unknownKey.details).toMatchObject({ httpStatus: 401 });
    await stranger.keychain.deleteApiKey('stranger');
  });

  it('reports an unreachable service as NETWORK_ERROR', async () => {
    bed = await startTestBed(1);
    const operator = bed.operators[0]!;
    const client = new ApiClient({ profile: { ...operator.profile, baseUrl: 'http://127.0.0.1:9' }, stamper: operator.stamper });
    const error = await rejection(client.query('whoami', {}));
    expect(error.code).toBe('NETWORK_ERROR');
    expect(error.message).toContain('http://127.0.0.1:9/public/v1/query/whoami');
  });

  it('returns CONSENSUS_NEEDED as a state, and re-posting the identical body is the same activity', async () => {
    bed = await startTestBed(2);
    const [first, second] = bed.operators;
    await bed.setRootQuorum(2, [first!.userId, second!.userId]);
    const outcome = await first!.client.submit('create_policy', allow);
    expect(outcome.state).toBe('consensus-needed');
    expect(outcome.activity.votes).toHaveLength(1);

    bed.clock.advance(60_000);
    const again = await first!.client.postActivity('create_policy', outcome.request.body);
    expect(again.activity.id).toBe(outcome.activity.id);
    expect(JSON.parse(again.request.body).timestampMs).toBe(JSON.parse(outcome.request.body).timestampMs);

    const approved = await second!.client.submit('approve_activity', { fingerprint: outcome.activity.fingerprint });
    expect(approved.activity.id).toBe(outcome.activity.id);
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('leaves no private key bytes in the data dir', async () => {
    bed = await startTestBed(1);
    const operator = bed.operators[0]!;
    await operator.client.submit('create_policy', allow);
    expect(operator.store.secrets.length).toBeGreaterThan(0);
    expect(await scanForSecrets(operator.dataDir, operator.store.secrets)).toEqual([]);
  });
});

describe('issue 26 item 5: a retry after an unknown outcome creates no second activity', () => {
  /**
   * Passes requests to the service and records the bodies; the first to `lostPath`, if given, reaches the service but
   * its answer never arrives, as on a slow network.
   */
  function network(lostPath?: string): { fetch: typeof fetch; sent: (path: string) => string[] } {
    const bodies: { url: string; body: string }[] = [];
    let lost = false;
    // ApiClient posts a URL string with a string body.
    const fetchWithLostAnswer = async (url: string, init: RequestInit & { body: string; signal: AbortSignal }): Promise<Response> => {
      bodies.push({ url, body: init.body });
      const response = await fetch(url, init);
      if (lostPath === undefined || lost || !url.endsWith(lostPath)) return response;
      lost = true;
      await response.text();
      // The service created the activity; the client hears nothing until its time-out aborts the wait.
      return new Promise<Response>((_, reject) => init.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    return { fetch: fetchWithLostAnswer as typeof fetch, sent: (path) => bodies.filter(({ url }) => url.endsWith(path)).map(({ body }) => body) };
  }

  function retryingClient(operator: TestBed['operators'][number], fetchImpl: typeof fetch, now: () => number): ApiClient {
    return new ApiClient({
      profile: operator.profile,
      stamper: operator.stamper,
      now,
      fetch: fetchImpl,
      timeoutMs: 3_000,
      unanswered: new UnansweredSubmissions({ now }),
    });
  }

  it('re-sends the timed-out body unchanged, so the service answers with the activity it already created', async () => {
    bed = await startTestBed(1);
    const slow = network('/submit/create_policy');
    const client = retryingClient(bed.operators[0]!, slow.fetch, bed.clock.now);
    const sentAt = bed.clock.now();
    const timedOut = await rejection(client.submit('create_policy', allow));
    expect(timedOut.code).toBe('TIMEOUT');

    bed.clock.advance(90_000);
    const retried = await client.submit('create_policy', allow);
    expect(retried.resentFromMs).toBe(sentAt);
    expect(slow.sent('/submit/create_policy')).toEqual([retried.request.body, retried.request.body]);
    const { activities } = await client.query('list_activities', {});
    expect(activities.map((activity) => activity.id)).toEqual([retried.activity.id]);
    expect((await client.query('list_policies', {})).policies).toHaveLength(1);
  });

  /** A signing request: the same one may rightly be made twice, unlike a policy with the same name. */
  async function signHi(client: ApiClient) {
    const created = await client.submit('create_private_keys', {
      privateKeys: [{ privateKeyName: 'retry key', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }],
    });
    if (created.state !== 'completed') throw new Error(`create_private_keys is ${created.state}`);
    const signWith = created.result.privateKeys[0]!.privateKeyId!;
    return () =>
      client.submit('sign_raw_payload', { signWith, payload: 'hi', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' });
  }

  it('sends a new request once the earlier one was answered, and after a refusal', async () => {
    bed = await startTestBed(1);
    const recorded = network();
    const client = retryingClient(bed.operators[0]!, recorded.fetch, bed.clock.now);
    const sign = await signHi(client);
    const first = await sign();
    bed.clock.advance(1_000);
    const second = await sign();
    expect(second.activity.id).not.toBe(first.activity.id);
    expect(second.resentFromMs).toBeUndefined();

    const missing = { policyId: '00000000-0000-4000-8000-000000000000' };
    const refused = await rejection(client.submit('delete_policy', missing));
    // An answer: the service recorded the activity as FAILED.
    expect(refused.details).toMatchObject({ activityId: expect.any(String) });
    bed.clock.advance(1_000);
    await rejection(client.submit('delete_policy', missing));
    const [refusedBody, nextBody] = recorded.sent('/submit/delete_policy');
    expect(nextBody).not.toBe(refusedBody);
  });

  it('sends a new request when the unanswered one is too old for the service to accept', async () => {
    bed = await startTestBed(1);
    const slow = network('/submit/sign_raw_payload');
    const client = retryingClient(bed.operators[0]!, slow.fetch, bed.clock.now);
    const sign = await signHi(client);
    const lost = await rejection(sign());
    expect(lost.code).toBe('TIMEOUT');
    bed.clock.advance(UNANSWERED_KEEP_MS + 1);
    const later = await sign();
    expect(later.resentFromMs).toBeUndefined();
    const signatures = (await client.query('list_activities', {})).activities.filter((activity) =>
      activity.type.startsWith('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD'),
    );
    expect(signatures).toHaveLength(2);
  });
});
