/**
 * Byte/text encodings used by Turnkey's wire formats. Every decoder names the thing it decodes in its error,
 * so a caller's message says which field was wrong.
 */
import { base64, base64urlnopad, hex as hexCoder } from '@scure/base';
import { QkError } from '../errors';

const HEX_PATTERN = /^[0-9a-fA-F]*$/;

/**
 * Decodes hex (upper- or lowercase, even length). A `0x` prefix is NOT accepted: Turnkey's formats never carry one,
 * and user-facing inputs that may (private keys) strip it explicitly before calling this.
 */
export function hexToBytes(hex: string, what: string): Uint8Array {
  if (typeof hex !== 'string') {
    throw new QkError('ENCODING_INVALID', `${what} must be a hex string, got ${typeof hex}`);
  }
  if (hex.length % 2 !== 0) {
    throw new QkError('ENCODING_INVALID', `${what} is not valid hex: odd length ${hex.length}`, { what });
  }
  if (!HEX_PATTERN.test(hex)) {
    const position = [...hex].findIndex((char) => !/[0-9a-fA-F]/.test(char));
    throw new QkError('ENCODING_INVALID', `${what} is not valid hex: unexpected character at position ${position}`, {
      what,
      position,
    });
  }
  return hexCoder.decode(hex.toLowerCase());
}

/** Value of each char code of lowercase hex, -1 for every other character (uppercase included). */
const lowercaseHexValues = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) lowercaseHexValues[digit.toString(16).charCodeAt(0)] = digit;

/**
 * The bytes of even-length lowercase hex, or undefined for anything else (odd length, uppercase, other characters):
 * for hot paths that leave the wording of the error to {@link hexToBytes}.
 */
export function lowercaseHexToBytesOrUndefined(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++) {
    const high = hex.charCodeAt(2 * index);
    const low = hex.charCodeAt(2 * index + 1);
    const byte = (high < 128 ? lowercaseHexValues[high]! << 4 : -1) | (low < 128 ? lowercaseHexValues[low]! : -1);
    if (byte < 0) return undefined;
    bytes[index] = byte;
  }
  return bytes;
}

/** Lowercase hex, no prefix (the form Turnkey compares byte-for-byte as strings). */
export function bytesToHex(bytes: Uint8Array): string {
  return hexCoder.encode(bytes);
}

/** base64url without padding (RFC 4648 §5), as in `X-Stamp` and JWT segments. */
export function base64UrlEncode(bytes: Uint8Array): string {
  return base64urlnopad.encode(bytes);
}

/** Decodes base64url; trailing `=` padding is tolerated, the standard-alphabet characters `+` and `/` are not. */
export function base64UrlDecode(text: string, what: string): Uint8Array {
  if (typeof text !== 'string') {
    throw new QkError('ENCODING_INVALID', `${what} must be a base64url string, got ${typeof text}`);
  }
  const unpadded = text.replace(/={1,2}$/, '');
  if (unpadded.length !== text.length && text.length % 4 !== 0) {
    throw new QkError('ENCODING_INVALID', `${what} is not valid base64url: padding does not complete a 4-character group`, {
      what,
    });
  }
  try {
    return base64urlnopad.decode(unpadded);
  } catch (error) {
    throw new QkError('ENCODING_INVALID', `${what} is not valid base64url: ${(error as Error).message}`, { what });
  }
}

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Sextet of each ASCII char code in the base64url alphabet, -1 for every other character. */
const base64UrlSextets = new Int8Array(128).fill(-1);
for (let index = 0; index < BASE64URL_ALPHABET.length; index++) base64UrlSextets[BASE64URL_ALPHABET.charCodeAt(index)] = index;

function base64UrlSextet(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? base64UrlSextets[code]! : -1;
}

/**
 * What {@link base64UrlDecode} returns, or undefined wherever it would throw (the same rules: tolerated `=` padding
 * that completes a 4-character group, a length of 1 mod 4 refused, non-zero trailing bits refused), for hot paths
 * that only want to know whether the text decodes and leave the wording of the error to base64UrlDecode.
 */
export function base64UrlDecodeOrUndefined(text: string): Uint8Array | undefined {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 0x3d) {
    if (end % 4 !== 0) return undefined;
    end -= text.charCodeAt(end - 2) === 0x3d ? 2 : 1;
  }
  const tail = end % 4;
  if (tail === 1) return undefined;
  const bytes = new Uint8Array((end * 3) >> 2);
  const wholeGroupsEnd = end - tail;
  let at = 0;
  for (let index = 0; index < wholeGroupsEnd; index += 4) {
    const group =
      (base64UrlSextet(text, index) << 18) |
      (base64UrlSextet(text, index + 1) << 12) |
      (base64UrlSextet(text, index + 2) << 6) |
      base64UrlSextet(text, index + 3);
    // A -1 sextet sets the sign bit.
    if (group < 0) return undefined;
    bytes[at++] = group >> 16;
    bytes[at++] = group >> 8;
    bytes[at++] = group;
  }
  if (tail === 0) return bytes;
  const first = base64UrlSextet(text, wholeGroupsEnd);
  const second = base64UrlSextet(text, wholeGroupsEnd + 1);
  if (first < 0 || second < 0) return undefined;
  bytes[at++] = (first << 2) | (second >> 4);
  if (tail === 2) return (second & 0x0f) === 0 ? bytes : undefined;
  const third = base64UrlSextet(text, wholeGroupsEnd + 2);
  if (third < 0 || (third & 0x03) !== 0) return undefined;
  bytes[at] = (second << 4) | (third >> 2);
  return bytes;
}

/** Standard base64 with padding (RFC 4648 §4), as in the API's `…B64` fields. */
export function base64Encode(bytes: Uint8Array): string {
  return base64.encode(bytes);
}

/** Decodes standard padded base64; whitespace, the URL-safe alphabet and missing padding are refused. */
export function base64Decode(text: string, what: string): Uint8Array {
  if (typeof text !== 'string') {
    throw new QkError('ENCODING_INVALID', `${what} must be a base64 string, got ${typeof text}`);
  }
  try {
    return base64.decode(text);
  } catch (error) {
    throw new QkError('ENCODING_INVALID', `${what} is not valid base64: ${(error as Error).message}`, { what });
  }
}

export function utf8Encode(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes UTF-8, rejecting invalid sequences instead of substituting U+FFFD. */
export function utf8Decode(bytes: Uint8Array, what = 'text'): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new QkError('ENCODING_INVALID', `${what} is not valid UTF-8`, { what });
  }
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const result = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return result;
}
