import { describe, expect, it } from 'vitest';
import {
  MAX_NESTING_DEPTH,
  PolicyParseError,
  checkPolicyExpression,
  parsePolicyExpression,
  tokenize,
  type Expression,
  type PolicyExpressionKind,
} from '../../../src/shared/policy';

const CONSENSUS_EXAMPLES = [
  "approvers.any(user, user.id == '<USER_ID>')",
  "approvers.any(user, user.tags.contains('<USER_TAG_ID>'))",
  "approvers.filter(user, user.tags.contains('<USER_TAG_ID>')).count() >= 2",
  'approvers.count() >= 2',
  "approvers.any(user, user.id == '<AGENT_ID>') && approvers.any(user, user.id == '<HUMAN_ID>')",
  "approvers.any(user, user.tags.contains('<SECURITY_TAG_ID>') || user.tags.contains('<OPS_TAG_ID>')) && (approvers.filter(user, user.tags.contains('<SECURITY_TAG_ID>')).count() >= 1 && approvers.filter(user, user.tags.contains('<OPS_TAG_ID>')).count() >= 2)",
  "credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')",
  "credentials.any(credential, credential.public_key == '<YOUR_CREDENTIAL_PUBLIC_KEY>')",
];

const CONDITION_EXAMPLES = [
  "activity.resource == 'WALLET' && activity.action == 'CREATE'",
  "activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']",
  "activity.kind == 'SIGN_TRANSACTION'",
  "activity.type == 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2'",
  "activity.action == 'SIGN' && wallet.id == '<WALLET_ID>'",
  "activity.action == 'EXPORT' && wallet_account.address == '<WALLET_ACCOUNT_ADDRESS>'",
  "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'",
  "eth.tx.to == '<CONTRACT_ADDRESS>' && eth.tx.data[0..10] == '0xa9059cbb'",
  'eth.tx.chain_id == 11155111',
  "eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '0x08d2…67B7'",
  "eth.tx.function_name == 'disperse' && eth.tx.contract_call_args['recipients'].all(addr, addr in ['<A1>', '<A2>'])",
  "solana.tx.transfers.all(transfer, transfer.to == '<RECIPIENT_ADDRESS>')",
  "solana.tx.program_keys.all(p, p == '11111111111111111111111111111111')",
  "solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.any(transfer, transfer.to == '<ATA>')",
  'solana.tx.address_table_lookups.count() > 0',
  'solana.tx.transfers.count == 1',
  "secret.static_properties['k'] == 'v'",
];

const SCOPE_EXAMPLES = [
  'true',
  "activity.action == 'SIGN'",
  "activity.action != 'EXPORT'",
  "activity.action == 'SIGN' && wallet.id == '11111111-1111-1111-1111-111111111111'",
];

/** A compact rendering of the tree, to assert precedence and associativity. */
function show(node: Expression): string {
  switch (node.type) {
    case 'bool':
    case 'int':
      return String(node.value);
    case 'string':
      return `'${node.value}'`;
    case 'timestamp':
      return `Timestamp(${node.text})`;
    case 'cronSpan':
      return `CronSpan(${node.args.join(', ')})`;
    case 'list':
      return `[${node.items.map(show).join(', ')}]`;
    case 'identifier':
      return node.name;
    case 'member':
      return `${show(node.object)}.${node.property}`;
    case 'index':
      return `${show(node.object)}[${show(node.index)}]`;
    case 'slice':
      return `${show(node.object)}[${show(node.start)}..${show(node.end)}]`;
    case 'lambda':
      return `${show(node.list)}.${node.method}(${node.variable}, ${show(node.predicate)})`;
    case 'contains':
      return `${show(node.list)}.contains(${show(node.value)})`;
    case 'count':
      return `${show(node.list)}.count()`;
    case 'not':
      return `!${show(node.operand)}`;
    case 'logical':
    case 'comparison':
      return `(${show(node.left)} ${node.operator} ${show(node.right)})`;
    case 'in':
      return `(${show(node.value)} in ${show(node.list)})`;
  }
}

