/**
 * App proofs (docs/formats.md#app-proofs): `proofPayload` JSON signed (raw r‖s, ECDSA P-256 over SHA-256(payload)) by
 * the signing half of a 130-byte QOS ephemeral key (encryption pub 65 ‖ signing pub 65).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { QkError } from '../errors';
import { ecdsaVerifyDigest, RAW_SIGNATURE_LENGTH } from './ecdsa';
import { bytesToHex, hexToBytes, utf8Encode } from './encoding';
import { parseP256PublicKey } from './keys';
import type { DigestSigner } from './tokens';

export const APP_PROOF_SCHEME = 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256';
const QOS_KEY_LENGTH = 130;
const UNCOMPRESSED_POINT_LENGTH = 65;

export interface AppProof {
  scheme: typeof APP_PROOF_SCHEME;
  /** 130-byte QOS ephemeral key, hex. */
  publicKey: string;
  /** The JSON that was signed, verbatim. */
  proofPayload: string;
  /** Raw 64-byte r‖s, hex. */
  signature: string;
}

/** The signing half (bytes 65..130) of a QOS ephemeral key, validated as an uncompressed P-256 point. */
function signingKeyOf(publicKeyHex: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(publicKeyHex, 'app proof publicKey');
  } catch (error) {
    throw new QkError('KEY_INVALID', (error as Error).message);
  }
  if (bytes.length !== QOS_KEY_LENGTH) {
    throw new QkError('KEY_INVALID', `app proof publicKey must be ${QOS_KEY_LENGTH} bytes (encryption ‖ signing key), got ${bytes.length}`);
  }
  const signingKey = bytes.slice(UNCOMPRESSED_POINT_LENGTH);
  if (signingKey[0] !== 0x04) throw new QkError('KEY_INVALID', 'app proof signing key (bytes 65..130) must be an uncompressed point');
  parseP256PublicKey(bytesToHex(signingKey), 'app proof signing key');
  return signingKey;
}

export async function signAppProof(payload: object, signer: { publicKey130Hex: string; signRaw: DigestSigner }): Promise<AppProof> {
  signingKeyOf(signer.publicKey130Hex);
  const proofPayload = JSON.stringify(payload);
  const signature = await signer.signRaw(sha256(utf8Encode(proofPayload)));
  if (signature.length !== RAW_SIGNATURE_LENGTH) {
    throw new QkError('INTERNAL', `app proof signer returned ${signature.length} bytes; expected raw 64-byte r‖s`);
  }
  return { scheme: APP_PROOF_SCHEME, publicKey: signer.publicKey130Hex, proofPayload, signature: bytesToHex(signature) };
}

/**
 * Verifies the signature of an app proof and returns its parsed payload. Does not verify the boot proof
 * (attestation) that vouches for the ephemeral key. SIGNATURE_INVALID / KEY_INVALID.
 */
export function verifyAppProof(proof: AppProof): unknown {
  // The proof arrives as JSON, so its scheme may be anything despite the type.
  const scheme: unknown = proof.scheme;
  if (scheme !== APP_PROOF_SCHEME) {
    throw new QkError('SIGNATURE_INVALID', `app proof scheme ${JSON.stringify(scheme)} is not ${APP_PROOF_SCHEME}`);
  }
  const signingKey = signingKeyOf(proof.publicKey);
  let signature: Uint8Array;
  try {
    signature = hexToBytes(proof.signature, 'app proof signature');
  } catch (error) {
    throw new QkError('SIGNATURE_INVALID', (error as Error).message);
  }
  if (!ecdsaVerifyDigest('p256', signature, sha256(utf8Encode(proof.proofPayload)), signingKey, 'raw')) {
    throw new QkError('SIGNATURE_INVALID', 'app proof signature does not verify over proofPayload with the signing half of publicKey');
  }
  try {
    return JSON.parse(proof.proofPayload) as unknown;
  } catch {
    throw new QkError('SIGNATURE_INVALID', 'app proof proofPayload is signed but is not JSON');
  }
}
