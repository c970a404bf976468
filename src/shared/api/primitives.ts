/**
 * The building blocks every API schema is made of: strict request objects and loose response objects, the length
 * limit of each kind of request string, and the wire forms of integers and timestamps.
 */
import { z } from 'zod';
import { MAX_EMAIL_LENGTH } from '../text';

/** A request object: unknown fields are an error. */
export const req = z.strictObject;
/** A response object: unknown fields are kept, not refused. */
export const res = z.looseObject;

/**
 * The longest value each kind of request string may hold. Every request string has one, so an overlong string is
 * refused by its length alone, before any pattern, parser, signature check or database sees it.
 */
export const MAX_LENGTH = {
  /** Resource ids are UUIDs. */
  id: 36,
  /** Names, labels, tag names and similar short text chosen by a person. */
  name: 256,
  email: MAX_EMAIL_LENGTH,
  /** E.164 is '+' and at most 15 digits; the slack lets a near miss get the specific format error. */
  phoneNumber: 32,
  /** A uint64 or int64 in decimal: 20 characters at most (with the sign). */
  decimal: 20,
  /** A uint256 in decimal (wei amounts, fees): 78 digits, with room to spare. */
  uint256: 80,
  /** Hex public keys: an uncompressed SEC1 point (65 bytes) is the longest. */
  publicKey: 130,
  /** A QOS key pair (encryption ‖ signing: two uncompressed points), as TVC quorum and enclave ephemeral keys are. */
  publicKeyPair: 260,
  /** Hex signatures: a DER ECDSA signature (at most 72 bytes) is the longest. */
  signature: 144,
  /** Chain addresses: the longest formats (Spark, Cosmos-style bech32, TON, Sui, Aptos) stay well under it. */
  address: 128,
  /** `signWith`: a wallet account address, a private key id or a public key (an uncompressed one is the longest). */
  signWith: 130,
  /** A payload to sign: a message, a digest or EIP-712 typed data, in its encoding. */
  payload: 256 * 1024,
  /** An unsigned transaction or PSBT in hex: 256 KiB of bytes, twice a node's largest relayed transaction. */
  transaction: 512 * 1024,
  /** BIP32 derivation paths. */
  path: 256,
  /** `sha256:<64 hex>` fingerprints, with room for the algorithm prefix. */
  fingerprint: 128,
  /** URLs and URL-like claims (OIDC issuer and audience). */
  url: 2048,
  /** Short free text inside a message the client signs (a token usage). */
  message: 4 * 1024,
  /** Notes on a policy, session profile or contract interface. */
  notes: 4 * 1024,
  /** Policy conditions, consensus expressions and session-profile scopes. */
  policyExpression: 64 * 1024,
  /** Policy time windows (a cron span). */
  policyTime: 1024,
  /** OIDC ID tokens, verification tokens and other JWTs. */
  token: 16 * 1024,
  /** Encrypted import / OTP bundles: a JSON envelope of hex fields around a key or mnemonic. */
  bundle: 64 * 1024,
  /** WebAuthn credential ids (at most 1023 bytes, base64url). */
  credentialId: 2048,
  /** WebAuthn challenges (base64url). */
  challenge: 1024,
  /** WebAuthn clientDataJSON and attestation objects (base64url), with room for an attestation certificate chain. */
  webauthnData: 64 * 1024,
  /** Ethereum ABIs and Solana IDLs: Turnkey accepts up to 400 kB. */
  contractInterface: 400 * 1024,
} as const;

/**
 * Payloads one sign_raw_payloads request may carry (**our choice**: Turnkey documents no bound). Each is a separate
 * signature; a client with more sends several requests, which lets other requests run between them.
 */
export const MAX_RAW_PAYLOADS = 1_000;

/** A request list of at most `max` items, refused before its items are looked at further. */
export function boundedList<T extends z.ZodType>(item: T, max: number, what: string): z.ZodArray<T> {
  return z.array(item).max(max, {
    error: (issue) => `must hold at most ${max} ${what}, got ${String((issue.input as unknown[]).length)}; send the rest in further requests`,
    abort: true,
  });
}

/** A request string of at most `max` characters; longer ones are refused before any other check runs on them. */
export function boundedString(max: number): z.ZodString {
  return z.string().max(max, { error: (issue) => `must be at most ${max} characters, got ${String((issue.input as string).length)}`, abort: true });
}

/** One bounded string schema per kind of request field (see MAX_LENGTH). */
export const bounded = {
  id: boundedString(MAX_LENGTH.id),
  name: boundedString(MAX_LENGTH.name),
  email: boundedString(MAX_LENGTH.email),
  phoneNumber: boundedString(MAX_LENGTH.phoneNumber),
  publicKey: boundedString(MAX_LENGTH.publicKey),
  publicKeyPair: boundedString(MAX_LENGTH.publicKeyPair),
  signature: boundedString(MAX_LENGTH.signature),
  address: boundedString(MAX_LENGTH.address),
  signWith: boundedString(MAX_LENGTH.signWith),
  payload: boundedString(MAX_LENGTH.payload),
  transaction: boundedString(MAX_LENGTH.transaction),
  uint256: boundedString(MAX_LENGTH.uint256),
  path: boundedString(MAX_LENGTH.path),
  fingerprint: boundedString(MAX_LENGTH.fingerprint),
  url: boundedString(MAX_LENGTH.url),
  message: boundedString(MAX_LENGTH.message),
  notes: boundedString(MAX_LENGTH.notes),
  policyExpression: boundedString(MAX_LENGTH.policyExpression),
  policyTime: boundedString(MAX_LENGTH.policyTime),
  token: boundedString(MAX_LENGTH.token),
  bundle: boundedString(MAX_LENGTH.bundle),
  credentialId: boundedString(MAX_LENGTH.credentialId),
  challenge: boundedString(MAX_LENGTH.challenge),
  webauthnData: boundedString(MAX_LENGTH.webauthnData),
  contractInterface: boundedString(MAX_LENGTH.contractInterface),
} as const;

// ─── wire primitives (docs/service.md#transport) ──────────────────────────────────────────────

/** An unsigned decimal integer carried as a string (uint64 / int64 counters, `timestampMs`). */
export const decimalString = boundedString(MAX_LENGTH.decimal).regex(/^\d+$/, { error: 'expected a string of decimal digits' });

/** A proto int32: a JSON number. */
export const int32 = z
  .number()
  .int()
  .min(-(2 ** 31))
  .max(2 ** 31 - 1);

/**
 * A proto int64 declared `type: integer` in the swagger. proto3 JSON writes int64 as a decimal
 * string and accepts a number too (the Turnkey SDK types declare it `number`), so both are read and
 * the value always comes out as a string: precision is never lost past 2^53.
 */
export const int64 = z
  .union([boundedString(MAX_LENGTH.decimal).regex(/^-?\d+$/, { error: 'expected a decimal integer' }), z.number().int().safe()])
  .transform(String);

/** `externaldatav1Timestamp`: seconds and nanos, both decimal strings. */
export const timestamp = res({ seconds: z.string(), nanos: z.string() });
export type Timestamp = z.infer<typeof timestamp>;