function parseError(text: string, kind: PolicyExpressionKind = 'condition'): PolicyParseError {
  const result = checkPolicyExpression(text, kind);
  if (result.ok) throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
  expect(result.error).toBeInstanceOf(PolicyParseError);
  expect(result.error.code).toBe('POLICY_PARSE_ERROR');
  return result.error;
}

describe('the documented examples', () => {
  it.each(CONSENSUS_EXAMPLES)('consensus: %s', (text) => {
    expect(checkPolicyExpression(text, 'consensus')).toMatchObject({ ok: true });
  });
  it.each(CONDITION_EXAMPLES)('condition: %s', (text) => {
    expect(checkPolicyExpression(text, 'condition')).toMatchObject({ ok: true });
  });
  it.each(SCOPE_EXAMPLES)('scope: %s', (text) => {
    expect(checkPolicyExpression(text, 'scope')).toMatchObject({ ok: true });
  });
  it('parses the time examples that use only Timestamp()', () => {
    const ast = parsePolicyExpression("time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')");
    expect(show(ast)).toBe('((time.now >= Timestamp(2026-03-01T00:00:00Z)) && (time.now < Timestamp(2026-04-01T00:00:00Z)))');
  });
});

describe('empty expressions', () => {
  it.each(['', '   \n\t', undefined])('impose no constraint: %j', (text) => {
    const result = checkPolicyExpression(text, 'condition');
    expect(result.ok && show(result.ast)).toBe('true');
  });
});

describe('tokens', () => {
  it('carries line, column and offset, across lines', () => {
    const tokens = tokenize("a &&\n  'x\\'y' == 12");
    expect(tokens.map((token) => [token.kind, token.span.line, token.span.column, token.span.offset, token.span.length])).toEqual([
      ['identifier', 1, 1, 0, 1],
      ['&&', 1, 3, 2, 2],
      ['string', 2, 3, 7, 6],
      ['==', 2, 10, 14, 2],
      ['int', 2, 13, 17, 2],
      ['end', 2, 15, 19, 0],
    ]);
    expect(tokens[2]).toMatchObject({ value: "x'y" });
  });

  it('reads escapes and keeps integers exact beyond 2^64', () => {
    const tokens = tokenize("'a\\\\b' 340282366920938463463374607431768211455");
    expect(tokens[0]).toMatchObject({ kind: 'string', value: 'a\\b' });
    expect(tokens[1]).toMatchObject({ kind: 'int', value: 2n ** 128n - 1n });
  });

  it('prefers the longest operator', () => {
    expect(tokenize('<= >= != == .. . ! < >').map((token) => token.kind)).toEqual(['<=', '>=', '!=', '==', '..', '.', '!', '<', '>', 'end']);
  });
});

describe('precedence and associativity', () => {
  it.each([
    ['a || b && c', '(a || (b && c))'],
    ['a && b || c', '((a && b) || c)'],
    ['a || b || c', '((a || b) || c)'],
    ['a && b && c', '((a && b) && c)'],
    ['a == 1 && b != 2', '((a == 1) && (b != 2))'],
    ["a in ['x'] || !b", "((a in ['x']) || !b)"],
    ['!a == b', '(!a == b)'],
    ['!!a.b', '!!a.b'],
    ['x.y[0].z[1..2]', 'x.y[0].z[1..2]'],
    ['(a || b) && c', '((a || b) && c)'],
    ['l.all(v, v.ok).count()', 'l.all(v, v.ok).count()'],
  ])('%s', (text, expected) => {
    expect(show(parsePolicyExpression(text))).toBe(expected);
  });

  it('gives composite nodes the span of their whole source, parentheses included', () => {
    const ast = parsePolicyExpression(' (a || b) && c');
    expect(ast.span).toEqual({ offset: 1, line: 1, column: 2, length: 13 });
    expect(ast.type === 'logical' && ast.left.span).toEqual({ offset: 1, line: 1, column: 2, length: 8 });
  });
});

