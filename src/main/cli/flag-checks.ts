/**
 * A known command's flags and operands, checked before its code and the app's services load: what it requires is
 * given, and each value is one it takes. The commands read their values through the same functions. Whatever needs a
 * file, the keychain, a token or a service is left to the command itself.
 */
import type { z } from 'zod';
import { activityStatus, type ActivityStatus, type hashFunction, type payloadEncoding, type transactionType } from '../../shared/api/enums';
import { PRIVATE_KEY_FORMATS, type PrivateKeyFormat } from '../../shared/crypto/bundles';
import { API_KEY_CURVES, isApiKeyCurve, type ApiKeyCurve } from '../../shared/crypto/keys';
import { HASH_FUNCTION_WORDS, PAYLOAD_ENCODING_WORDS, TRANSACTION_TYPE_WORDS } from '../../shared/describe/signing-words';
import { ACCOUNT_PRESETS, type AccountPresetId } from '../../shared/wallets/account-presets';
import { exactlyOne, positional, required, type CommandLine, type Values } from './arguments';
import type { CommandName } from './command-names';
import { flagChoice } from './signing-flags';
import { UsageError } from './usage-error';

type HashFunction = z.infer<typeof hashFunction>;
type PayloadEncoding = z.infer<typeof payloadEncoding>;
type TransactionType = z.infer<typeof transactionType>;

/** `--curve` of `keys generate`; p256 when not given. */
export function apiKeyCurveOf(values: Values): ApiKeyCurve {
  const curve = values.curve ?? 'p256';
  if (!isApiKeyCurve(curve)) throw new UsageError(`--curve must be ${API_KEY_CURVES.join(', ')}, got ${curve}`);
  return curve;
}

/** `list_activities` parameters from `--status`, `--limit` and `--before`. */
export function activitiesListRequest(values: Values): {
  filterByStatus?: ActivityStatus[];
  paginationOptions?: { limit?: string; before?: string };
} {
  const { status, limit, before } = values;
  if (status !== undefined && !activityStatus.safeParse(status).success) {
    throw new UsageError(`--status must be one of ${activityStatus.options.join(', ')}`);
  }
  if (limit !== undefined && !/^(?:100|[1-9][0-9]?)$/.test(limit)) throw new UsageError('--limit must be a whole number from 1 to 100');
  if (before === '') throw new UsageError('--before takes an activity id');
  const paginationOptions = { ...(limit === undefined ? {} : { limit }), ...(before === undefined ? {} : { before }) };
  return {
    ...(status === undefined ? {} : { filterByStatus: [status as ActivityStatus] }),
    ...(Object.keys(paginationOptions).length === 0 ? {} : { paginationOptions }),
  };
}

/** The account presets `--chain` names (each once given); ethereum when none is. */
export function chainPresetsOf(values: Values): AccountPresetId[] {
  return (values.chain ?? ['ethereum']).map((chain) => {
    const preset = ACCOUNT_PRESETS.find((candidate) => candidate.id === chain);
    if (preset === undefined) throw new UsageError(`--chain must be one of ${ACCOUNT_PRESETS.map(({ id }) => id).join(', ')}, got ${chain}`);
    return preset.id;
  });
}

/** `--key-format` of `decrypt`: what the bundle is decrypted into; mnemonic when not given. */
export function revealFormatOf(values: Values): 'mnemonic' | PrivateKeyFormat {
  const format = values['key-format'] ?? 'mnemonic';
  if (format !== 'mnemonic' && !PRIVATE_KEY_FORMATS.includes(format as PrivateKeyFormat)) {
    throw new UsageError(`--key-format must be mnemonic, ${PRIVATE_KEY_FORMATS.join(', ')}; got ${format}`);
  }
  return format as 'mnemonic' | PrivateKeyFormat;
}

/** `--key-format` of `encrypt`: what the plaintext file holds. */
export function importFormatOf(values: Values): 'mnemonic' | 'hexadecimal' | 'solana' {
  const format = required(values, 'key-format');
  if (format !== 'mnemonic' && format !== 'hexadecimal' && format !== 'solana') {
    throw new UsageError(`--key-format must be mnemonic, hexadecimal or solana, got ${format}`);
  }
  return format;
}

/**
 * `--from`/`--to` of `journal export` as instants: an ISO time as given, a bare date (2026-11-26) from the start of
 * that UTC day or to its end.
 */
export function journalRangeOf(values: Values): { fromMs?: number; toMs?: number } {
  return { ...optionalDate(values, 'from', 'start'), ...optionalDate(values, 'to', 'end') };
}

