/**
 * API keys on a PKCS#11 token, against a real SoftHSM2 token made in a temporary directory and a real Sandbox: the
 * key is generated on the token and cannot be read out, and every kind of request the service takes is stamped by it.
 * Skipped, saying so, only where softhsm2 is not installed (.ci/run installs it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pkcs11js from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Approvals } from '../../src/main/approvals/approvals';
import { ApiClient } from '../../src/main/client/api-client';
import { Pkcs11Tokens, type PinRequest } from '../../src/main/pkcs11/pkcs11-tokens';
import type { TokenKey } from '../../src/main/pkcs11/token-key';
import { Policies } from '../../src/main/policies/policies';
import { Profiles, type Profile } from '../../src/main/profiles/profiles';
import { ConfirmedReadings } from '../../src/main/confirmation/confirmed-readings';
import { Stamper, UNCONFIRMED_BODY } from '../../src/main/stamper/stamper';
import { fingerprintOf, verifyApiKeyStamp } from '../../src/shared/crypto/stamp';
import { utf8Encode } from '../../src/shared/crypto/encoding';
import { QkError } from '../../src/shared/errors';
import { ipcContract } from '../../src/shared/ipc/contract';
import { initSoftHsmToken, SOFTHSM_MODULE, softhsmPresent } from '../support/softhsm';
import { newKey, startTestService, type ApiPublicKey, type TestService } from '../support/service';

const TOKEN_LABEL = 'qk-test';
const PIN = '246810';
/** The policies made here deny what no test does, so none of them lets a later activity through without its votes. */
const DENY_DELETE_USERS = "activity.type == 'ACTIVITY_TYPE_DELETE_USERS'";

const token: PinRequest = { module: SOFTHSM_MODULE, tokenLabel: TOKEN_LABEL };
let removeToken: () => Promise<void>;
const asked: PinRequest[] = [];
let tokens: Pkcs11Tokens;
let key: TokenKey;

beforeAll(async () => {
  if (!softhsmPresent) return;
  removeToken = await initSoftHsmToken(TOKEN_LABEL, PIN);
  tokens = new Pkcs11Tokens({
    askPin: async (request) => {
      asked.push(request);
      return PIN;
    },
  });
  key = await tokens.generateKey({ ...token, keyLabel: 'operator' });
});

afterAll(async () => {
  if (!softhsmPresent) return;
  await tokens.close();
  await removeToken();
});