describe('parse errors', () => {
  it.each<[string, string, PolicyExpressionKind, { column: number; length: number }, RegExp]>([
    ['unterminated string', "activity.action == 'SIGN", 'condition', { column: 20, length: 5 }, /unterminated string.*opened at 1:20/],
    [
      'trailing operator',
      "activity.action == 'SIGN' &&",
      'condition',
      { column: 29, length: 0 },
      /expected a value after '&&'.*found end of expression/,
    ],
    [
      'unclosed call',
      "approvers.any(user, user.id == 'x'",
      'consensus',
      { column: 35, length: 0 },
      /expected '\)' to close the call opened at 1:14, found end of expression/,
    ],
    ['unclosed list', "activity.kind in ['A', 'B'", 'condition', { column: 27, length: 0 }, /expected '\]' to close the list opened at 1:18/],
    ['stray closing bracket', "activity.kind == 'A')", 'condition', { column: 21, length: 1 }, /unexpected '\)' with no matching opening bracket/],
    ['unknown method', "approvers.some(user, user.id == 'x')", 'consensus', { column: 11, length: 4 }, /unknown method 'some'/],
    ['wrong arity of count', 'approvers.count(1) > 0', 'consensus', { column: 17, length: 1 }, /count\(\) takes no arguments, found 1/],
    ['wrong arity of any', "approvers.any(user.id == 'x')", 'consensus', { column: 11, length: 19 }, /any\(\) takes 2 arguments, found 1/],
    [
      'lambda variable not a name',
      "approvers.any('u', true)",
      'consensus',
      { column: 15, length: 3 },
      /first argument of any\(\) must be a variable name/,
    ],
    [
      'bad root for the kind',
      'approvers.count() > 1',
      'condition',
      { column: 1, length: 9 },
      /'approvers' belongs in consensus expressions; a condition expression may use activity/,
    ],
    ['bad root for consensus', "activity.kind == 'X'", 'consensus', { column: 1, length: 8 }, /'activity' belongs in condition expressions/],
    [
      'lambda variable used outside its predicate',
      "approvers.any(u, u.id == 'x') && u.id == 'y'",
      'consensus',
      { column: 34, length: 1 },
      /'u' is only defined inside the predicate of the any\(\) at 1:1/,
    ],
    ['lambda variable hiding a keyword', 'approvers.any(credentials, true)', 'consensus', { column: 15, length: 11 }, /would hide the keyword/],
    [
      'nested lambda reusing a variable',
      'approvers.any(u, approvers.any(u, true))',
      'consensus',
      { column: 32, length: 1 },
      /would hide the variable/,
    ],
    ['single =', "activity.kind = 'X'", 'condition', { column: 15, length: 1 }, /use '==' to compare/],
    ['double-quoted string', 'activity.kind == "X"', 'condition', { column: 18, length: 1 }, /single quotes/],
    [
      'unknown field of a known struct',
      "wallet.name == 'x'",
      'condition',
      { column: 8, length: 4 },
      /Wallet has no field 'name'; its fields are id, imported, exported, label/,
    ],
    ['non-boolean result', 'activity.kind', 'condition', { column: 1, length: 13 }, /must evaluate to a bool, but this one is a string/],
    [
      'type mismatch in ==',
      "approvers.count() == 2 && approvers.count() == '2'",
      'consensus',
      { column: 48, length: 3 },
      /cannot compare a int with a string/,
    ],
    ['ordering strings', "activity.kind < 'B'", 'condition', { column: 1, length: 13 }, /an operand of '<' must be a int or a timestamp/],
    ['bad escape', "activity.kind == 'a\\nb'", 'condition', { column: 20, length: 2 }, /unknown escape/],
    [
      'bad timestamp',
      "Timestamp('2026-02-30T00:00:00Z') == Timestamp('2026-01-01T00:00:00Z')",
      'condition',
      { column: 11, length: 22 },
      /not an RFC 3339 time in UTC/,
    ],
    ['chained comparison', 'approvers.count() > 1 == true', 'consensus', { column: 23, length: 2 }, /comparisons do not chain/],
    ['mixed list', "activity.kind in ['A', 1]", 'condition', { column: 24, length: 1 }, /list items must all have one type/],
    ['malformed number', 'eth.tx.chain_id == 1e9', 'condition', { column: 20, length: 3 }, /malformed number '1e9'/],
    ['member of nothing', 'activity. == 1', 'condition', { column: 11, length: 2 }, /expected a field or method name after '.', found '=='/],
  ])('%s', (_name, text, kind, position, message) => {
    const error = parseError(text, kind);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(`(at 1:${position.column})`);
    expect(error.span).toMatchObject({ line: 1, column: position.column, offset: position.column - 1, length: position.length });
    expect(error.details).toMatchObject({ line: 1, column: position.column, offset: position.column - 1, length: position.length });
  });

  it('reports positions on later lines', () => {
    const error = parseError("activity.kind == 'A' &&\n   wallet.nme == 'x'");
    expect(error.span).toEqual({ offset: 34, line: 2, column: 11, length: 3 });
  });

  it('says what was expected and found, as data', () => {
    const error = parseError("approvers.any(user, user.id == 'x'", 'consensus');
    expect(error.details).toMatchObject({ expected: "')'", found: 'end of expression' });
  });
});

