/**
 * Why a policy expression could not be evaluated, in words an operator reads: a policy whose field cannot be
 * evaluated does not apply (docs/service.md#policy-precedence), and every reading says why the same way, from the
 * failure's details rather than the evaluator's message (which names its internals: `MissingField`, positions).
 */
import type { PolicyExpressionKind } from './ast';

/** What a missing keyword (or one of its views) means for the request. */
const ABSENT: Readonly<Record<string, string>> = {
  eth: 'this request has no Ethereum transaction',
  'eth.tx': 'this request has no Ethereum transaction',
  'eth.eip_712': 'this request has no EIP-712 typed data',
  'eth.eip_7702_authorization': 'this request has no EIP-7702 authorization',
  solana: 'this request has no Solana transaction',
  'solana.tx': 'this request has no Solana transaction',
  tron: 'this request has no Tron transaction',
  'tron.tx': 'this request has no Tron transaction',
  bitcoin: 'this request has no Bitcoin transaction',
  'bitcoin.tx': 'this request has no Bitcoin transaction',
  tempo: 'this request has no Tempo transaction',
  'tempo.tx': 'this request has no Tempo transaction',
  wallet: 'this request names no wallet',
  wallets: 'this request names no wallets',
  wallet_account: 'this request names no wallet account',
  private_key: 'this request names no private key',
  user: 'this request names no user of this organization',
  secret: 'this request names no secret, or more than one',
  secrets: 'this request names no secrets',
};

/** The missing keyword or view a failure names (`eth`, `eth.eip_712`), when the failure is that one is missing. */
function missingPath(details: Readonly<Record<string, unknown>>): string | undefined {
  if (details['reason'] !== 'MissingField' || typeof details['field'] !== 'string') return undefined;
  return typeof details['path'] === 'string' ? `${details['path']}.${details['field']}` : details['field'];
}

/**
 * The keyword (`eth`, `wallet`) whose absence from the request, or that of one of its views (`eth.eip_712`), made the
 * evaluation fail: a fact about the request (it signs no such transaction), not a fault of the policy.
 */
export function absentKeywordOf(details: Readonly<Record<string, unknown>>): string | undefined {
  const path = missingPath(details);
  return path !== undefined && Object.hasOwn(ABSENT, path) ? path.split('.')[0] : undefined;
}

/**
 * "this request has no Ethereum transaction", "its condition is too costly to evaluate"… (of the `field` named, else
 * "it is too costly…").
 */
export function failureInWords(details: Readonly<Record<string, unknown>>, field?: PolicyExpressionKind): string {
  const subject = field === undefined ? 'it' : `its ${field}`;
  const path = missingPath(details);
  if (path !== undefined) return Object.hasOwn(ABSENT, path) ? ABSENT[path]! : `${subject} reads ${path}, which this request lacks`;
  switch (details['reason']) {
    case 'TooCostly':
      return `${subject} is too costly to evaluate`;
    case 'IndexOutOfRange':
      return `${subject} reads past the end of a list or text of this request`;
    case 'TypeError':
      return `${subject} reads a value of another kind than it expects in this request`;
    default:
      return `${subject} is not a valid expression`;
  }
}
