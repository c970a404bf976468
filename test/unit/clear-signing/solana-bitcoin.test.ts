import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getTransactionEncoder,
  none,
  pipe,
  some,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import { getApproveInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { NETWORK, p2wpkh, TEST_NETWORK, Transaction as BitcoinTransaction } from '@scure/btc-signer';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../../../src/shared/crypto/encoding.js';
import {
  describeSigningActivity,
  describeSigningRequest,
  type BitcoinTransactionDetails,
  type ClearSigningContext,
  type SolanaTransactionDetails,
} from '../../../src/shared/clear-signing/index.js';
import { QkError } from '../../../src/shared/errors.js';
import { depositData, depositInstruction, VAULT_ACCOUNT, VAULT_IDL, VAULT_PROGRAM } from '../../support/vault-idl.js';

const BLOCKHASH = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

const payer = Keypair.fromSeed(new Uint8Array(32).fill(1));
const recipient = Keypair.fromSeed(new Uint8Array(32).fill(2)).publicKey;
const PAYER = payer.publicKey.toBase58();

const solanaContext: ClearSigningContext = {
  privateKeys: [
    { privateKeyId: 'pk-sol', privateKeyName: 'Solana hot key', addresses: [{ address: PAYER, addressFormat: 'ADDRESS_FORMAT_SOLANA' }] },
  ],
  knownRecipients: [],
};

function signSolana(bytes: Uint8Array, context: ClearSigningContext = solanaContext) {
  return describeSigningRequest(
    { operation: 'sign_transaction', parameters: { signWith: PAYER, unsignedTransaction: bytesToHex(bytes), type: 'TRANSACTION_TYPE_SOLANA' } },
    context,
  );
}

describe('clear signing: Solana', () => {
  it('reads a SOL transfer: System program, amount in SOL, fee payer, new recipient, threshold', () => {
    const transaction = new Transaction({ feePayer: payer.publicKey, recentBlockhash: BLOCKHASH }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 1_500_000_000 }),
    );
    const description = signSolana(transaction.serialize({ requireAllSignatures: false, verifySignatures: false }), {
      ...solanaContext,
      thresholds: { solanaLamports: 1_000_000_000n },
    });
    const solana = description.details as SolanaTransactionDetails;
    expect(description.title).toBe('Sign a Solana transaction');
    expect(description.network).toEqual({ family: 'solana', name: 'Solana' });
    expect(description.signer).toMatchObject({ kind: 'private key', privateKeyName: 'Solana hot key', text: 'Solana hot key' });
    expect(description.summary).toBe(`Transfer 1.5 SOL from Solana hot key to ${recipient.toBase58()} on Solana`);
    expect(solana.feePayer).toEqual({ address: PAYER, label: 'Solana hot key', role: 'own address' });
    expect(solana.signers.map((signer) => signer.address)).toEqual([PAYER]);
    expect(solana.recentBlockhash).toBe(BLOCKHASH);
    expect(solana.instructions).toHaveLength(1);
    expect(solana.instructions[0]).toMatchObject({
      programName: 'System',
      instruction: 'TransferSol',
      program: { address: '11111111111111111111111111111111', label: 'System', role: 'contract' },
      accounts: [
        { name: 'source', address: { address: PAYER, label: 'Solana hot key', role: 'own address' } },
        { name: 'destination', address: { address: recipient.toBase58(), role: 'address' } },
      ],
    });
    expect(solana.instructions[0]!.args).toEqual([
      { name: 'amount', text: '1.5 SOL', raw: '1500000000', amount: expect.objectContaining({ raw: 1_500_000_000n, unit: 'SOL' }) },
    ]);
    expect(solana.transfers).toEqual([
      {
        from: { address: PAYER, label: 'Solana hot key', role: 'own address' },
        to: { address: recipient.toBase58(), role: 'address' },
        amount: { raw: 1_500_000_000n, formatted: '1.5', unit: 'SOL', text: '1.5 SOL', rawUnit: 'lamports' },
      },
    ]);
    expect(description.warnings.map((warning) => warning.kind)).toEqual(['NEW_RECIPIENT', 'VALUE_ABOVE_THRESHOLD']);
    expect(description.warnings[1]!.message).toBe('This sends 1.5 SOL, above the 1 SOL threshold set in Settings.');
  });

  it('warns once per new recipient and adds up every transfer against the threshold', () => {
    const transaction = new Transaction({ feePayer: payer.publicKey, recentBlockhash: BLOCKHASH }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 600_000_000 }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 600_000_000 }),
    );
    const description = signSolana(transaction.serialize({ requireAllSignatures: false, verifySignatures: false }), {
      ...solanaContext,
      thresholds: { solanaLamports: 1_000_000_000n },
    });
    expect((description.details as SolanaTransactionDetails).transfers).toHaveLength(2);
    expect(description.summary).toBe('2 Solana instructions: TransferSol, TransferSol');
    expect(description.warnings.map((warning) => [warning.kind, warning.subject])).toEqual([
      ['NEW_RECIPIENT', recipient.toBase58()],
      ['VALUE_ABOVE_THRESHOLD', '1200000000'],
    ]);
  });

  it('reads an SPL TransferChecked in USDC, the Compute Budget, and an unknown program', () => {
    const owner = createNoopSigner(PAYER as Address);
    const source = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T' as Address;
    const destination = '8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh' as Address;
    const memoLike = new TransactionInstruction({
      programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
      keys: [],
      data: Buffer.from('hi'),
    });
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(owner.address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH as Blockhash, lastValidBlockHeight: 0n }, m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getSetComputeUnitLimitInstruction({ units: 200_000 }),
            getTransferCheckedInstruction({ source, mint: USDC_MINT as Address, destination, authority: owner, amount: 2_500_000n, decimals: 6 }),
            { programAddress: memoLike.programId.toBase58() as Address, accounts: [], data: new Uint8Array(memoLike.data) },
          ],
          m,
        ),
    );
    const bytes = new Uint8Array(getTransactionEncoder().encode(compileTransaction(message)));
    const description = signSolana(bytes, { ...solanaContext, knownRecipients: [destination] });
    const solana = description.details as SolanaTransactionDetails;

    expect(solana.version).toBe(0);
    expect(solana.instructions.map((instruction) => [instruction.programName, instruction.instruction ?? null])).toEqual([
      ['Compute Budget', 'SetComputeUnitLimit'],
      ['SPL Token', 'TransferChecked'],
      ['Unknown program', null],
    ]);
    expect(solana.instructions[0]!.summary).toBe('Compute Budget: SetComputeUnitLimit (units 200000)');
    expect(solana.instructions[1]!.program.address).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(solana.instructions[1]!.summary).toBe(`Transfer 2.5 USDC from ${source} to ${destination}`);
    expect(solana.instructions[2]!.summary).toBe('Unknown program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr: 2 bytes of data');
    expect(solana.tokenTransfers).toEqual([
      {
        from: { address: source, role: 'address' },
        to: { address: destination, role: 'address' },
        amount: {
          raw: 2_500_000n,
          formatted: '2.5',
          unit: 'USDC',
          text: '2.5 USDC',
          rawUnit: 'raw units (6 decimals)',
          source: 'decimals stated by the instruction; symbol from the known token list',
        },
        mint: { address: USDC_MINT, label: 'USDC', role: 'token' },
        owner: { address: PAYER, label: 'Solana hot key', role: 'own address' },
      },
    ]);
    expect(description.summary).toBe('3 Solana instructions: TransferChecked, Unknown program');
    expect(description.warnings).toEqual([
      {
        kind: 'UNKNOWN_CONTRACT',
        message:
          'No IDL is uploaded for program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr: instruction 2 cannot be read. Upload its IDL, or check the instruction another way before you approve.',
        subject: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
      },
    ]);
  });

  it('warns about an SPL Approve of the largest u64', () => {
    const owner = createNoopSigner(PAYER as Address);
    const source = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T' as Address;
    const delegate = '8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh' as Address;
    const approve = (amount: bigint) => {
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(owner.address, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH as Blockhash, lastValidBlockHeight: 0n }, m),
        (m) => appendTransactionMessageInstructions([getApproveInstruction({ source, delegate, owner, amount })], m),
      );
      return signSolana(new Uint8Array(getTransactionEncoder().encode(compileTransaction(message))));
    };
    const unlimited = approve(2n ** 64n - 1n);
    expect(unlimited.summary).toBe(`Approve ${delegate} to spend an unlimited amount from ${source} on Solana`);
    expect(unlimited.warnings).toEqual([
      {
        kind: 'UNLIMITED_APPROVAL',
        message: `This approves ${delegate} to spend an unlimited amount from token account ${source}.`,
        subject: delegate,
      },
    ]);
    const bounded = approve(1_000n);
    expect(bounded.summary).toBe(`Approve ${delegate} to spend 1000 raw units from ${source} on Solana`);
    expect(bounded.warnings).toEqual([]);
  });

  it('names an instruction by the uploaded IDL: program, instruction, accounts, arguments', () => {
    const data = depositData({
      amount: 123_456_789n,
      memo: 'rent',
      recipient: recipient.toBase58() as Address,
      hops: [[1, 2], [3]],
      limit: none(),
      route: { pool: 4, bump: some(255) },
    });
    const transaction = new Transaction({ feePayer: payer.publicKey, recentBlockhash: BLOCKHASH }).add(depositInstruction(payer.publicKey, data));
    const description = signSolana(transaction.serialize({ requireAllSignatures: false, verifySignatures: false }), {
      ...solanaContext,
      contracts: [{ address: VAULT_PROGRAM.toBase58(), type: 'SOLANA', label: 'Team vault', definition: VAULT_IDL }],
    });
    const [instruction] = (description.details as SolanaTransactionDetails).instructions;
    expect(instruction).toMatchObject({
      program: { address: VAULT_PROGRAM.toBase58(), label: 'Team vault', role: 'contract' },
      programName: 'vault',
      instruction: 'deposit',
      summary: 'vault: deposit',
      accounts: [
        { name: 'vault', address: { address: VAULT_ACCOUNT.toBase58(), role: 'address' } },
        { name: 'user', address: { address: PAYER, label: 'Solana hot key', role: 'own address' } },
      ],
      // Lists and structs nest; a None argument (limit) is left out, a Some is its value.
      args: [
        { name: 'amount', text: '123456789' },
        { name: 'memo', text: 'rent' },
        { name: 'recipient', text: recipient.toBase58() },
        {
          name: 'hops',
          text: '2 items',
          children: [
            {
              name: '[0]',
              text: '2 items',
              children: [
                { name: '[0]', text: '1' },
                { name: '[1]', text: '2' },
              ],
            },
            { name: '[1]', text: '1 item', children: [{ name: '[0]', text: '3' }] },
          ],
        },
        {
          name: 'route',
          text: '',
          children: [
            { name: 'pool', text: '4' },
            { name: 'bump', text: '255' },
          ],
        },
      ],
    });
    expect(description.summary).toBe('vault: deposit on Solana');
    expect(description.warnings).toEqual([]);
  });

  it("refuses bytes that are not a Solana transaction, with the decoder's reason", () => {
    expect(() => signSolana(new Uint8Array([1, 2, 3]))).toThrow(QkError);
    expect(() => signSolana(new Uint8Array([1, 2, 3]))).toThrow(/not a Solana transaction/);
  });
});

