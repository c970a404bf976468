/**
 * `clientSignature` (docs/service.md#otp-flow, docs/formats.md#stamps): the key bound in a verification token signs a
 * JSON `v1TokenUsage` naming the token and what it is used for; raw r‖s hex, ECDSA P-256 over SHA-256(message).
 */
import { QkError } from '../../shared/errors';
import { ecdsaVerify } from '../../shared/crypto/ecdsa';
import { hexToBytes, utf8Encode } from '../../shared/crypto/encoding';
import { compressP256, parseP256PublicKey } from '../../shared/crypto/keys';
import type { VerificationTokenClaims } from '../../shared/crypto/tokens';

export interface ClientSignature {
  publicKey: string;
  scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256';
  message: string;
  signature: string;
}

export type TokenUsageType = 'USAGE_TYPE_SIGNUP' | 'USAGE_TYPE_LOGIN';

function refused(problem: string): QkError {
  return new QkError('SIGNATURE_INVALID', `clientSignature ${problem}`);
}

/**
 * Checks that the signature is by the token's key, over a usage message of `type` for this token; returns the
 * parsed message for the caller to compare with the request.
 */
export function verifyClientSignature(signature: ClientSignature, token: VerificationTokenClaims, type: TokenUsageType): Record<string, unknown> {
  let signer: string;
  try {
    signer = compressP256(signature.publicKey);
  } catch {
    throw refused(`.publicKey ${signature.publicKey} is not a P-256 public key`);
  }
  if (signer !== compressP256(token.public_key)) {
    throw refused(`.publicKey ${signature.publicKey} is not the key bound in the verification token (${token.public_key})`);
  }
  let raw: Uint8Array;
  try {
    raw = hexToBytes(signature.signature, 'clientSignature.signature');
  } catch {
    throw refused('.signature must be hex (raw 64-byte r‖s)');
  }
  const publicKey = parseP256PublicKey(signer, 'clientSignature.publicKey').toBytes(false);
  if (!ecdsaVerify('p256', raw, utf8Encode(signature.message), publicKey, 'raw')) {
    throw refused('does not verify: expected a raw r‖s ECDSA P-256 signature over SHA-256(message) by the token key');
  }
  let message: unknown;
  try {
    message = JSON.parse(signature.message);
  } catch {
    throw refused('.message must be the JSON of a token usage {type, tokenId, …}');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw refused('.message must be a JSON object');
  const usage = message as Record<string, unknown>;
  if (usage.type !== type) throw refused(`.message type is ${JSON.stringify(usage.type)}, expected ${type}`);
  if (usage.tokenId !== token.id) throw refused(`.message tokenId ${JSON.stringify(usage.tokenId)} is not the verification token's id ${token.id}`);
  return usage;
}
