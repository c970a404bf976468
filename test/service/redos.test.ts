/**
 * Regex denial of service (issue 15, finding 1): every pattern the service applies to request text answers in time
 * linear in the input. Each check is fed a pathological input of 10 kB and of 100 kB in the same run; linear work
 * grows about 10×, quadratic backtracking about 100×, so the ratio tells them apart without a wall-clock threshold.
 * The work is measured as the process's CPU time, which other processes on a busy machine do not inflate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, parseRequest } from '../../src/shared/api';
import { decodeTypedData } from '../../src/shared/chains/ethereum';
import { base64UrlDecode, hexToBytes } from '../../src/shared/crypto/encoding';
import { generateApiKeyPair } from '../../src/shared/crypto/keys';
import { activityKindOf } from '../../src/shared/policy/activity-classes';
import { parseCronSchedule, parseSpanDuration, parseTimeZone } from '../../src/shared/policy/cron-span';
import { parseTimestamp } from '../../src/shared/policy/timestamp';
import { isEmailAddress, trimTrailing } from '../../src/shared/text';
import { createOidcVerifier } from '../../src/service/auth/oidc';
import { stampPublicKeyOf } from '../../src/service/auth/stamp-public-key';
import { createNodeStampVerifier } from '../../src/node/stamp-backend';
import { parsePath } from '../../src/service/enclave/derivation';
import { parseMnemonic } from '../../src/service/enclave/mnemonic';
import { validateLightningReceive } from '../../src/service/enclave/spark';
import { checkUserFields } from '../../src/service/families/identity/users';
import { normalizeContact } from '../../src/service/proxy/otp';
import { startTestService, type TestService } from '../support/service';

const SMALL = 10_000;
const LARGE = 100_000;
/**
 * Linear work grows ~10× from SMALL to LARGE and quadratic ~100× (the old email check measured 80×); 40 leaves room
 * for cache and garbage-collection effects.
 */
const MAX_GROWTH = 40;

function ignoringErrors(check: (input: string) => unknown): (input: string) => void {
  return (input) => {
    try {
      check(input);
    } catch {
      // Refusing the input is the expected outcome; only the time it takes matters here.
    }
  };
}

/** Milliseconds of CPU time spent on `repetitions` calls. */
function cpuTimeOf(check: (input: string) => void, input: string, repetitions: number): number {
  const start = process.cpuUsage();
  for (let call = 0; call < repetitions; call += 1) check(input);
  const spent = process.cpuUsage(start);
  return (spent.user + spent.system) / 1000;
}

/**
 * How much more work the LARGE input takes than the SMALL one: enough repetitions to rise above timer resolution,
 * both sizes measured in alternation and the least of each kept.
 */
function growth(check: (input: string) => void, pathological: (length: number) => string): number {
  const small = pathological(SMALL);
  const large = pathological(LARGE);
  expect(large.length).toBeGreaterThanOrEqual(LARGE);
  check(large);
  let repetitions = 1;
  // Checks that refuse by length alone take nanoseconds: millions of calls bring them above the timer's resolution.
  while (repetitions < 1 << 24 && cpuTimeOf(check, small, repetitions) < 5) repetitions *= 2;
  let leastSmall = Infinity;
  let leastLarge = Infinity;
  for (let round = 0; round < 7; round += 1) {
    leastSmall = Math.min(leastSmall, cpuTimeOf(check, small, repetitions));
    leastLarge = Math.min(leastLarge, cpuTimeOf(check, large, repetitions));
  }
  return leastLarge / leastSmall;
}

const repeat = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length));

const p256Key = stampPublicKeyOf({ publicKey: generateApiKeyPair('p256').publicKey, curve: 'p256' });
const stampVerifier = createNodeStampVerifier();
const oidc = createOidcVerifier({ issuers: [], now: () => new Date() });

