import { describe, expect, it } from 'vitest';
import {
  PolicyEvaluationError,
  PolicyParseError,
  PolicyTimestamp,
  checkPolicyExpression,
  evaluate,
  evaluatePolicyExpression,
  type PolicyContext,
  type PolicyValue,
} from '../../../src/shared/policy';

const alice = { id: 'u-alice', tags: ['t-security'], email: 'alice@example.com', alias: 'Alice' };
const bob = { id: 'u-bob', tags: ['t-ops'], alias: 'Bob' };
const carol = { id: 'u-carol', tags: ['t-ops', 't-security'] };

const passkey = {
  id: 'c-1',
  user_id: 'u-alice',
  type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR',
  credential_id: 'cred-abc',
  public_key: '02aa',
};
const apiKey = { id: 'c-2', user_id: 'u-bob', type: 'CREDENTIAL_TYPE_API_KEY_P256', public_key: '03bb' };

function consensus(text: string, context: PolicyContext): boolean {
  const result = evaluatePolicyExpression(text, 'consensus', context);
  if (!result.ok) throw result.error;
  return result.value;
}

const signTransaction: PolicyContext = {
  activity: {
    type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
    kind: 'SIGN_TRANSACTION',
    resource: 'PRIVATE_KEY',
    action: 'SIGN',
    params: { type: 'TRANSACTION_TYPE_ETHEREUM' },
  },
  wallet: { id: 'w-1', imported: false, exported: true, label: 'Treasury' },
  wallet_account: { address: '0xabc' },
};

