import { ed25519 } from '@noble/curves/ed25519.js';
import {
  AddressLookupTableAccount,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import {
  addSignersToTransactionMessage,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getTransactionEncoder,
  none,
  some,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, getTransferInstruction } from '@solana-program/token';
import { TurnkeySigner } from '@turnkey/solana';
import { describe, expect, it } from 'vitest';
import { signSolanaTransaction } from '../../../src/service/enclave/sign-solana.js';
import { decodeSolanaTransaction, TOKEN_2022_PROGRAM_ADDRESS } from '../../../src/shared/chains/solana.js';
import { bytesToHex, hexToBytes } from '../../../src/shared/crypto/encoding.js';
import { expectQkError } from '../../support/assertions';
import { DEPOSIT_DISCRIMINATOR, depositData, depositInstruction, VAULT_ACCOUNT, VAULT_IDL, VAULT_PROGRAM } from '../../support/vault-idl';

const BLOCKHASH = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';

function keypair(seedByte: number): Keypair {
  return Keypair.fromSeed(new Uint8Array(32).fill(seedByte));
}

/** The enclave's side: an Ed25519 signer over the message, with the key's 32-byte seed. */
function signerFor(key: Keypair): (message: Uint8Array) => Uint8Array {
  return (message) => ed25519.sign(message, key.secretKey.slice(0, 32));
}

function legacyTransfer(from: Keypair, to: PublicKey, lamports: number): Transaction {
  const transaction = new Transaction({ feePayer: from.publicKey, recentBlockhash: BLOCKHASH });
  transaction.add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }));
  return transaction;
}

/** What @turnkey/solana sends: the transaction serialized with its empty slots. */
function unsignedBytes(transaction: Transaction | VersionedTransaction): Uint8Array {
  return transaction instanceof Transaction
    ? new Uint8Array(transaction.serialize({ requireAllSignatures: false, verifySignatures: false }))
    : transaction.serialize();
}

describe('decodeSolanaTransaction: System transfers built with web3.js', () => {
  const sender = keypair(1);
  const recipient = keypair(2).publicKey;

  it('reads a legacy transfer into solana.tx', () => {
    const decoded = decodeSolanaTransaction(unsignedBytes(legacyTransfer(sender, recipient, 1_500_000)));
    expect(decoded.version).toBe('legacy');
    expect(decoded.requiredSigners).toEqual([sender.publicKey.toBase58()]);
    expect(decoded.policy.transfers).toEqual([{ from: sender.publicKey.toBase58(), to: recipient.toBase58(), amount: 1_500_000n }]);
    expect(decoded.policy.spl_transfers).toEqual([]);
    expect(decoded.policy.program_keys).toEqual([SystemProgram.programId.toBase58()]);
    expect(decoded.policy.account_keys).toEqual([sender.publicKey.toBase58(), recipient.toBase58(), SystemProgram.programId.toBase58()]);
    expect(decoded.policy.recent_blockhash).toBe(BLOCKHASH);
    expect(decoded.policy.address_table_lookups).toEqual([]);
    const [instruction] = decoded.policy.instructions;
    expect(instruction?.program_key).toBe(SystemProgram.programId.toBase58());
    expect(instruction?.accounts).toEqual([
      { account_key: sender.publicKey.toBase58(), signer: true, writable: true },
      { account_key: recipient.toBase58(), signer: false, writable: true },
    ]);
    // System Transfer: u32 discriminator 2, then u64 lamports, little-endian.
    expect(instruction?.instruction_data_hex).toBe('0200000060e3160000000000');
    expect(instruction?.parsed_instruction_data).toBeUndefined();
    expect(decoded.knownInstructions).toEqual([
      {
        index: 0,
        program: 'System',
        instruction: 'TransferSol',
        accounts: { source: sender.publicKey.toBase58(), destination: recipient.toBase58() },
        args: { amount: 1_500_000n },
      },
    ]);
  });

  it('reads a v0 transfer whose extra accounts come from a lookup table, leaving them unresolved', () => {
    const tableKey = keypair(9).publicKey;
    const loadedWritable = keypair(10).publicKey;
    const loadedReadonly = keypair(11).publicKey;
    const table = new AddressLookupTableAccount({
      key: tableKey,
      state: {
        deactivationSlot: BigInt('18446744073709551615'),
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [loadedWritable, loadedReadonly],
      },
    });
    const custom = new TransactionInstruction({
      programId: keypair(12).publicKey,
      keys: [
        { pubkey: loadedWritable, isSigner: false, isWritable: true },
        { pubkey: loadedReadonly, isSigner: false, isWritable: false },
      ],
      data: Buffer.from([7]),
    });
    const message = new TransactionMessage({
      payerKey: sender.publicKey,
      recentBlockhash: BLOCKHASH,
      instructions: [
        SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: recipient, lamports: 42 }),
        custom,
        SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: loadedWritable, lamports: 5 }),
      ],
    }).compileToV0Message([table]);
    const decoded = decodeSolanaTransaction(unsignedBytes(new VersionedTransaction(message)));

    expect(decoded.version).toBe(0);
    // A recipient loaded from the table cannot be named offline: it reads as table#index, never as an address.
    expect(decoded.policy.transfers).toEqual([
      { from: sender.publicKey.toBase58(), to: recipient.toBase58(), amount: 42n },
      { from: sender.publicKey.toBase58(), to: `${tableKey.toBase58()}#0`, amount: 5n },
    ]);
    expect(decoded.policy.address_table_lookups).toEqual([
      { address_table_key: tableKey.toBase58(), writable_indexes: [0n], readonly_indexes: [1n] },
    ]);
    const customInstruction = decoded.policy.instructions[1];
    expect(customInstruction?.accounts).toEqual([]);
    expect(customInstruction?.address_table_lookups).toEqual([
      { address_table_key: tableKey.toBase58(), index: 0n, writable: true },
      { address_table_key: tableKey.toBase58(), index: 1n, writable: false },
    ]);
    expect(decoded.policy.account_keys).not.toContain(loadedWritable.toBase58());
  });
});

