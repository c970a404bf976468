/**
 * Ethereum addresses with their EIP-55 checksum: the mixed case that lets a mistyped address be caught. Pure, so the
 * service (deriving addresses) and the window (writing policy templates) share it without a chain library.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8Encode } from './encoding';

/** EIP-55: uppercase each hex letter whose nibble in keccak256(lowercase hex) is ≥ 8. `hex` is 40 digits, no 0x. */
export function eip55(hex: string): string {
  const lower = hex.toLowerCase();
  const hash = bytesToHex(keccak_256(utf8Encode(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    const char = lower.charAt(i);
    out += parseInt(hash.charAt(i), 16) >= 8 ? char.toUpperCase() : char;
  }
  return out;
}

/** `text` as a checksummed address when it is `0x` and 40 hex digits in any case; undefined otherwise. */
export function checksummedEthereumAddress(text: string): string | undefined {
  return /^0x[0-9a-fA-F]{40}$/.test(text) ? eip55(text.slice(2)) : undefined;
}
