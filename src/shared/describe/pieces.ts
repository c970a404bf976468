/**
 * Reading an intent's fields, and the pieces several families' describers share: accounts, export targets, policy
 * expressions, deletions of secrets and removals by id.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8Encode } from '../crypto/encoding';
import type { Describer, Draft, Fields } from './draft';
import type { ExportDescription, Ref } from './types';
import { addressFormatInWords } from './words';

export function text(fields: Fields, key: string): string | undefined {
  const value = fields[key];
  return typeof value === 'string' ? value : undefined;
}

export function texts(fields: Fields, key: string): string[] {
  const value = fields[key];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function records(fields: Fields, key: string): Fields[] {
  const value = fields[key];
  return Array.isArray(value) ? value.filter((item): item is Fields => typeof item === 'object' && item !== null && !Array.isArray(item)) : [];
}

export function record(fields: Fields, key: string): Fields | undefined {
  const value = fields[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

export function number(fields: Fields, key: string): number | undefined {
  const value = fields[key];
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

export const plain = (value: string): Ref => ({ text: value });
export const code = (value: string): Ref => ({ text: value, code: true });
export const refs = (values: readonly string[], to: (value: string) => Ref): Ref[] => values.map(to);

/** `sha256:` + the SHA-256 of a hex public key's bytes (of its text when it is not hex), in full. */
export function publicKeyFingerprint(publicKey: string): string {
  const bytes = /^(?:[0-9a-fA-F]{2})+$/.test(publicKey) ? hexToBytes(publicKey, 'public key') : utf8Encode(publicKey);
  return `sha256:${bytesToHex(sha256(bytes))}`;
}

export function exportTarget(draft: Draft, publicKey: string): ExportDescription['target'] {
  const local = draft.lookup.localExportKeys?.find((key) => key.publicKey.toLowerCase() === publicKey.toLowerCase());
  if (local === undefined) {
    draft.warn(
      'The secret is sealed to a key this desktop does not hold. Only whoever holds that key can open it: confirm its fingerprint with them before you approve.',
    );
  }
  return { publicKey, fingerprint: publicKeyFingerprint(publicKey), localKeyName: local?.name };
}

/** "Ethereum m/44'/60'/0'/0/0", and the address when known. */
export function account(fields: Fields): Ref {
  const format = text(fields, 'addressFormat');
  const path = text(fields, 'path') ?? '';
  const chain = format === undefined ? 'Account' : addressFormatInWords(format);
  const address = text(fields, 'address');
  return { text: `${chain} ${path}${address === undefined ? '' : ` ${address}`}`.trim(), code: false };
}

export function accountsOfWallet(draft: Draft, walletId: string): Ref[] | undefined {
  const accounts = draft.lookup.walletAccounts?.filter((candidate) => candidate.walletId === walletId);
  return accounts?.map((existing) => account({ ...existing }));
}

export const EVERYTHING = new Set(['', 'true']);

export function expression(value: string, whenEmpty: string): Ref {
  return value.trim() === '' ? plain(whenEmpty) : code(value);
}

/** A wallet or private key deletion, with what Turnkey does about secrets that were never exported. */
export function deleteSecrets(
  draft: Draft,
  kind: 'wallet' | 'private key',
  items: { ref: Ref; exported: boolean | undefined }[],
  fields: Fields,
): void {
  const withoutExport = fields['deleteWithoutExport'] === true;
  for (const item of items) draft.deletions.push({ what: item.ref, kind, ...(item.exported === undefined ? {} : { exported: item.exported }) });
  const unexported = items.filter((item) => item.exported === false).map((item) => item.ref.text);
  if (unexported.length === 0) return;
  const list = unexported.join(', ');
  draft.warn(
    withoutExport
      ? `${list} ${unexported.length === 1 ? 'was' : 'were'} never exported, and the request asks to delete anyway: no copy of ${unexported.length === 1 ? 'this' : 'these'} ${kind === 'wallet' ? 'seed' : 'key'}${unexported.length === 1 ? '' : 's'} exists, so any funds are lost for good.`
      : `${list} ${unexported.length === 1 ? 'was' : 'were'} never exported. The service refuses to delete an unexported ${kind} unless the request asks for it, and this one does not, so it will fail.`,
  );
}

export const deleteById =
  (title: string, kind: string, field: string): Describer =>
  (fields, draft) => {
    draft.title = title;
    draft.deletions.push({ what: code(text(fields, field) ?? ''), kind });
  };