describe.skipIf(!softhsmPresent)('a P-256 key generated on a PKCS#11 token', () => {
  it('is listed with the public key generation returned, asking the PIN once per session', async () => {
    expect(key.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(key.keyId).toMatch(/^[0-9a-f]{32}$/);
    expect(await tokens.listKeys(token)).toEqual([{ ...key, canSign: true, keptOnToken: true }]);
    expect(asked).toEqual([token]);
  });

  it('refuses a second key under the same label', async () => {
    await expect(tokens.generateKey({ ...token, keyLabel: 'operator' })).rejects.toMatchObject({ code: 'KEY_EXISTS' });
  });

  it('keeps the private key on the token: reading CKA_VALUE fails with CKR_ATTRIBUTE_SENSITIVE', async () => {
    // Our sessions closed and the module unloaded, a second application reads the token as an attacker with the PIN would.
    await tokens.close();
    const pkcs11 = new pkcs11js.PKCS11();
    pkcs11.load(SOFTHSM_MODULE);
    pkcs11.C_Initialize();
    try {
      const slot = pkcs11.C_GetSlotList(true).find((candidate) => pkcs11.C_GetTokenInfo(candidate).label.trimEnd() === TOKEN_LABEL)!;
      const session = pkcs11.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
      pkcs11.C_Login(session, pkcs11js.CKU_USER, PIN);
      pkcs11.C_FindObjectsInit(session, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
        { type: pkcs11js.CKA_LABEL, value: 'operator' },
      ]);
      const [privateKey] = pkcs11.C_FindObjects(session, 2);
      pkcs11.C_FindObjectsFinal(session);
      expect(privateKey).toBeDefined();
      const [sensitive, extractable] = pkcs11.C_GetAttributeValue(session, privateKey!, [
        { type: pkcs11js.CKA_SENSITIVE },
        { type: pkcs11js.CKA_EXTRACTABLE },
      ]);
      expect([sensitive?.value[0], extractable?.value[0]]).toEqual([1, 0]);
      let refusal: unknown;
      try {
        pkcs11.C_GetAttributeValue(session, privateKey!, [{ type: pkcs11js.CKA_VALUE }]);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(pkcs11js.Pkcs11Error);
      expect((refusal as pkcs11js.Pkcs11Error).code).toBe(pkcs11js.CKR_ATTRIBUTE_SENSITIVE);
      pkcs11.C_Logout(session);
      pkcs11.C_CloseSession(session);
    } finally {
      pkcs11.C_Finalize();
      pkcs11.close();
    }
  });

  it('refuses a wrong PIN with a clear error, and asks again next time', async () => {
    await tokens.close();
    const wrong = new Pkcs11Tokens({ askPin: async () => '000000' });
    try {
      const error = await wrong.listKeys(token).then(
        () => undefined,
        (refusal: unknown) => refusal,
      );
      expect(error).toBeInstanceOf(QkError);
      expect(error).toMatchObject({ code: 'TOKEN_PIN_INVALID' });
      expect((error as QkError).message).toContain(`token "${TOKEN_LABEL}" refused the PIN (CKR_PIN_INCORRECT)`);
    } finally {
      await wrong.close();
    }
    const cancelled = new Pkcs11Tokens({ askPin: async () => undefined });
    try {
      await expect(cancelled.listKeys(token)).rejects.toMatchObject({ code: 'TOKEN_PIN_REQUIRED' });
    } finally {
      await cancelled.close();
    }
  });

  it('names the tokens it sees when the label is wrong', async () => {
    await tokens.close();
    await expect(tokens.listKeys({ ...token, tokenLabel: 'no-such-token' })).rejects.toThrow(
      `no token labelled "no-such-token" is present in ${SOFTHSM_MODULE}; it sees "${TOKEN_LABEL}"`,
    );
  });
});

describe.skipIf(!softhsmPresent)('stamping with a token key against the Sandbox', () => {
  let service: TestService<ApiPublicKey>;
  let dataDir: string;
  let profile: Profile;
  let stamper: Stamper;
  let client: ApiClient;
  const second = newKey();
  let secondUserId: string;

  beforeAll(async () => {
    if (!softhsmPresent) return;
    await tokens.close();
    service = await startTestService({ rootPublicKey: { publicKey: key.publicKey, curve: 'p256' } });
    dataDir = await mkdtemp(join(tmpdir(), 'qk-pkcs11-'));
    profile = await new Profiles({ dataDir }).add({
      name: 'Token',
      kind: 'sandbox',
      baseUrl: service.info.baseUrl,
      organizationId: service.info.organizationId,
      apiKeyName: 'operator',
      tokenKey: key,
      enclaveSignerPublicKey: service.info.enclaveSignerPublicKey,
    });
    // No keychain here: a profile with a token key must never reach for one.
    const noKeychain = { withApiKeySigner: () => Promise.reject(new Error('the keychain was asked for a token profile')) };
    stamper = new Stamper(noKeychain, tokens);
    client = new ApiClient({ profile, stamper, now: service.clock.now });
    ({ userId: secondUserId } = await service.addUser({ name: 'second', key: second }));
  });

  afterAll(async () => {
    if (!softhsmPresent) return;
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the token key through the profiles file and the profile channels', async () => {
    const stored = await new Profiles({ dataDir }).get(profile.id);
    expect(stored.tokenKey).toEqual(key);
    // The window is shown which token key signs: the channel's output schema lets the field through.
    expect(ipcContract['profiles.get'].output.parse(stored)).toEqual(stored);
  });

  it('stamps a query: whoami answers as the root user', async () => {
    const whoami = await client.query('whoami', { organizationId: service.info.organizationId });
    expect(whoami.userId).toBe(service.info.rootUserId);
  });

  it('stamps an activity, with a low-S DER signature the token key verifies', async () => {
    const created = await new Policies(client).create({
      name: 'made on a token',
      effect: 'EFFECT_DENY',
      condition: DENY_DELETE_USERS,
    });
    expect(created.state).toBe('completed');
    const body = JSON.stringify({ organizationId: service.info.organizationId });
    const stamp = await stamper.stamp(profile, body);
    const verified = verifyApiKeyStamp(stamp.headerValue, utf8Encode(body));
    expect(verified).toMatchObject({ publicKey: key.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256' });
  });

  it('asks the PIN restating the line the person confirmed and the fingerprint of the very bytes the token signs', async () => {
    const readings = new ConfirmedReadings();
    const body = JSON.stringify({ organizationId: service.info.organizationId, note: 'confirmed' });
    readings.confirmed(fingerprintOf(utf8Encode(body)), 'Approve "Change the root quorum" as root?');
    const confirming = new Stamper({ withApiKeySigner: () => Promise.reject(new Error('no keychain')) }, tokens, readings);
    await tokens.close();
    asked.length = 0;
    await confirming.stamp(profile, body);
    expect(asked).toEqual([
      { ...token, signing: { reading: 'Approve "Change the root quorum" as root?', bodyFingerprint: fingerprintOf(utf8Encode(body)) } },
    ]);
    // A body nobody confirmed (swapped after the confirmation, or a query) is said to be one: its line is not reused.
    await tokens.close();
    asked.length = 0;
    const swapped = JSON.stringify({ organizationId: service.info.organizationId, note: 'swapped' });
    readings.confirmed(fingerprintOf(utf8Encode(body)), 'Approve "Change the root quorum" as root?');
    await confirming.stamp(profile, swapped);
    expect(asked).toEqual([{ ...token, signing: { reading: UNCONFIRMED_BODY, bodyFingerprint: fingerprintOf(utf8Encode(swapped)) } }]);
  });

  it('votes on an activity that needs consensus, online and from an offline file posted later', async () => {
    await service.setRootQuorum(2, [service.info.rootUserId, secondUserId]);
    const approvals = new Approvals({ client, stamper, credential: profile, now: service.clock.now });

    const proposed = await service.submit(
      'create_policy',
      'ACTIVITY_TYPE_CREATE_POLICY_V3',
      { policyName: 'online vote', effect: 'EFFECT_DENY', condition: DENY_DELETE_USERS, notes: '' },
      { key: second },
    );
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(200);
    const online = (proposed.body as { activity: { status: string; fingerprint: string } }).activity;
    expect(online.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect((await approvals.approve(online.fingerprint)).status).toBe('ACTIVITY_STATUS_COMPLETED');

    const later = await service.submit(
      'create_policy',
      'ACTIVITY_TYPE_CREATE_POLICY_V3',
      { policyName: 'offline vote', effect: 'EFFECT_DENY', condition: DENY_DELETE_USERS, notes: '' },
      { key: second },
    );
    const offline = (later.body as { activity: { status: string; fingerprint: string; id: string } }).activity;
    const file = join(dataDir, 'approve.json');
    const path = '/public/v1/submit/approve_activity';
    await approvals.stampToFile(path, client.envelope('approve_activity', { fingerprint: offline.fingerprint }), file);
    expect(await approvals.postStampedFile(file)).toMatchObject({ id: offline.id, status: 'ACTIVITY_STATUS_COMPLETED' });
  });

  it('is refused with 401 when the body is changed after stamping', async () => {
    const body = JSON.stringify({ organizationId: service.info.organizationId });
    const stamp = await stamper.stamp(profile, body);
    const tampered = body.replace(service.info.organizationId, service.info.organizationId.toUpperCase());
    const reply = await fetch(`${service.info.baseUrl}/public/v1/query/whoami`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [stamp.headerName]: stamp.headerValue },
      body: tampered,
    });
    expect(reply.status).toBe(401);
    expect(await reply.text()).toContain('does not match the request body');
  });

  it('refuses to sign when the token key is not the one the profile pinned', async () => {
    const other = newKey();
    const swapped = { ...profile, tokenKey: { ...key, publicKey: other.publicKey } };
    await expect(stamper.stamp(swapped, '{}')).rejects.toMatchObject({ code: 'KEY_INVALID' });
  });
});

describe('a profile token key is validated field by field', () => {
  const valid = {
    module: SOFTHSM_MODULE,
    tokenLabel: TOKEN_LABEL,
    keyLabel: 'operator',
    publicKey: `02${'ab'.repeat(32)}`,
  };
  const base = {
    name: 'Token',
    kind: 'hosted' as const,
    baseUrl: 'https://api.turnkey.com',
    organizationId: '5f2c3e4a-0b1d-4c6e-9f8a-7b6c5d4e3f21',
    apiKeyName: 'operator',
  };

  it.each([
    [{ ...valid, module: 'libsofthsm2.so' }, 'profile.tokenKey.module must be the absolute path of a PKCS#11 module'],
    [{ ...valid, tokenLabel: ' padded' }, 'profile.tokenKey.tokenLabel must be 1-32 characters'],
    [{ ...valid, keyLabel: 'x'.repeat(33) }, 'profile.tokenKey.keyLabel must be 1-32 characters'],
    [{ ...valid, keyId: 'ABC' }, "profile.tokenKey.keyId must be the key's CKA_ID as lowercase hex"],
    [{ ...valid, publicKey: `04${'ab'.repeat(64)}` }, "profile.tokenKey.publicKey must be the key's compressed P-256 public key"],
    [{ ...valid, pin: '1234' }, 'profile.tokenKey.pin is not a field of a token key'],
  ])('%j is refused', async (tokenKey, message) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'qk-pkcs11-profile-'));
    try {
      const refusal = new Profiles({ dataDir }).add({ ...base, tokenKey });
      await expect(refusal).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
      await expect(refusal).rejects.toThrow(message);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
