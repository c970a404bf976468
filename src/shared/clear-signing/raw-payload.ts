/**
 * Raw payloads in words: the text when the bytes are printable UTF-8, EIP-712 and EIP-7702 documents read as
 * trees, a Solana message signed as a payload decoded, and a bare 32-byte digest flagged as blind signing. What the key
 * signs is computed by the same rule the service applies.
 */
import { prepareRawPayload, type HashFunction, type PayloadEncoding, type SigningCurve } from '../chains/raw-payload';
import { bytesToHex, hexToBytes, utf8Encode } from '../crypto/encoding';
import { HASH_FUNCTION_WORDS, PAYLOAD_ENCODING_WORDS } from '../describe/signing-words';
import { QkError } from '../errors';
import { readAuthorization, readTypedData, safeSummary } from './ethereum';
import type { Lookup } from './lookup';
import { SOLANA_NETWORK } from './networks';
import { readSolanaTransaction } from './solana';
import type { Network, RawPayloadDetails, RawPayloadsDetails, Signer } from './types';
import type { Warnings } from './warnings';

const DIGEST_LENGTH = 32;

/** Printable text: valid UTF-8 with no control characters other than tab and line breaks. */
function printableText(bytes: Uint8Array): string | undefined {
  if (bytes.length === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
  return /[\u0000-\u0008\v\f\u000e-\u001f\u007f]/.test(text) ? undefined : text;
}

/**
 * The digest rule depends only on whether the key is Ed25519 (the one curve that takes NOT_APPLICABLE) or an ECDSA
 * key; structured encodings are secp256k1's.
 */
function curveOf(hashFunction: HashFunction): SigningCurve {
  return hashFunction === 'HASH_FUNCTION_NOT_APPLICABLE' ? 'CURVE_ED25519' : 'CURVE_SECP256K1';
}

function payloadBytes(payload: string, encoding: PayloadEncoding, what: string): Uint8Array {
  if (encoding === 'PAYLOAD_ENCODING_HEXADECIMAL')
    return hexToBytes(payload.startsWith('0x') || payload.startsWith('0X') ? payload.slice(2) : payload, what);
  return utf8Encode(payload);
}

export function readRawPayloads(
  payloads: readonly { payload: string; what: string }[],
  encoding: PayloadEncoding,
  hashFunction: HashFunction,
  signer: Signer,
  lookup: Lookup,
  warnings: Warnings,
): { details: RawPayloadsDetails; network: Network | undefined; summary: string } {
  const curve = curveOf(hashFunction);
  let network: Network | undefined;
  const details = payloads.map(({ payload, what }, index): RawPayloadDetails => {
    const prepared = prepareRawPayload({ payload, encoding, hashFunction, curve, what });
    const bytes = payloadBytes(payload, encoding, what);
    const text = encoding === 'PAYLOAD_ENCODING_HEXADECIMAL' ? printableText(bytes) : encoding === 'PAYLOAD_ENCODING_TEXT_UTF8' ? payload : undefined;
    const base = {
      index,
      payload,
      hex: bytesToHex(bytes),
      signedBytesHex: bytesToHex(prepared.signable),
      ...(text === undefined ? {} : { text }),
      ...(prepared.policy === undefined ? {} : { policy: prepared.policy }),
    };
    if (encoding === 'PAYLOAD_ENCODING_EIP712') {
      const typedData = readTypedData(payload, what, lookup, warnings);
      network ??= typedData.network;
      return { ...base, typedData };
    }
    if (encoding === 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION') {
      const authorization = readAuthorization(payload, what, signer, lookup, warnings);
      network ??= authorization.network;
      return { ...base, authorization };
    }
    if (hashFunction === 'HASH_FUNCTION_NOT_APPLICABLE') {
      const solanaMessage = solanaMessageIn(bytes, lookup, warnings);
      if (solanaMessage !== undefined) {
        network ??= SOLANA_NETWORK;
        return { ...base, solanaMessage };
      }
    }
    if (
      text === undefined &&
      bytes.length === DIGEST_LENGTH &&
      (hashFunction === 'HASH_FUNCTION_NO_OP' || hashFunction === 'HASH_FUNCTION_NOT_APPLICABLE')
    ) {
      warnings.add(
        'BLIND_SIGNING',
        `${payloads.length === 1 ? 'The payload' : `Payload ${index + 1}`} is a bare 32-byte digest: nothing shows what it commits to. Approve only if you know where this digest came from.`,
        base.hex,
      );
    }
    return base;
  });
  return {
    details: {
      kind: 'raw-payloads',
      encoding,
      encodingText: PAYLOAD_ENCODING_WORDS[encoding].reading,
      hashFunction,
      hashFunctionText: HASH_FUNCTION_WORDS[hashFunction].reading,
      payloads: details,
    },
    network,
    summary: rawSummary(details),
  };
}

/** A Solana message is signed as a raw Ed25519 payload by older SDKs: when the bytes decode as one, show it. */
function solanaMessageIn(bytes: Uint8Array, lookup: Lookup, warnings: Warnings) {
  let reading: ReturnType<typeof readSolanaTransaction>;
  try {
    reading = readSolanaTransaction(bytes, lookup, warnings);
  } catch (error) {
    if (error instanceof QkError) return undefined;
    throw error;
  }
  return reading.details;
}

function rawSummary(payloads: readonly RawPayloadDetails[]): string {
  if (payloads.length !== 1) return `Sign ${payloads.length} payloads`;
  const [payload] = payloads as [RawPayloadDetails];
  const safe = payload.typedData?.safeTransaction;
  if (safe !== undefined && payload.typedData?.network !== undefined)
    return `Sign a SafeTx for ${safeSummary(safe, payload.typedData.network)} (nonce ${safe.nonce})`;
  if (payload.typedData !== undefined)
    return `Sign EIP-712 ${payload.typedData.primaryType}${payload.typedData.network === undefined ? '' : ` on ${payload.typedData.network.name}`}`;
  if (payload.authorization !== undefined)
    return `Delegate the account to ${payload.authorization.delegate.label ?? payload.authorization.delegate.address}`;
  if (payload.solanaMessage !== undefined) {
    const count = payload.solanaMessage.instructions.length;
    return `Sign a Solana message: ${count} instruction${count === 1 ? '' : 's'}`;
  }
  if (payload.text !== undefined) return `Sign the text "${payload.text.length > 60 ? `${payload.text.slice(0, 57)}…` : payload.text}"`;
  return `Sign ${payload.hex.length / 2} bytes`;
}
