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