describe('signSolanaTransaction', () => {
  const sender = keypair(1);
  const recipient = keypair(2).publicKey;

  it('signs a legacy transfer that web3.js verifies', () => {
    const signed = signSolanaTransaction(unsignedBytes(legacyTransfer(sender, recipient, 5000)), sender.publicKey.toBase58(), signerFor(sender));
    const transaction = Transaction.from(signed);
    expect(transaction.verifySignatures()).toBe(true);
    expect(transaction.instructions[0]?.programId.equals(SystemProgram.programId)).toBe(true);
  });

  it('signs a v0 transfer whose signature verifies over the message', () => {
    const message = new TransactionMessage({
      payerKey: sender.publicKey,
      recentBlockhash: BLOCKHASH,
      instructions: [SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: recipient, lamports: 9 })],
    }).compileToV0Message();
    const signed = VersionedTransaction.deserialize(
      signSolanaTransaction(unsignedBytes(new VersionedTransaction(message)), sender.publicKey.toBase58(), signerFor(sender)),
    );
    expect(signed.message.serialize()).toEqual(message.serialize());
    expect(ed25519.verify(signed.signatures[0]!, signed.message.serialize(), sender.publicKey.toBytes())).toBe(true);
  });

  it('signs a bare message, leaving empty slots for the other signers', () => {
    const message = legacyTransfer(sender, recipient, 77).serializeMessage();
    const signed = Transaction.from(signSolanaTransaction(new Uint8Array(message), sender.publicKey.toBase58(), signerFor(sender)));
    expect(signed.verifySignatures()).toBe(true);
    expect(new Uint8Array(signed.serializeMessage())).toEqual(new Uint8Array(message));
  });

  it('fills only its own slot of a two-signer transaction', () => {
    const feePayer = keypair(3);
    const transaction = legacyTransfer(sender, recipient, 1234);
    transaction.feePayer = feePayer.publicKey;
    transaction.partialSign(feePayer);
    const unsigned = unsignedBytes(transaction);
    const signed = signSolanaTransaction(unsigned, sender.publicKey.toBase58(), signerFor(sender));

    // Slot 0 (the fee payer's) and the message are untouched; slot 1 is ours.
    expect(signed.length).toBe(unsigned.length);
    expect(signed.subarray(1, 65)).toEqual(unsigned.subarray(1, 65));
    expect(signed.subarray(129)).toEqual(unsigned.subarray(129));
    expect(unsigned.subarray(65, 129).every((byte) => byte === 0)).toBe(true);
    expect(Transaction.from(signed).verifySignatures()).toBe(true);

    const decoded = decodeSolanaTransaction(unsigned);
    expect(decoded.requiredSigners).toEqual([feePayer.publicKey.toBase58(), sender.publicKey.toBase58()]);
  });

  it('refuses a key that is not a required signer, naming the signers', () => {
    const stranger = keypair(4);
    let called = false;
    expectQkError(
      () =>
        signSolanaTransaction(unsignedBytes(legacyTransfer(sender, recipient, 1)), stranger.publicKey.toBase58(), () => {
          called = true;
          return new Uint8Array(64);
        }),
      'REQUEST_INVALID',
      new RegExp(`${stranger.publicKey.toBase58()} is not a required signer.*${sender.publicKey.toBase58()}`),
    );
    expect(called).toBe(false);
  });
});