describe('limits', () => {
  it(`refuses nesting deeper than ${MAX_NESTING_DEPTH} levels with a clear error`, () => {
    const deep = `${'('.repeat(MAX_NESTING_DEPTH + 1)}true${')'.repeat(MAX_NESTING_DEPTH + 1)}`;
    expect(() => parsePolicyExpression(deep)).toThrow(/nests more than 64 levels deep/);
    const ok = `${'('.repeat(MAX_NESTING_DEPTH - 1)}true${')'.repeat(MAX_NESTING_DEPTH - 1)}`;
    expect(show(parsePolicyExpression(ok))).toBe('true');
    expect(() => parsePolicyExpression(`${'!'.repeat(MAX_NESTING_DEPTH + 1)}true`)).toThrow(/nests more than/);
    expect(() => parsePolicyExpression(`a${'.b'.repeat(MAX_NESTING_DEPTH + 1)}`)).toThrow(/nests more than/);
  });

  it('accepts a long flat chain of alternatives without deep recursion', () => {
    const text = Array.from({ length: 500 }, (_, n) => `activity.kind == 'K${n}'`).join(' || ');
    const result = checkPolicyExpression(text, 'condition');
    expect(result.ok).toBe(true);
  });

  it('refuses over-long input', () => {
    expect(() => parsePolicyExpression(`true${' '.repeat(20_000)}`)).toThrow(/the limit is 16384/);
  });
});