const signRawPayload: PolicyContext = {
  activity: {
    type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    kind: 'SIGN_RAW_PAYLOAD',
    resource: 'PRIVATE_KEY',
    action: 'SIGN',
    params: { hash_function: 'HASH_FUNCTION_NO_OP', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL' },
  },
  private_key: { id: 'pk-1', tags: ['hot'], imported: true, exported: false, label: 'Hot key' },
};

function condition(text: string, context: PolicyContext): boolean {
  const result = evaluatePolicyExpression(text, 'condition', context);
  if (!result.ok) throw result.error;
  return result.value;
}

function evaluationError(text: string, kind: 'condition' | 'consensus', context: PolicyContext): PolicyEvaluationError {
  const result = evaluatePolicyExpression(text, kind, context);
  if (result.ok) throw new Error(`expected ${text} to fail, got ${result.value}`);
  expect(result.error).toBeInstanceOf(PolicyEvaluationError);
  return result.error;
}

describe('consensus', () => {
  it.each<[string, readonly (typeof alice | typeof bob | typeof carol)[], boolean]>([
    ["approvers.any(user, user.id == 'u-alice')", [alice], true],
    ["approvers.any(user, user.id == 'u-alice')", [bob, carol], false],
    ["approvers.any(user, user.tags.contains('t-ops'))", [alice, bob], true],
    ["approvers.any(user, user.tags.contains('t-ops'))", [alice], false],
    ["approvers.filter(user, user.tags.contains('t-ops')).count() >= 2", [bob, carol], true],
    ["approvers.filter(user, user.tags.contains('t-ops')).count() >= 2", [alice, bob], false],
    ['approvers.count() >= 2', [alice, bob], true],
    ['approvers.count() >= 2', [alice], false],
    ['approvers.count() >= 2', [], false],
    ["approvers.any(user, user.id == 'u-alice') && approvers.any(user, user.id == 'u-bob')", [alice, bob], true],
    ["approvers.any(user, user.id == 'u-alice') && approvers.any(user, user.id == 'u-bob')", [alice, carol], false],
    ["approvers.all(user, user.tags.contains('t-security'))", [alice, carol], true],
    ["approvers.all(user, user.tags.contains('t-security'))", [alice, bob], false],
    ["approvers.any(user, user.alias == 'Bob')", [bob], true],
    [
      "approvers.filter(user, 't-security' in user.tags).count() == 1 && approvers.filter(user, user.tags.contains('t-ops')).count() >= 2",
      [alice, bob, carol],
      false,
    ],
    [
      "approvers.filter(user, 't-security' in user.tags).count() >= 1 && approvers.filter(user, user.tags.contains('t-ops')).count() >= 2",
      [alice, bob, carol],
      true,
    ],
  ])('%s over %j', (text, approvers, expected) => {
    expect(consensus(text, { approvers, credentials: [] })).toBe(expected);
  });

  it.each([
    ["credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", [passkey], true],
    ["credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", [apiKey], false],
    ["credentials.any(credential, credential.public_key == '03bb')", [passkey, apiKey], true],
    ["credentials.any(credential, credential.public_key == '03bb')", [passkey], false],
    ["credentials.all(c, c.user_id != 'u-carol')", [passkey, apiKey], true],
  ] as const)('%s', (text, credentials, expected) => {
    expect(consensus(text, { approvers: [], credentials })).toBe(expected);
  });

  it('fails, rather than answering false, when a passkey-only field is read on an API key', () => {
    const error = evaluationError("credentials.any(c, c.credential_id == 'cred-abc')", 'consensus', {
      credentials: [passkey, apiKey],
    });
    expect(error.message).toMatch(/MissingField: c has no field 'credential_id'/);
    expect(error.details).toMatchObject({ reason: 'MissingField', field: 'credential_id', column: 22 });
  });
});

describe('condition', () => {
  it.each<[string, PolicyContext, boolean]>([
    ["activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'", signTransaction, true],
    ["activity.resource == 'WALLET' && activity.action == 'CREATE'", signTransaction, false],
    ["activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']", signTransaction, false],
    ["activity.resource in ['PRIVATE_KEY', 'OTP'] && activity.action in ['SIGN','VERIFY']", signTransaction, true],
    ["activity.kind == 'SIGN_TRANSACTION'", signTransaction, true],
    ["activity.kind == 'SIGN_TRANSACTION'", signRawPayload, false],
    ["activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'", signTransaction, true],
    ["activity.params.type == 'TRANSACTION_TYPE_ETHEREUM'", signTransaction, true],
    ["activity.action == 'SIGN' && wallet.id == 'w-1'", signTransaction, true],
    ["activity.action == 'SIGN' && wallet.id == 'w-2'", signTransaction, false],
    ["wallet_account.address == '0xabc'", signTransaction, true],
    ["wallet_account.address != '0xabc'", signTransaction, false],
    ['wallet.exported && !wallet.imported', signTransaction, true],
    [
      "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'",
      signRawPayload,
      true,
    ],
    ["private_key.tags.contains('hot') && private_key.imported", signRawPayload, true],
    ["activity.params['encoding'] == 'PAYLOAD_ENCODING_EIP712'", signRawPayload, false],
  ])('%s', (text, context, expected) => {
    expect(condition(text, context)).toBe(expected);
  });

  it('reads transaction data: slices, map access, big integers, lists', () => {
    const context: PolicyContext = {
      eth: {
        tx: {
          to: '0xc0ffee',
          data: '0xa9059cbb000000000000000000000000',
          chain_id: 11155111n,
          contract_call_args: { wad: 10n ** 17n, dst: '0x08d2', recipients: ['0xA1', '0xA2'] },
        },
      },
    };
    expect(condition("eth.tx.to == '0xc0ffee' && eth.tx.data[0..10] == '0xa9059cbb'", context)).toBe(true);
    expect(condition('eth.tx.chain_id == 11155111', context)).toBe(true);
    expect(condition("eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '0x08d2'", context)).toBe(true);
    expect(condition("eth.tx.contract_call_args['recipients'].all(addr, addr in ['0xA1', '0xA2'])", context)).toBe(true);
    expect(condition("eth.tx.contract_call_args['recipients'].all(addr, addr in ['0xA1'])", context)).toBe(false);
    expect(condition("eth.tx.contract_call_args['recipients'][1] == '0xA2'", context)).toBe(true);
    expect(condition("eth.tx.data[2] == 'a'", context)).toBe(true);
    expect(condition('340282366920938463463374607431768211455 > 340282366920938463463374607431768211454', {})).toBe(true);
  });

  it('accepts the count-without-parentheses form the docs use', () => {
    const context: PolicyContext = { solana: { tx: { transfers: [{ to: 'x', amount: 5n }] } } };
    expect(condition('solana.tx.transfers.count == 1', context)).toBe(true);
    expect(condition("solana.tx.transfers.all(t, t.to == 'x' && t.amount <= 5)", context)).toBe(true);
  });

  it('compares timestamps', () => {
    // activity.params is a map the checker cannot type, so the evaluator meets the timestamp here.
    const context: PolicyContext = { activity: { type: 'T', kind: 'T', params: { at: PolicyTimestamp.fromDate(new Date(Date.UTC(2026, 2, 15))) } } };
    expect(
      condition("activity.params.at >= Timestamp('2026-03-01T00:00:00Z') && activity.params.at < Timestamp('2026-04-01T00:00:00Z')", context),
    ).toBe(true);
    expect(condition("activity.params.at == Timestamp('2026-03-15T00:00:00.000000000Z')", context)).toBe(true);
    expect(condition("activity.params.at > Timestamp('2026-03-15T00:00:00.000000001Z')", context)).toBe(false);
  });
});

describe('finding 3: Ethereum addresses compare whatever their case', () => {
  const CHECKSUMMED = '0xAbAbAbAbAbAbAbAbAbAbAbAbAbAbAbAbAbAbAbAb';
  const context: PolicyContext = {
    eth: {
      tx: { to: CHECKSUMMED, data: '0xA9059CBB', contract_call_args: { recipients: [CHECKSUMMED, '0x70997970C51812dc3A010C7d01b50e0d17dC79C8'] } },
    },
    solana: { tx: { transfers: [{ to: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin' }] } },
  };

  it.each<[string, boolean]>([
    [`eth.tx.to == '${CHECKSUMMED.toLowerCase()}'`, true],
    [`eth.tx.to == '${CHECKSUMMED.toUpperCase().replace('0X', '0x')}'`, true],
    [`eth.tx.to != '${CHECKSUMMED.toLowerCase()}'`, false],
    [`eth.tx.to in ['0x0000000000000000000000000000000000000001', '${CHECKSUMMED.toLowerCase()}']`, true],
    [`eth.tx.contract_call_args['recipients'].contains('${CHECKSUMMED.toLowerCase()}')`, true],
    ["eth.tx.contract_call_args['recipients'].any(r, r == '0x70997970c51812dc3a010c7d01b50e0d17dc79c8')", true],
    [`'${CHECKSUMMED.toLowerCase()}' in eth.tx.contract_call_args['recipients']`, true],
    ["eth.tx.to == '0xabababababababababababababababababababac'", false],
    // Only whole addresses: other strings, Solana's base58 and shorter hex, compare exactly.
    ["eth.tx.data == '0xa9059cbb'", false],
    ["solana.tx.transfers.any(t, t.to == '9xqewvg816bux9epjhmat23yvvm2zwbrrpzb9pusvfin')", false],
  ])('%s', (text, expected) => {
    expect(condition(text, context)).toBe(expected);
  });
});

describe('&& and || stop at the first operand that decides; other errors are values', () => {
  it('engine errors at the last click: a transaction test after a false && is false, not an error', () => {
    const quorumChange: PolicyContext = {
      activity: { type: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', kind: 'UPDATE_ROOT_QUORUM', resource: 'ORGANIZATION', action: 'UPDATE', params: {} },
    };
    const usdcLimit = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'";
    expect(condition(usdcLimit, quorumChange)).toBe(false);
    expect(condition("activity.kind == 'NOPE' && activity.params.hash_function == 'X'", signTransaction)).toBe(false);
  });

  it('a true || is true whatever its later operands read', () => {
    expect(condition("activity.kind == 'SIGN_TRANSACTION' || private_key.id == 'pk-1'", signTransaction)).toBe(true);
  });

  it('an operand that is read still fails: a missing field on the right of a true &&, or on the left', () => {
    const right = evaluationError("activity.kind == 'SIGN_TRANSACTION' && activity.params.hash_function == 'X'", 'condition', signTransaction);
    expect(right.details).toMatchObject({ reason: 'MissingField', field: 'hash_function', path: 'activity.params', column: 56 });
    evaluationError("private_key.id == 'pk-1' || activity.kind == 'SIGN_TRANSACTION'", 'condition', signTransaction);
  });

  it('a root the request lacks is an error (wallet.id on a private-key request)', () => {
    const error = evaluationError("wallet.id == 'w-1'", 'condition', signRawPayload);
    expect(error.message).toMatch(/MissingField: 'wallet' is not available for this request \(at 1:1\)/);
  });

  it('every element of any() is evaluated, so one bad element makes an error', () => {
    const error = evaluationError("approvers.any(u, u.email == 'alice@example.com')", 'consensus', { approvers: [alice, bob] });
    expect(error.details).toMatchObject({ reason: 'MissingField', field: 'email' });
  });

  it('reports type errors with the position of the offending node', () => {
    // Values the checker cannot type (activity.params), so that these errors are the evaluator's.
    const context: PolicyContext = { activity: { type: 'T', kind: 'T', params: { chain_id: '1', data: '0x12', list: ['a'] } } };
    const cases: [string, RegExp, number][] = [
      ['activity.params.chain_id == 1', /TypeError: cannot compare a string with a int/, 1],
      ['activity.params.chain_id > 1', /TypeError: '>' orders two ints or two timestamps, not a string and a int/, 1],
      ['activity.params.data.any(x, true)', /TypeError: any\(\) needs a list, but this is a string/, 1],
      ['activity.params.data', /TypeError: the expression evaluated to a string, not a bool/, 1],
      ["activity.params.list.any(x, x == 'a') && activity.params.data.foo == 'x'", /TypeError: cannot read field 'foo' of a string/, 63],
      ["activity.params.list[1] == 'a'", /IndexOutOfRange: index 1 is outside the list of length 1/, 22],
      ["activity.params.data[2..9] == 'a'", /IndexOutOfRange: slice 2..9 does not fit the string of length 4/, 25],
      ['activity.params.list.all(x, x)', /TypeError: the predicate of all\(\) must be a bool, but this is a string/, 29],
    ];
    for (const [text, message, column] of cases) {
      const error = evaluationError(text, 'condition', context);
      expect(error.message).toMatch(message);
      expect(error.span.column).toBe(column);
    }
  });

  it('refuses host values that are not policy values instead of guessing', () => {
    const context = { eth: { tx: { gas: 21000 as unknown as PolicyValue } } } satisfies PolicyContext;
    const error = evaluationError('eth.tx.gas > 1', 'condition', context);
    expect(error.message).toMatch(/unsupported number/);
  });

  it('does not read inherited properties as fields', () => {
    const error = evaluationError("activity.params.constructor == 'x'", 'condition', signTransaction);
    expect(error.details).toMatchObject({ reason: 'MissingField', field: 'constructor' });
  });

  it('returns parse errors from the convenience function as values too', () => {
    const result = evaluatePolicyExpression('approvers.count( >', 'consensus', { approvers: [] });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toBeInstanceOf(PolicyParseError);
  });
});

describe('evaluate over a checked AST', () => {
  it('reuses one parsed expression across requests', () => {
    const checked = checkPolicyExpression("approvers.any(u, u.id == 'u-bob')", 'consensus');
    if (!checked.ok) throw checked.error;
    expect(evaluate(checked.ast, { approvers: [bob] })).toEqual({ ok: true, value: true });
    expect(evaluate(checked.ast, { approvers: [alice] })).toEqual({ ok: true, value: false });
  });

  it('evaluates a long flat chain without exhausting the stack', () => {
    const text = Array.from({ length: 500 }, (_, n) => `activity.kind == 'K${n}'`).join(' || ');
    expect(condition(text, signTransaction)).toBe(false);
    expect(condition(`${text} || activity.kind == 'SIGN_TRANSACTION'`, signTransaction)).toBe(true);
  });

  it('an empty expression is true whatever the context', () => {
    expect(evaluatePolicyExpression('', 'condition', {})).toEqual({ ok: true, value: true });
    expect(evaluatePolicyExpression(undefined, 'consensus', {})).toEqual({ ok: true, value: true });
  });
});

describe('time expressions, with the clock injected as time.now', () => {
  const now = (iso: string): PolicyContext => ({ time: { now: PolicyTimestamp.fromDate(new Date(iso)) } });
  const active = (text: string, context: PolicyContext): boolean => {
    const result = evaluatePolicyExpression(text, 'time', context);
    if (!result.ok) throw result.error;
    return result.value;
  };

  it('compares time.now with Timestamp() literals', () => {
    const march = "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')";
    expect(active(march, now('2026-03-01T00:00:00Z'))).toBe(true);
    expect(active(march, now('2026-03-31T23:59:59.999Z'))).toBe(true);
    expect(active(march, now('2026-04-01T00:00:00Z'))).toBe(false);
    expect(active("time.now != Timestamp('2026-03-01T00:00:00Z')", now('2026-03-01T00:00:00Z'))).toBe(false);
  });

  it('evaluates CronSpan at time.now', () => {
    const officeHours = "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')";
    expect(active(officeHours, now('2026-07-01T13:00:00Z'))).toBe(true); // Wednesday 09:00 EDT
    expect(active(officeHours, now('2026-07-01T21:00:00Z'))).toBe(false); // 17:00 EDT, the window has closed
    expect(active(officeHours, now('2026-07-04T15:00:00Z'))).toBe(false); // Saturday
  });

  it('combines CronSpan with other clauses', () => {
    const untilYearEnd = "CronSpan('0 9 * * *', '1h', 'UTC') && time.now < Timestamp('2027-01-01T00:00:00Z')";
    expect(active(untilYearEnd, now('2026-12-31T09:30:00Z'))).toBe(true);
    expect(active(untilYearEnd, now('2027-01-01T09:30:00Z'))).toBe(false);
  });

  it('is a MissingField error when the caller gives no clock', () => {
    for (const text of ["CronSpan('0 9 * * *', '1h', 'UTC')", "time.now > Timestamp('2026-01-01T00:00:00Z')"]) {
      const result = evaluatePolicyExpression(text, 'time', {});
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.details).toMatchObject({ reason: 'MissingField', field: 'time' });
    }
  });
});
