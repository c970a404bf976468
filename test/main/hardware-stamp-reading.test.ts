/**
 * Before a token's PIN (or a touch), main's confirmation names the hardware credential that signs and the fingerprint
 * of the exact body it signs; the stamp check hands the confirmed line to the stamper for that body alone.
 */
import { describe, expect, it } from 'vitest';
import { confirmationOf } from '../../src/main/confirmation/confirmation';
import { ConfirmedReadings } from '../../src/main/confirmation/confirmed-readings';
import { confirmingStampCheck } from '../../src/main/confirmation/stamp-check';
import { readStamp, type StampReaderDeps } from '../../src/main/confirmation/stamp-reading';
import { submissionOf } from '../../src/main/client/submission';
import type { ProfileServices } from '../../src/main/profiles/active-profile';
import type { ConfirmationRequest } from '../../src/main/confirmation/confirmation';
import { utf8Encode } from '../../src/shared/crypto/encoding';
import { fingerprintOf } from '../../src/shared/crypto/stamp';

const TOKEN_KEY = {
  module: '/usr/lib/softhsm/libsofthsm2.so',
  tokenLabel: 'yk',
  keyLabel: 'ops-1',
  publicKey: `02${'11'.repeat(32)}`,
};
const body = JSON.stringify({
  type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
  timestampMs: '1700000000000',
  organizationId: 'org-1',
  parameters: { policyName: 'Deny exports', effect: 'EFFECT_DENY', condition: "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'" },
});
// Stamped into a file where the service cannot be asked: main's reading is what the request itself says.
const submission = submissionOf('/public/v1/submit/create_policy', body, 'file')!;

const PASSKEY = { credentialId: 'Y3JlZGVudGlhbC1vZi15ay01', publicKey: `04${'22'.repeat(64)}`, authenticatorId: 'auth-1', name: 'yk-5' };
const vote = JSON.stringify({
  type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
  timestampMs: '1700000000000',
  organizationId: 'org-1',
  parameters: { fingerprint: 'sha256:ab' },
});
const voteSubmission = submissionOf('/public/v1/submit/approve_activity', vote, 'file')!;

function servicesOf(profile: { apiKeyName: string; tokenKey?: typeof TOKEN_KEY; passkey?: typeof PASSKEY }): ProfileServices {
  const unreachable = () => Promise.reject(new Error('the service cannot be reached from here'));
  return {
    profile: { name: 'Ops', organizationId: 'org-1', ...profile },
    organization: { snapshot: unreachable },
    client: { query: unreachable },
  } as unknown as ProfileServices;
}

const deps = {
  settings: { get: async () => ({}) },
  tokens: { list: async () => [] },
  keychain: { listEncryptionKeys: async () => [], getApiKeyPublic: () => Promise.reject(new Error('none')), listOneTimeKeys: async () => [] },
  now: () => 1_700_000_000_000,
} as unknown as StampReaderDeps;

describe("main's reading before a hardware credential signs", () => {
  it('names the token key and the fingerprint of the body the token will sign', async () => {
    const { reading } = await readStamp(submission, servicesOf({ apiKeyName: 'ops', tokenKey: TOKEN_KEY }), deps);
    expect(submission.bodyFingerprint).toBe(fingerprintOf(utf8Encode(body)));
    expect(reading.signedBy).toEqual({ credential: 'PKCS#11 token "yk" key "ops-1"', bodyFingerprint: submission.bodyFingerprint });
    const detail = confirmationOf(reading).detail.split('\n');
    expect(detail).toContain('Signed with: PKCS#11 token "yk" key "ops-1"');
    expect(detail).toContain(`It signs the body with fingerprint: ${submission.bodyFingerprint}`);
  });

  it('says nothing of it for a keychain key, which asks no PIN and no touch', async () => {
    const { reading } = await readStamp(submission, servicesOf({ apiKeyName: 'ops' }), deps);
    expect(reading.signedBy).toBeUndefined();
    expect(confirmationOf(reading).detail).not.toContain('Signed with:');
  });

  it("names a passkey profile's security key for a vote, which its touch stamps", async () => {
    const { reading } = await readStamp(voteSubmission, servicesOf({ apiKeyName: 'ops', passkey: PASSKEY }), deps);
    expect(reading.signedBy).toEqual({
      credential: 'security key "yk-5" (credential Y3JlZGVudGlh…)',
      bodyFingerprint: voteSubmission.bodyFingerprint,
    });
    expect(confirmationOf(reading).detail).toContain('Signed with: security key "yk-5"');
  });

  it('says nothing of it for what a passkey profile submits, which its keychain key stamps', async () => {
    const { reading } = await readStamp(submission, servicesOf({ apiKeyName: 'ops', passkey: PASSKEY }), deps);
    expect(reading.signedBy).toBeUndefined();
  });

  it('shows a token label that would break the line escaped', async () => {
    const tokenKey = { ...TOKEN_KEY, tokenLabel: 'yk\u202eevil' };
    const { reading } = await readStamp(submission, servicesOf({ apiKeyName: 'ops', tokenKey }), deps);
    expect(confirmationOf(reading).detail).not.toContain('\u202e');
  });
});

describe('the stamp check', () => {
  const services = servicesOf({ apiKeyName: 'ops', tokenKey: TOKEN_KEY });

  it('leaves the line the person went ahead on for the stamp of that body, once', async () => {
    const asked: ConfirmationRequest[] = [];
    const readings = new ConfirmedReadings();
    const check = confirmingStampCheck({ ...deps, readings, confirm: async (request) => (asked.push(request), true) });
    await check(submission, services);
    expect(asked[0]!.reading!.signedBy!.bodyFingerprint).toBe(submission.bodyFingerprint);
    expect(readings.take(submission.bodyFingerprint)).toBe(asked[0]!.message);
    expect(readings.take(submission.bodyFingerprint)).toBeUndefined();
  });

  it('leaves nothing when the person cancels', async () => {
    const readings = new ConfirmedReadings();
    const check = confirmingStampCheck({ ...deps, readings, confirm: async () => false });
    await expect(check(submission, services)).rejects.toMatchObject({ code: 'USER_DECLINED' });
    expect(readings.take(submission.bodyFingerprint)).toBeUndefined();
  });
});
