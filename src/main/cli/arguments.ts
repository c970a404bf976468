/**
 * The CLI's flags, read by the entry before any command's code loads, and the checks commands make on them.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error';

const OPTIONS = {
  'data-dir': { type: 'string' },
  profile: { type: 'string' },
  name: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  pkcs11: { type: 'boolean' },
  'pkcs11-module': { type: 'string' },
  'pkcs11-token': { type: 'string' },
  'pkcs11-key': { type: 'string' },
  'pkcs11-key-id': { type: 'string' },
  chain: { type: 'string', multiple: true },
  curve: { type: 'string' },
  path: { type: 'string' },
  body: { type: 'string' },
  'no-post': { type: 'boolean' },
  preview: { type: 'boolean' },
  status: { type: 'string' },
  limit: { type: 'string' },
  before: { type: 'string' },
  wallet: { type: 'string' },
  'encryption-key': { type: 'string' },
  'encryption-key-file': { type: 'string' },
  'target-public-key': { type: 'string' },
  output: { type: 'string' },
  'output-dir': { type: 'string' },
  bundle: { type: 'string' },
  organization: { type: 'string' },
  'signer-public-key': { type: 'string' },
  'key-format': { type: 'string' },
  'plaintext-output': { type: 'string' },
  'import-bundle': { type: 'string' },
  'plaintext-input': { type: 'string' },
  user: { type: 'string' },
  remove: { type: 'string' },
  'sign-with': { type: 'string' },
  type: { type: 'string' },
  unsigned: { type: 'string' },
  payload: { type: 'string' },
  encoding: { type: 'string' },
  hash: { type: 'string' },
  checkpoint: { type: 'string' },
  'attestation-root': { type: 'string', multiple: true },
  from: { type: 'string' },
  to: { type: 'string' },
  draft: { type: 'string' },
  last: { type: 'string' },
  since: { type: 'string' },
  json: { type: 'boolean' },
  'state-bundle': { type: 'string' },
  'save-state-bundle': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

export interface CommandLine {
  values: Values;
  positionals: string[];
}

/** The flags and operands of `argv`; an unknown flag, or one missing its value, is a usage error. */
export function parseCommandLine(argv: string[]): CommandLine {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function exactlyOne(values: Values, a: keyof Values, b: keyof Values): void {
  if ((values[a] === undefined) === (values[b] === undefined)) throw new UsageError(`give exactly one of --${a} and --${b}`);
}

export function positional(positionals: string[], index: number, what: string): string {
  const value = positionals[index];
  if (value === undefined) throw new UsageError(`${what} is required`);
  return value;
}