describe("@turnkey/solana's TurnkeySigner.signTransaction against the signer", () => {
  const sender = keypair(1);
  const recipient = keypair(2).publicKey;
  // Stands in for the service's SIGN_TRANSACTION: the hex it receives goes through the real signer.
  const client = {
    signTransaction: ({ signWith, unsignedTransaction, type }: Record<string, string>) => {
      expect(type).toBe('TRANSACTION_TYPE_SOLANA');
      const signed = signSolanaTransaction(hexToBytes(unsignedTransaction!, 'unsignedTransaction'), signWith!, signerFor(sender));
      return Promise.resolve({
        activity: { id: 'activity', status: 'ACTIVITY_STATUS_COMPLETED' },
        signedTransaction: bytesToHex(signed),
      });
    },
  };
  const signer = new TurnkeySigner({ organizationId: 'organization', client: client as never });

  it('returns a legacy transaction web3.js verifies', async () => {
    const signed = await signer.signTransaction(legacyTransfer(sender, recipient, 10), sender.publicKey.toBase58());
    expect((signed as Transaction).verifySignatures()).toBe(true);
  });

  it('returns a v0 transaction whose signature verifies', async () => {
    const message = new TransactionMessage({
      payerKey: sender.publicKey,
      recentBlockhash: BLOCKHASH,
      instructions: [SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: recipient, lamports: 11 })],
    }).compileToV0Message();
    const signed = (await signer.signTransaction(new VersionedTransaction(message), sender.publicKey.toBase58())) as VersionedTransaction;
    expect(ed25519.verify(signed.signatures[0]!, signed.message.serialize(), sender.publicKey.toBytes())).toBe(true);
  });
});

describe('decodeSolanaTransaction: SPL token transfers (kit + @solana-program/token)', () => {
  const owner = createNoopSigner('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin' as Address);
  const source = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T' as Address;
  const destination = '8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh' as Address;
  const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as Address;
  const recipientWallet = keypair(5).publicKey.toBase58() as Address;
  const multisig = keypair(6).publicKey.toBase58() as Address;
  const coSigner = createNoopSigner(keypair(7).publicKey.toBase58() as Address);

  function build(...instructions: Parameters<typeof appendTransactionMessageInstructions>[0]): Uint8Array {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(owner.address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH as Blockhash, lastValidBlockHeight: 0n }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
      (m) => addSignersToTransactionMessage([owner, coSigner], m),
    );
    return new Uint8Array(getTransactionEncoder().encode(compileTransaction(message)));
  }

  it('reads Transfer (multisig owner) and TransferChecked (Token-2022) into spl_transfers', () => {
    const bytes = build(
      getSetComputeUnitLimitInstruction({ units: 200_000 }),
      getCreateAssociatedTokenIdempotentInstruction({ payer: owner, ata: destination, owner: recipientWallet, mint }),
      getTransferInstruction({ source, destination, authority: multisig, amount: 1_000n, multiSigners: [owner, coSigner] }),
      getTransferCheckedInstruction(
        { source, mint, destination, authority: owner, amount: 2_500_000n, decimals: 6 },
        { programAddress: TOKEN_2022_PROGRAM_ADDRESS as Address },
      ),
    );
    const decoded = decodeSolanaTransaction(bytes);
    expect(decoded.policy.spl_transfers).toEqual([
      { from: source, to: destination, amount: 1_000n, owner: multisig, signers: [owner.address, coSigner.address] },
      { from: source, to: destination, amount: 2_500_000n, owner: owner.address, signers: [], token_mint: mint },
    ]);
    expect(decoded.policy.transfers).toEqual([]);
    expect(decoded.knownInstructions.map(({ program, instruction }) => `${program}:${instruction}`)).toEqual([
      'Compute Budget:SetComputeUnitLimit',
      'Associated Token:CreateAssociatedTokenIdempotent',
      'Token:Transfer',
      'Token-2022:TransferChecked',
    ]);
    expect(decoded.knownInstructions[0]?.args).toEqual({ units: 200_000n });
    expect(decoded.knownInstructions[1]?.accounts).toMatchObject({ ata: destination, owner: recipientWallet, mint });
  });
});

