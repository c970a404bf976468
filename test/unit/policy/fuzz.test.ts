import { describe, expect, it } from 'vitest';
import {
  MAX_NESTING_DEPTH,
  PolicyEvaluationError,
  PolicyParseError,
  PolicyTimestamp,
  checkPolicyExpression,
  evaluate,
  type PolicyContext,
} from '../../../src/shared/policy';
import { prng } from '../../support/random';

const PIECES = [
  'activity',
  'approvers',
  'credentials',
  'wallet',
  'eth',
  'user',
  'u',
  'x',
  '.',
  '..',
  ',',
  '(',
  ')',
  '[',
  ']',
  '&&',
  '||',
  '!',
  '==',
  '!=',
  '<',
  '>',
  '<=',
  '>=',
  'in',
  'true',
  'false',
  '0',
  '12',
  '99999999999999999999999',
  "'a'",
  "'it\\'s'",
  "'",
  '"',
  '=',
  '&',
  '|',
  '-',
  'any',
  'all',
  'filter',
  'contains',
  'count',
  'id',
  'tags',
  'kind',
  'params',
  'Timestamp',
  "('2026-01-01T00:00:00Z')",
  'CronSpan',
  ' ',
  '\n',
  '\\',
  '@',
  'é',
  'time',
  'now',
  "('0 9 * * 1-5', '8h', 'UTC')",
  "'1-5,7 */2'",
  "'1d12h'",
  "'America/New_York'",
  "'Nowhere/City'",
];

const CONTEXT: PolicyContext = {
  activity: { type: 'ACTIVITY_TYPE_CREATE_WALLET', kind: 'CREATE_WALLET', resource: 'WALLET', action: 'CREATE', params: { id: 'p' } },
  approvers: [{ id: 'u-1', tags: ['a'] }],
  credentials: [],
  wallet: { id: 'w', imported: false, exported: false, label: 'l' },
  eth: { tx: { id: '1', tags: ['a'], kind: 2n } },
  user: { id: 'u-1', tags: [] },
  time: { now: PolicyTimestamp.fromDate(new Date(Date.UTC(2026, 6, 1, 13, 30))) },
};

describe('random token soups', () => {
  it('only ever fail with a PolicyParseError or a PolicyEvaluationError, quickly', () => {
    const next = prng(0x5eed);
    const started = Date.now();
    let accepted = 0;
    for (let round = 0; round < 4000; round += 1) {
      const length = 1 + Math.floor(next() * 30);
      const text = Array.from({ length }, () => PIECES[Math.floor(next() * PIECES.length)]!).join(next() < 0.5 ? ' ' : '');
      const kind = (['condition', 'consensus', 'scope', 'time'] as const)[round % 4]!;
      let outcome: unknown;
      try {
        const checked = checkPolicyExpression(text, kind);
        if (checked.ok) {
          accepted += 1;
          const result = evaluate(checked.ast, CONTEXT);
          outcome = result.ok ? result.value : result.error;
        } else {
          outcome = checked.error;
        }
      } catch (error) {
        throw new Error(`round ${round}: ${JSON.stringify(text)} threw ${String(error)}`, { cause: error });
      }
      if (typeof outcome !== 'boolean' && !(outcome instanceof PolicyParseError) && !(outcome instanceof PolicyEvaluationError)) {
        throw new Error(`round ${round}: ${JSON.stringify(text)} produced ${String(outcome)}`);
      }
    }
    // The soup is meant to be mostly invalid, but a generator that never produces a valid expression tests little.
    expect(accepted).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('deep nesting of every kind stops at the limit with a PolicyParseError', () => {
    const depth = MAX_NESTING_DEPTH * 50;
    const shapes = [
      '('.repeat(depth),
      '['.repeat(depth),
      '!'.repeat(depth),
      `x${'.y'.repeat(depth)}`,
      `approvers${'.filter(u, true)'.repeat(depth)}.count() > 0`,
      `${'approvers.any(u, '.repeat(depth)}true${')'.repeat(depth)}`,
      `x${'[0]'.repeat(depth)}`,
    ];
    for (const text of shapes) {
      const result = checkPolicyExpression(text, 'consensus');
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error).toBeInstanceOf(PolicyParseError);
    }
  });
});