/** [what, the check as the service runs it, an input that makes a backtracking pattern blow up]. */
const cases: [string, (input: string) => unknown, (length: number) => string][] = [
  ['otp_init email contact', (input) => normalizeContact('OTP_TYPE_EMAIL', input), (n) => `a@${'.'.repeat(n)}@`],
  ['otp_init email contact (a. runs)', (input) => normalizeContact('OTP_TYPE_EMAIL', input), (n) => `a@${repeat('a.', n)}@`],
  ['otp_init SMS contact', (input) => normalizeContact('OTP_TYPE_SMS', input), (n) => `+1${'5'.repeat(n)}x`],
  ['user email', (input) => checkUserFields({ userEmail: input }, 'parameters.'), (n) => `a@${'.'.repeat(n)}@`],
  ['user phone number', (input) => checkUserFields({ userPhoneNumber: input }, 'parameters.'), (n) => `+1${'5'.repeat(n)}x`],
  ['isEmailAddress', isEmailAddress, (n) => `a@${repeat('a.', n)} `],
  ['trailing padding / slashes', (input) => trimTrailing(input, '='), (n) => `${'='.repeat(n)}x`],
  ['base64url padding', (input) => base64UrlDecode(input, 'field'), (n) => `${'='.repeat(n)}x`],
  ['hex', (input) => hexToBytes(input, 'field'), (n) => `${'a'.repeat(n)}gg`],
  ['stamp signature hex', (input) => stampVerifier.verify('p256', p256Key, input, new Uint8Array(1)), (n) => `${'a'.repeat(n)}gg`],
  ['BIP32 path', parsePath, (n) => `m/${'1'.repeat(n)}x`],
  ['mnemonic words', (input) => parseMnemonic(input), (n) => `${' \t'.repeat(n / 2)}x`],
  ['OIDC token shape', (input) => void oidc.verify(input).catch(() => {}), (n) => `${repeat('a.', n)}a.a.!`],
  ['OIDC token shape (base64)', (input) => void oidc.verify(input).catch(() => {}), (n) => `${'a'.repeat(n)}=!`],
  ['policy cron schedule', parseCronSchedule, (n) => `${'1'.repeat(n)}- * * * *`],
  ['policy span duration', parseSpanDuration, (n) => `${'1'.repeat(n)}d1h1m!`],
  ['policy time zone', parseTimeZone, (n) => `A${'a'.repeat(n)}!`],
  ['policy timestamp', parseTimestamp, (n) => `2024-01-01T00:00:00.${'1'.repeat(n)}Z`],
  ['activity type', activityKindOf, (n) => `ACTIVITY_TYPE_${repeat('_V1', n)}x`],
  [
    'EIP-712 field type',
    (input) => decodeTypedData(JSON.stringify({ types: { Mail: [{ name: 'a', type: input }] }, primaryType: 'Mail', message: { a: 1 } }), 'payload'),
    (n) => `${repeat('[]', n)}x`,
  ],
  [
    'Spark operator id',
    (input) => validateLightningReceive({ threshold: 1, operatorRecipients: [{ operatorId: input, encryptionPublicKey: `02${'a'.repeat(64)}` }] }),
    (n) => `${'0'.repeat(n)}-`,
  ],
  [
    'decimal string field',
    (input) => parseRequest(operations.list_wallet_accounts.request, { organizationId: 'o', paginationOptions: { limit: input } }, 'r'),
    (n) => `${'1'.repeat(n)}x`,
  ],
  [
    'int64 field',
    (input) =>
      parseRequest(
        operations.spark_prepare_lightning_receive.parameters,
        { signWith: 'a', lightningReceive: { threshold: input, operatorRecipients: [] } },
        'r',
      ),
    (n) => `-${'1'.repeat(n)}x`,
  ],
];

describe('regex denial of service: every pattern on request text is linear on 100 kB inputs', () => {
  it.each(cases)('%s', (_name, check, pathological) => {
    expect(growth(ignoringErrors(check), pathological)).toBeLessThan(MAX_GROWTH);
  });
});

describe('regex denial of service over HTTP: overlong contacts and emails are refused by their length', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t.close();
  });

  it('a 40,000-character contact on /v1/otp_init gets a 400 naming the 254-character limit', async () => {
    const reply = await t.proxy('otp_init', { otpType: 'OTP_TYPE_EMAIL', contact: `a@${'.'.repeat(39_997)}@` });
    expect(reply.status).toBe(400);
    expect(reply.body.details[0].turnkeyErrorCode).toBe('REQUEST_INVALID');
    expect(reply.body.message).toContain('contact: must be at most 254 characters, got 40000');
  });

  it('a userEmail of a megabyte gets a 400: the field limit inside the body limit, the body limit beyond it', async () => {
    const signup = (userEmail: string) => t.proxy('signup_v2', { userEmail, apiKeys: [], authenticators: [], oauthProviders: [] });
    const withinBody = await signup(`a@${'.'.repeat(1_000_000)}@`);
    expect(withinBody.status).toBe(400);
    expect(withinBody.body.message).toContain('userEmail: must be at most 254 characters, got 1000003');
    const beyondBody = await signup(`a@${'.'.repeat(1024 * 1024)}@`);
    expect(beyondBody.status).toBe(400);
    expect(beyondBody.body.details[0].turnkeyErrorCode).toBe('REQUEST_TOO_LARGE');
  });

  it('an overlong email in create_users is refused by its length with the field named', async () => {
    const user = { userName: 'long', userEmail: `a@${'.'.repeat(500)}@`, userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] };
    const reply = await t.submit('create_users', 'ACTIVITY_TYPE_CREATE_USERS_V4', { users: [user] });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain('parameters.users[0].userEmail: must be at most 254 characters, got 503');
  });
});