describe('decodeSolanaTransaction: an instruction decoded with an uploaded Anchor IDL', () => {
  const user = keypair(22);

  function depositTransaction(data: Uint8Array): Uint8Array {
    const transaction = new Transaction({ feePayer: user.publicKey, recentBlockhash: BLOCKHASH }).add(depositInstruction(user.publicKey, data));
    return unsignedBytes(transaction);
  }

  const recipient = keypair(23).publicKey.toBase58() as Address;
  const data = depositData({
    amount: 123_456_789n,
    memo: 'rent',
    recipient,
    hops: [[1, 2], [3]],
    limit: none(),
    route: { pool: 4, bump: some(255) },
  });

  it('fills parsed_instruction_data for the program the IDL names', () => {
    const decoded = decodeSolanaTransaction(depositTransaction(data), [{ address: VAULT_PROGRAM.toBase58(), idl: VAULT_IDL }]);
    expect(decoded.policy.instructions[0]?.parsed_instruction_data).toEqual({
      instruction_name: 'deposit',
      discriminator: Buffer.from(DEPOSIT_DISCRIMINATOR).toString('hex'),
      named_accounts: { vault: VAULT_ACCOUNT.toBase58(), user: user.publicKey.toBase58() },
      // Integers are bigints, nested lists stay nested, None is absent and Some is its value.
      program_call_args: {
        amount: 123_456_789n,
        memo: 'rent',
        recipient,
        hops: [[1n, 2n], [3n]],
        route: { pool: 4n, bump: 255n },
      },
    });
  });

  it('leaves it absent without an IDL for that program, or when the data does not fit', () => {
    expect(decodeSolanaTransaction(depositTransaction(data)).policy.instructions[0]?.parsed_instruction_data).toBeUndefined();
    const otherProgram = [{ address: keypair(30).publicKey.toBase58(), idl: VAULT_IDL }];
    expect(decodeSolanaTransaction(depositTransaction(data), otherProgram).policy.instructions[0]?.parsed_instruction_data).toBeUndefined();
    const truncated = data.subarray(0, 12);
    expect(
      decodeSolanaTransaction(depositTransaction(truncated), [{ address: VAULT_PROGRAM.toBase58(), idl: VAULT_IDL }]).policy.instructions[0]
        ?.parsed_instruction_data,
    ).toBeUndefined();
  });

  it('reports an IDL it cannot read', () => {
    expectQkError(
      () => decodeSolanaTransaction(depositTransaction(data), [{ address: VAULT_PROGRAM.toBase58(), idl: { nonsense: true } }]),
      'REQUEST_INVALID',
      new RegExp(`IDL uploaded for program ${VAULT_PROGRAM.toBase58()} cannot be read`),
    );
  });
});

function withBytes(original: Uint8Array, offset: number, replacement: ArrayLike<number>): Uint8Array {
  const copy = original.slice();
  copy.set(replacement, offset);
  return copy;
}

describe('bad Solana input', () => {
  const sender = keypair(1);
  const bytes = unsignedBytes(legacyTransfer(sender, keypair(2).publicKey, 10));

  it.each([
    ['empty', new Uint8Array(0), /empty/],
    ['truncated', bytes.subarray(0, bytes.length - 5), /not a Solana transaction .*nor a bare Solana message/],
    ['garbage', new Uint8Array(80).fill(0xff), /not a Solana transaction .*nor a bare Solana message/],
    ['trailing bytes', new Uint8Array([...bytes, 1, 2, 3]), /unexpected bytes after its end/],
    // Layout: 1 slot count, 64 slot bytes, 3 header bytes, 1 account count, then the 32-byte account keys.
    ['an account listed twice', withBytes(bytes, 101, bytes.subarray(69, 101)), /lists account \w+ twice/],
    ['a header naming more signers than slots', withBytes(bytes, 65, [2]), /expected the transaction to have 2 signatures/],
    ['a bare message naming more signers than accounts', withBytes(bytes.subarray(65), 0, [9]), /header does not fit/],
  ])('refuses %s input with ENCODING_INVALID', (_label, input, message) => {
    expectQkError(() => decodeSolanaTransaction(input), 'ENCODING_INVALID', message);
    expectQkError(() => signSolanaTransaction(input, sender.publicKey.toBase58(), signerFor(sender)), 'ENCODING_INVALID', message);
  });
});