// Keys derived from fixed secrets: the addresses are those of BIP-84's P2WPKH rule.
const ourKey = secp256k1.getPublicKey(new Uint8Array(32).fill(3), true);
const theirKey = secp256k1.getPublicKey(new Uint8Array(32).fill(4), true);

function twoOutputPsbt(network: typeof NETWORK): { psbt: string; ours: string; theirs: string } {
  const ours = p2wpkh(ourKey, network);
  const theirs = p2wpkh(theirKey, network);
  const transaction = new BitcoinTransaction();
  transaction.addInput({ txid: 'f'.repeat(63) + '1', index: 0, witnessUtxo: { script: ours.script, amount: 100_000n } });
  transaction.addOutputAddress(theirs.address, 60_000n, network);
  transaction.addOutputAddress(ours.address, 39_000n, network);
  return { psbt: bytesToHex(transaction.toPSBT()), ours: ours.address, theirs: theirs.address };
}

describe('clear signing: Bitcoin', () => {
  it('reads a two-output PSBT: the payment, the change marked, the fee', () => {
    const { psbt, ours, theirs } = twoOutputPsbt(NETWORK);
    const description = describeSigningRequest(
      { operation: 'sign_transaction', parameters: { signWith: ours, unsignedTransaction: psbt, type: 'TRANSACTION_TYPE_BITCOIN' } },
      { wallets: [{ walletId: 'w', walletName: 'Cold BTC', accounts: [{ address: ours, path: "m/84'/0'/0'/0/0" }] }], knownRecipients: [theirs] },
    );
    const bitcoin = description.details as BitcoinTransactionDetails;
    expect(description.title).toBe('Sign a Bitcoin transaction');
    expect(description.network).toEqual({ family: 'bitcoin', name: 'Bitcoin mainnet', testnet: false });
    expect(ours.startsWith('bc1q')).toBe(true);
    expect(bitcoin.inputs).toEqual([
      {
        txId: 'f'.repeat(63) + '1',
        vout: 0,
        sequence: 0xffffffff,
        address: { address: ours, label: "Cold BTC / m/84'/0'/0'/0/0", role: 'own address' },
        amount: { raw: 100_000n, formatted: '0.001', unit: 'BTC', text: '0.001 BTC', rawUnit: 'sat' },
      },
    ]);
    expect(bitcoin.outputs.map((output) => [output.address?.address, output.addressType, output.amount.text, output.change])).toEqual([
      [theirs, 'P2WPKH', '0.0006 BTC', false],
      [ours, 'P2WPKH', '0.00039 BTC', true],
    ]);
    expect(bitcoin.fee?.text).toBe('0.00001 BTC');
    expect(bitcoin.sent.text).toBe('0.0006 BTC');
    expect(description.summary).toBe(`Send 0.0006 BTC to ${theirs}`);
    expect(description.warnings).toEqual([]);
  });

  it("names testnet from the signing address and marks change from the organization's other addresses", () => {
    const { psbt, ours, theirs } = twoOutputPsbt(TEST_NETWORK);
    const keyAddress = p2wpkh(secp256k1.getPublicKey(new Uint8Array(32).fill(5), true), TEST_NETWORK).address;
    const description = describeSigningActivity(
      {
        type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
        intent: { signTransactionIntentV2: { signWith: 'pk-btc', unsignedTransaction: psbt, type: 'TRANSACTION_TYPE_BITCOIN' } },
      },
      {
        // As the service decides: the key's first Bitcoin address format names the network. The key's own address is
        // another one: the change output is ours by the organization's address list.
        privateKeys: [
          {
            privateKeyId: 'pk-btc',
            privateKeyName: 'Test key',
            addresses: [
              { address: '0x0000000000000000000000000000000000000001', addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
              { address: keyAddress, addressFormat: 'ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH' },
            ],
          },
        ],
        ownBitcoinAddresses: [ours],
        thresholds: { bitcoinSatoshis: 50_000n },
        knownRecipients: [],
      },
    );
    const bitcoin = description.details as BitcoinTransactionDetails;
    expect(description.network.name).toBe('Bitcoin testnet');
    expect(description.signer.text).toBe('Test key');
    expect(bitcoin.outputs.map((output) => output.change)).toEqual([false, true]);
    expect(bitcoin.outputs[0]!.address?.address).toBe(theirs);
    expect(bitcoin.outputs[1]!.address).toEqual({ address: ours, role: 'own address' });
    expect(description.warnings.map((warning) => warning.kind)).toEqual(['NEW_RECIPIENT', 'VALUE_ABOVE_THRESHOLD']);
  });
});