describe('time expressions', () => {
  it.each([
    "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')",
    "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')",
    "CronSpan('30 22 * * 5', '1d12h', 'UTC') || CronSpan('0 0 1,15 * *', '30m', 'Asia/Kathmandu')",
    "CronSpan('0 9 * * *', '1h', 'Europe/Paris') && time.now < Timestamp('2027-01-01T00:00:00Z')",
  ])('accepts %s', (text) => {
    expect(checkPolicyExpression(text, 'time')).toMatchObject({ ok: true });
  });

  it('resolves CronSpan arguments when parsed', () => {
    const result = checkPolicyExpression("CronSpan('0 9 * * 1-5', '1h30m', 'America/New_York')", 'time');
    if (!result.ok) throw result.error;
    expect(show(result.ast)).toBe('CronSpan(0 9 * * 1-5, 1h30m, America/New_York)');
    expect(result.ast.type === 'cronSpan' && result.ast.cronSpan).toMatchObject({ durationMinutes: 90, timeZone: 'America/New_York' });
  });

  it.each<[string, string, PolicyExpressionKind, { column: number; length: number }, RegExp]>([
    [
      'minute out of range',
      "CronSpan('60 9 * * *', '8h', 'UTC')",
      'time',
      { column: 11, length: 2 },
      /CronSpan\(\) schedule: minute field: 60 is outside 0-59/,
    ],
    ['day of week out of range', "CronSpan('0 9 * * 1-8', '8h', 'UTC')", 'time', { column: 19, length: 3 }, /day-of-week field: 8 is outside 0-7/],
    ['step', "CronSpan('*/5 * * * *', '8h', 'UTC')", 'time', { column: 11, length: 3 }, /steps \('\/'\) are not supported/],
    ['name', "CronSpan('0 9 * * MON-FRI', '8h', 'UTC')", 'time', { column: 19, length: 7 }, /names are not supported/],
    ['macro', "CronSpan('@daily', '8h', 'UTC')", 'time', { column: 11, length: 6 }, /macros like @daily are not supported/],
    ['seconds field', "CronSpan('0 0 9 * * *', '8h', 'UTC')", 'time', { column: 11, length: 11 }, /seconds field is not supported/],
    [
      'bad duration',
      "CronSpan('0 9 * * *', '8 hours', 'UTC')",
      'time',
      { column: 24, length: 7 },
      /CronSpan\(\) duration: '8 hours' is not a duration/,
    ],
    ['zero duration', "CronSpan('0 9 * * *', '0m', 'UTC')", 'time', { column: 24, length: 2 }, /duration must be longer than 0/],
    ['duration over 7 days', "CronSpan('0 9 * * *', '8d', 'UTC')", 'time', { column: 24, length: 2 }, /longer than the 7-day limit/],
    [
      'unknown zone',
      "CronSpan('0 9 * * *', '8h', 'America/Gotham')",
      'time',
      { column: 30, length: 14 },
      /CronSpan\(\) time zone: unknown time zone 'America\/Gotham'/,
    ],
    ['offset instead of a zone', "CronSpan('0 9 * * *', '8h', '-05:00')", 'time', { column: 30, length: 6 }, /is not a time zone name/],
    ['too few arguments', "CronSpan('0 9 * * *', '8h')", 'time', { column: 1, length: 27 }, /CronSpan\(\) takes 3 arguments, found 2/],
    ['too many arguments', "CronSpan('0 9 * * *', '8h', 'UTC', 'x')", 'time', { column: 36, length: 3 }, /takes 3 arguments, found 4/],
    ['non-literal argument', "CronSpan('0 9 * * *', 8, 'UTC')", 'time', { column: 23, length: 1 }, /arguments must be string literals/],
    [
      'escaped argument points at the whole literal',
      "CronSpan('0 9 \\\\ * *', '8h', 'UTC')",
      'time',
      { column: 10, length: 12 },
      /day-of-month field/,
    ],
    [
      'CronSpan in a condition',
      "CronSpan('0 9 * * *', '8h', 'UTC')",
      'condition',
      { column: 1, length: 8 },
      /CronSpan\(\) belongs in a policy's time expression; a condition expression cannot use it/,
    ],
    [
      'CronSpan in a consensus',
      "approvers.count() > 1 && CronSpan('bad', '', '')",
      'consensus',
      { column: 26, length: 8 },
      /a consensus expression cannot use it/,
    ],
    ['CronSpan in a scope', "CronSpan('0 9 * * *', '8h', 'UTC')", 'scope', { column: 1, length: 8 }, /a scope expression cannot use it/],
    [
      'time.now in a condition',
      "time.now > Timestamp('2026-01-01T00:00:00Z')",
      'condition',
      { column: 1, length: 4 },
      /'time' belongs in time expressions; a condition expression may use activity/,
    ],
    [
      'time.now in a consensus',
      "time.now > Timestamp('2026-01-01T00:00:00Z')",
      'consensus',
      { column: 1, length: 4 },
      /'time' belongs in time expressions/,
    ],
    [
      'condition keyword in time',
      "activity.kind == 'X'",
      'time',
      { column: 1, length: 8 },
      /'activity' belongs in condition expressions; a time expression may use time/,
    ],
    [
      'unknown field of time',
      "time.today == Timestamp('2026-01-01T00:00:00Z')",
      'time',
      { column: 6, length: 5 },
      /Time has no field 'today'; its fields are now/,
    ],
    ['non-boolean time', 'time.now', 'time', { column: 1, length: 8 }, /a time expression must evaluate to a bool, but this one is a timestamp/],
    ['comparing a timestamp with an int', 'time.now > 5', 'time', { column: 12, length: 1 }, /cannot compare a timestamp with a int/],
    [
      'unknown function',
      "Cron('0 9 * * *')",
      'time',
      { column: 1, length: 4 },
      /unknown function 'Cron': the functions are Timestamp\('<RFC 3339 time>'\) and CronSpan/,
    ],
  ])('%s', (_name, text, kind, position, message) => {
    const error = parseError(text, kind);
    expect(error.message).toMatch(message);
    expect(error.span).toMatchObject({ line: 1, column: position.column, length: position.length });
  });
});
