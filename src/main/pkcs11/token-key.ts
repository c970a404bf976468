/**
 * Where an API key on a PKCS#11 token lives: the module that drives the token, the token's label, and the key's label
 * (and CKA_ID when the label alone is ambiguous). Holds no secret: the private key never leaves the token and the PIN
 * is asked per session.
 */
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { QkError } from '../../shared/errors';

/** What finds the key on a token. */
export interface TokenKeyRef {
  /** Absolute path of the PKCS#11 module (SoftHSM2's libsofthsm2.so, OpenSC's opensc-pkcs11.so, Yubico's libykcs11.so). */
  module: string;
  /** The token's label, as `softhsm2-util --show-slots` or `pkcs11-tool -L` prints it. */
  tokenLabel: string;
  /** The key's CKA_LABEL. */
  keyLabel: string;
  /** The key's CKA_ID in lowercase hex, when given it must match too. */
  keyId?: string | undefined;
}

/** A token key a profile signs with: where it is, and its public key pinned when the profile chose it. */
export interface TokenKey extends TokenKeyRef {
  /** Compressed P-256 point (66 hex), as the service lists the API key. */
  publicKey: string;
}

/** PKCS#11 labels are 32 bytes of UTF-8 padded with spaces; a key label may be longer, but we keep both short. */
const LABEL_PATTERN = /^[^\s\p{Cc}](?:\P{Cc}{0,30}[^\s\p{Cc}])?$/u;
const KEY_ID_PATTERN = /^(?:[0-9a-f]{2}){1,64}$/;
const COMPRESSED_P256_PATTERN = /^0[23][0-9a-f]{64}$/;

export const tokenKeyRefSchema = z.strictObject({
  module: z.string().refine((path) => isAbsolute(path) && !/\p{Cc}/u.test(path), 'must be an absolute path'),
  tokenLabel: z.string().regex(LABEL_PATTERN),
  keyLabel: z.string().regex(LABEL_PATTERN),
  keyId: z.string().regex(KEY_ID_PATTERN).optional(),
});

export const tokenKeySchema = tokenKeyRefSchema.extend({ publicKey: z.string().regex(COMPRESSED_P256_PATTERN) });

function invalid(label: string, field: string, problem: string): QkError {
  return new QkError('REQUEST_INVALID', `${label}.${field} ${problem}`, { field });
}

/** A token's or key's label as PKCS#11 keeps it, or REQUEST_INVALID naming `label.field`. */
export function validLabel(value: unknown, label: string, field: string): string {
  if (typeof value !== 'string' || !LABEL_PATTERN.test(value)) {
    throw invalid(label, field, `must be 1-32 characters without control characters or spaces at either end, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Validates a token key reference field by field, naming the first wrong one under `label`. */
export function validateTokenKeyRef(candidate: unknown, label: string): TokenKeyRef {
  if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) {
    throw new QkError('REQUEST_INVALID', `${label} must be an object with module, tokenLabel and keyLabel`, { field: label });
  }
  const fields = candidate as Record<string, unknown>;
  const known = new Set(['module', 'tokenLabel', 'keyLabel', 'keyId', 'publicKey']);
  const unknown = Object.keys(fields).find((key) => !known.has(key));
  if (unknown !== undefined) throw invalid(label, unknown, 'is not a field of a token key');
  const { module, tokenLabel, keyLabel, keyId } = fields;
  if (typeof module !== 'string' || !isAbsolute(module) || /\p{Cc}/u.test(module)) {
    throw invalid(
      label,
      'module',
      `must be the absolute path of a PKCS#11 module (e.g. /usr/lib/softhsm/libsofthsm2.so), got ${JSON.stringify(module)}`,
    );
  }
  const ref: TokenKeyRef = { module, tokenLabel: validLabel(tokenLabel, label, 'tokenLabel'), keyLabel: validLabel(keyLabel, label, 'keyLabel') };
  if (keyId !== undefined) {
    if (typeof keyId !== 'string' || !KEY_ID_PATTERN.test(keyId)) {
      throw invalid(label, 'keyId', `must be the key's CKA_ID as lowercase hex (1-64 bytes), got ${JSON.stringify(keyId)}`);
    }
    ref.keyId = keyId;
  }
  return ref;
}

/** Validates a profile's token key: the reference and its pinned compressed P-256 public key. */
export function validateTokenKey(candidate: unknown, label: string): TokenKey {
  const ref = validateTokenKeyRef(candidate, label);
  const publicKey = (candidate as Record<string, unknown>).publicKey;
  if (typeof publicKey !== 'string' || !COMPRESSED_P256_PATTERN.test(publicKey)) {
    throw invalid(label, 'publicKey', "must be the key's compressed P-256 public key: 66 lowercase hex characters starting with 02 or 03");
  }
  return { ...ref, publicKey };
}

/** How people and the journal name a token key: `key "ops-1" on token "qk" (CKA_ID 01ab)`. */
export function describeTokenKey(ref: TokenKeyRef): string {
  return `key ${JSON.stringify(ref.keyLabel)}${ref.keyId === undefined ? '' : ` (CKA_ID ${ref.keyId})`} on token ${JSON.stringify(ref.tokenLabel)}`;
}
