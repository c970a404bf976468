/**
 * What the enclave's signing workers do (signing-worker.ts runs it, signing-pool.ts sends it): one job is one
 * opened key and the work to do with it. The key's secret arrives in a buffer transferred to the worker, so no copy
 * is left behind in the sender, and is zeroed here once the job is done, whatever its outcome.
 */
import { bytesToHex } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import type { WorkerResponse } from '../../node/worker-pool';
import { zeroize } from '../../shared/crypto/keys';
import { signBitcoinPsbt, type BitcoinSigningOptions } from './sign-bitcoin';
import { signSolanaTransaction } from './sign-solana';
import { signDigest, signEd25519, signRaw, type EcdsaSignature, type RawSignature, type SigningKey } from './signing';

export type SigningJob =
  /** Raw payloads: the digests (ECDSA) or messages (Ed25519) prepareRawPayload chose. */
  | { kind: 'raw'; signables: Uint8Array[] }
  /** One 32-byte digest (an Ethereum transaction's signing hash). */
  | { kind: 'digest'; digest: Uint8Array }
  /** A Solana transaction (or bare message) signed in the slot of `signer`. */
  | { kind: 'solana'; transaction: Uint8Array; signer: string }
  /** The inputs of a PSBT this key owns. */
  | { kind: 'psbt'; psbt: Uint8Array; options: BitcoinSigningOptions };

export interface SigningJobResults {
  raw: RawSignature[];
  digest: EcdsaSignature;
  solana: string;
  psbt: string;
}

export type SigningJobResult = SigningJobResults[keyof SigningJobResults];

/** A job as it travels to a worker. */
export interface SigningRequest {
  id: number;
  key: SigningKey;
  job: SigningJob;
}

/** A worker's answer: the result, or the error to raise where the job was sent. */
export type SigningResponse = WorkerResponse<SigningJobResult>;

function runJob(key: SigningKey, job: SigningJob): SigningJobResult {
  switch (job.kind) {
    case 'raw':
      return job.signables.map((signable) => signRaw(key, signable));
    case 'digest':
      return signDigest(key, job.digest);
    case 'solana':
      return bytesToHex(signSolanaTransaction(job.transaction, job.signer, (message) => signEd25519(key, message)));
    case 'psbt':
      return bytesToHex(signBitcoinPsbt(job.psbt, key.secret, job.options).psbt);
  }
}

/** Runs one request and zeroes its key; a QkError travels back as is, anything else as an INTERNAL error. */
export function answer(request: SigningRequest): SigningResponse {
  try {
    return { id: request.id, ok: true, result: runJob(request.key, request.job) };
  } catch (error) {
    const data = error instanceof QkError ? error.toData() : { code: 'INTERNAL' as const, message: `a signing worker failed: ${String(error)}` };
    return { id: request.id, ok: false, error: data };
  } finally {
    zeroize(request.key.secret);
  }
}
