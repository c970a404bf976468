import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '../../src/shared/crypto/encoding';
import { Enclave } from '../../src/service/enclave';

/** An enclave of its own (fresh signing key and service secret) with one signing worker; its caller closes it. */
export function newTestEnclave(): Enclave {
  const signer = secp256k1.utils.randomSecretKey();
  return new Enclave({
    signingKey: { publicKey: bytesToHex(secp256k1.getPublicKey(signer, false)), privateKey: bytesToHex(signer) },
    serviceSecret: randomBytes(32),
    secretCreatedAtMs: Date.now(),
    signingWorkers: 1,
  });
}
