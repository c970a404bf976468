import { sha256 } from '@noble/hashes/sha2.js';
import {
  addEncoderSizePrefix,
  getAddressEncoder,
  getArrayEncoder,
  getOptionEncoder,
  getStructEncoder,
  getU16Encoder,
  getU32Encoder,
  getU64Encoder,
  getU8Encoder,
  getUtf8Encoder,
} from '@solana/kit';
import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';

/**
 * An Anchor program "vault" as an organization uploads it: its IDL, whose `deposit` takes an argument of each kind the
 * readers handle (integer, string, public key, nested list, option, defined struct), and deposit instructions whose
 * data is encoded here independently of the IDL readers.
 */

const seededKey = (byte: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(byte)).publicKey;

export const VAULT_PROGRAM = seededKey(20);
/** The vault account a deposit writes to. */
export const VAULT_ACCOUNT = seededKey(21);

/** Anchor's instruction discriminator: the first 8 bytes of SHA-256 of `global:<name>`. */
const discriminatorOf = (instruction: string): Uint8Array => sha256(new TextEncoder().encode(`global:${instruction}`)).slice(0, 8);

export const DEPOSIT_DISCRIMINATOR = discriminatorOf('deposit');

export const VAULT_IDL = {
  address: VAULT_PROGRAM.toBase58(),
  metadata: { name: 'vault', version: '0.1.0', spec: '0.1.0' },
  instructions: [
    {
      name: 'deposit',
      discriminator: [...DEPOSIT_DISCRIMINATOR],
      accounts: [
        { name: 'vault', writable: true },
        { name: 'user', signer: true },
      ],
      args: [
        { name: 'amount', type: 'u64' },
        { name: 'memo', type: 'string' },
        { name: 'recipient', type: 'pubkey' },
        { name: 'hops', type: { vec: { vec: 'u16' } } },
        { name: 'limit', type: { option: 'u64' } },
        { name: 'route', type: { defined: { name: 'Route' } } },
      ],
    },
    {
      name: 'withdraw',
      discriminator: [...discriminatorOf('withdraw')],
      accounts: [{ name: 'vault', writable: true }],
      args: [],
    },
  ],
  types: [
    {
      name: 'Route',
      type: {
        kind: 'struct',
        fields: [
          { name: 'pool', type: 'u8' },
          { name: 'bump', type: { option: 'u8' } },
        ],
      },
    },
  ],
};

// Borsh layout of the deposit arguments.
const depositArgs = getStructEncoder([
  ['amount', getU64Encoder()],
  ['memo', addEncoderSizePrefix(getUtf8Encoder(), getU32Encoder())],
  ['recipient', getAddressEncoder()],
  ['hops', getArrayEncoder(getArrayEncoder(getU16Encoder()))],
  ['limit', getOptionEncoder(getU64Encoder())],
  [
    'route',
    getStructEncoder([
      ['pool', getU8Encoder()],
      ['bump', getOptionEncoder(getU8Encoder())],
    ]),
  ],
]);

export type DepositArgs = Parameters<typeof depositArgs.encode>[0];

/** A deposit's instruction data: the discriminator, then the Borsh-encoded arguments. */
export function depositData(args: DepositArgs): Uint8Array {
  return new Uint8Array([...DEPOSIT_DISCRIMINATOR, ...depositArgs.encode(args)]);
}

/** A deposit by `user` into the vault account, carrying `data` as given (whole, or cut short to test a misfit). */
export function depositInstruction(user: PublicKey, data: Uint8Array): TransactionInstruction {
  return new TransactionInstruction({
    programId: VAULT_PROGRAM,
    keys: [
      { pubkey: VAULT_ACCOUNT, isSigner: false, isWritable: true },
      { pubkey: user, isSigner: true, isWritable: false },
    ],
    data: Buffer.from(data),
  });
}