function optionalDate(values: Values, name: 'from' | 'to', edge: 'start' | 'end'): { fromMs?: number; toMs?: number } {
  const value = values[name];
  if (value === undefined) return {};
  const bareDate = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(bareDate ? `${value}T${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}Z` : value);
  if (!/^\d{4}-\d{2}-\d{2}(?:T.+)?$/.test(value) || Number.isNaN(ms))
    throw new UsageError(`--${name} must be a date like 2026-11-26 or an ISO time, got ${value}`);
  return name === 'from' ? { fromMs: ms } : { toMs: ms };
}

/** The flags of `sign transaction` or `sign payload` that need no file read: whom it signs with, and how. */
export function signingChoicesOf(
  sub: 'transaction' | 'payload',
  values: Values,
):
  | { operation: 'sign_transaction'; signWith: string; type: TransactionType; unsigned: string }
  | { operation: 'sign_raw_payload'; signWith: string; payload: string; encoding: PayloadEncoding; hashFunction: HashFunction } {
  if (values['no-post'] && values.preview) throw new UsageError('--preview and --no-post do not go together: --preview submits nothing');
  const signWith = required(values, 'sign-with');
  if (sub === 'transaction') {
    return {
      operation: 'sign_transaction',
      signWith,
      type: flagChoice(TRANSACTION_TYPE_WORDS, required(values, 'type'), 'type'),
      unsigned: required(values, 'unsigned'),
    };
  }
  const encoding = values.encoding === undefined ? 'PAYLOAD_ENCODING_TEXT_UTF8' : flagChoice(PAYLOAD_ENCODING_WORDS, values.encoding, 'encoding');
  const structured = encoding === 'PAYLOAD_ENCODING_EIP712' || encoding === 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION';
  const hashFunction =
    values.hash === undefined
      ? structured
        ? 'HASH_FUNCTION_NO_OP'
        : 'HASH_FUNCTION_KECCAK256'
      : flagChoice(HASH_FUNCTION_WORDS, values.hash, 'hash');
  return { operation: 'sign_raw_payload', signWith, payload: required(values, 'payload'), encoding, hashFunction };
}

/**
 * Everything of `commandLine` a command checks before it reads a file or asks anything (its name is known: see
 * command-names.ts). A usage error names the flag or operand.
 */
export function checkCommandFlags(name: CommandName, { values, positionals }: CommandLine): void {
  switch (name) {
    case 'keys generate':
      positional(positionals, 2, 'NAME');
      if (!values.pkcs11) apiKeyCurveOf(values);
      return;
    case 'keys delete':
    case 'encryption-keys generate':
    case 'encryption-keys delete':
    case 'wallets create':
      positional(positionals, 2, 'NAME');
      if (name === 'wallets create') chainPresetsOf(values);
      return;
    case 'activities list':
      activitiesListRequest(values);
      return;
    case 'activities approve':
    case 'activities reject':
      positional(positionals, 2, 'FINGERPRINT');
      return;
    case 'sign transaction':
    case 'sign payload':
      signingChoicesOf(name === 'sign transaction' ? 'transaction' : 'payload', values);
      return;
    case 'wallets export':
      exactlyOne(values, 'encryption-key', 'target-public-key');
      required(values, 'wallet');
      required(values, 'output');
      return;
    case 'journal export':
      required(values, 'output');
      journalRangeOf(values);
      return;
    case 'journal checkpoint':
      required(values, 'output');
      return;
    case 'users credentials':
      positional(positionals, 2, 'USER');
      return;
    case 'users move-to-token':
      positional(positionals, 2, 'USER');
      for (const flag of ['pkcs11-module', 'pkcs11-token', 'pkcs11-key'] as const) required(values, flag);
      return;
    case 'profiles add':
      for (const flag of ['name', 'base-url', 'organization'] as const) required(values, flag);
      // A token key's profile needs no keychain key's name.
      if (values['pkcs11-module'] === undefined) required(values, 'api-key');
      else for (const flag of ['pkcs11-token', 'pkcs11-key'] as const) required(values, flag);
      return;
    case 'profiles edit':
    case 'profiles use':
    case 'profiles remove':
      positional(positionals, 2, 'PROFILE');
      return;
    case 'request':
      required(values, 'path');
      required(values, 'body');
      return;
    case 'simulate':
      positional(positionals, 1, 'ACTIVITY_ID');
      return;
    case 'post-stamped':
      positional(positionals, 1, 'FILE');
      return;
    case 'decrypt':
      exactlyOne(values, 'encryption-key', 'encryption-key-file');
      required(values, 'bundle');
      required(values, 'organization');
      revealFormatOf(values);
      if (values['plaintext-output'] === undefined) throw new UsageError('--plaintext-output FILE is required (use - to print the secret to stdout)');
      return;
    case 'encrypt':
      importFormatOf(values);
      for (const flag of ['output', 'organization', 'user', 'import-bundle', 'plaintext-input'] as const) required(values, flag);
      return;
  }
}
