/**
 * Signs a Solana transaction for one of its required signers, as Turnkey's SIGN_TRANSACTION does for
 * TRANSACTION_TYPE_SOLANA.
 *
 * Export: `signSolanaTransaction(unsigned, signerAddress, sign)` → the serialized transaction with the signer's
 * slot filled. Other signers' slots are kept byte for byte. `unsigned` is what @turnkey/solana sends: the
 * transaction serialized with empty (zero) slots; a bare message is accepted too and gets empty slots for the
 * other signers.
 */
import { getTransactionEncoder, type Address, type SignatureBytes, type Transaction } from '@solana/kit';
import { decodeSolanaWireOrMessage, SOLANA_SIGNATURE_LENGTH } from '../../shared/chains/solana';
import { QkError } from '../../shared/errors';

export function signSolanaTransaction(unsigned: Uint8Array, signerAddress: string, sign: (message: Uint8Array) => Uint8Array): Uint8Array {
  const wire = decodeSolanaWireOrMessage(unsigned);
  const signers = wire.signatures.map((slot) => slot.signer);
  if (!signers.includes(signerAddress)) {
    throw new QkError('REQUEST_INVALID', `${signerAddress} is not a required signer of this Solana transaction (required: ${signers.join(', ')})`, {
      signWith: signerAddress,
      requiredSigners: signers,
    });
  }
  const signature = sign(wire.messageBytes);
  if (signature.length !== SOLANA_SIGNATURE_LENGTH) {
    throw new QkError('INTERNAL', `an Ed25519 signature is ${SOLANA_SIGNATURE_LENGTH} bytes, got ${signature.length}`);
  }
  // Slots are written in the order of this map's entries, which follows the message's signer order.
  const signatures: Record<Address, SignatureBytes | null> = {};
  for (const slot of wire.signatures) {
    signatures[slot.signer as Address] = (slot.signer === signerAddress ? signature : slot.signature) as SignatureBytes | null;
  }
  const transaction = { messageBytes: wire.messageBytes, signatures } as unknown as Transaction;
  return new Uint8Array(getTransactionEncoder().encode(transaction));
}
