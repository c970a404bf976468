/**
 * Look-alike (poisoned) addresses: an address sharing the first and last 4 characters of a known one, without being
 * it, is flagged; the organization's own addresses and random addresses are not. Random values come from a seeded
 * generator, so a failure reproduces.
 */
import { getAddressDecoder, isAddress as isSolanaAddress } from '@solana/kit';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { encodeFunctionData, erc20Abi, getAddress, serializeTransaction, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../../../src/shared/crypto/encoding.js';
import { describeSigningRequest, flatFacts, signingFacts, type ClearSigningContext } from '../../../src/shared/clear-signing/index.js';
import { bracketed, knownAddressesOf, lookAlikeOf } from '../../../src/shared/clear-signing/look-alike.js';
import { MAIL } from '../../support/eip712-mail.js';
import { prng } from '../../support/random.js';

const random = prng(0x10_0a_11_4e);
const randomBytes = (length: number) => Uint8Array.from({ length }, () => Math.floor(random() * 256));
const randomEthereumAddress = () => getAddress(toHex(randomBytes(20)));
const solanaAddressOf = getAddressDecoder();
const randomSolanaAddress = () => solanaAddressOf.decode(randomBytes(32));
const HEX = '0123456789abcdef';
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const pick = (alphabet: string) => alphabet[Math.floor(random() * alphabet.length)]!;

const SIGNER = randomEthereumAddress();
const SOLANA_PAYER = Keypair.fromSeed(new Uint8Array(32).fill(7));
const ethereumOwn = Array.from({ length: 6 }, randomEthereumAddress);
const solanaOwn = Array.from({ length: 6 }, randomSolanaAddress);
const PAYROLL = randomEthereumAddress();
const DESK = randomSolanaAddress();
const PAST_RECIPIENT = randomEthereumAddress();
const VAULT = randomEthereumAddress();

const context: ClearSigningContext = {
  wallets: [
    {
      walletId: 'w1',
      walletName: 'Treasury',
      accounts: [
        { address: SIGNER, path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
        ...ethereumOwn.map((address, index) => ({ address, path: `m/44'/60'/0'/0/${index + 1}`, addressFormat: 'ADDRESS_FORMAT_ETHEREUM' })),
        ...solanaOwn.map((address, index) => ({ address, path: `m/44'/501'/${index}'/0'`, addressFormat: 'ADDRESS_FORMAT_SOLANA' })),
      ],
    },
  ],
  privateKeys: [
    {
      privateKeyId: 'pk-1',
      privateKeyName: 'Solana hot key',
      addresses: [{ address: SOLANA_PAYER.publicKey.toBase58(), addressFormat: 'ADDRESS_FORMAT_SOLANA' }],
    },
  ],
  contracts: [{ address: VAULT, type: 'ETHEREUM', label: 'Vault', definition: erc20Abi, chainId: 1 }],
  addressBook: [
    { family: 'ethereum', chainId: 1, address: PAYROLL, name: 'Payroll' },
    { family: 'solana', address: DESK, name: 'OTC desk' },
  ],
  knownRecipients: [PAST_RECIPIENT],
};

/** `known` with everything but its first and last 4 characters (after 0x) drawn at random; Ethereum's case too. */
function poisoned(known: string): string {
  if (known.startsWith('0x')) {
    for (;;) {
      const middle = Array.from({ length: 32 }, () => pick(HEX)).join('');
      const mixedCase = [...middle].map((character) => (random() < 0.5 ? character.toUpperCase() : character)).join('');
      const candidate = `0x${known.slice(2, 6)}${mixedCase}${known.slice(-4)}`;
      if (candidate.toLowerCase() !== known.toLowerCase()) return candidate;
    }
  }
  for (;;) {
    const middle = Array.from({ length: known.length - 8 }, () => pick(BASE58)).join('');
    const candidate = `${known.slice(0, 4)}${middle}${known.slice(-4)}`;
    // Base58 of 32 bytes: not every string of that length decodes to exactly 32.
    if (candidate !== known && isSolanaAddress(candidate)) return candidate;
  }
}

const known = knownAddressesOf(context);
const ownAddresses = [SIGNER, ...ethereumOwn, ...solanaOwn, SOLANA_PAYER.publicKey.toBase58()];

describe('look-alike addresses', () => {
  it('flags 200 poisoned addresses of known ones, naming the one each imitates', () => {
    const targets = [SIGNER, ...ethereumOwn, ...solanaOwn, PAYROLL, DESK, PAST_RECIPIENT, VAULT, SOLANA_PAYER.publicKey.toBase58()];
    const flagged = Array.from({ length: 200 }, (_, index) => {
      const target = targets[index % targets.length]!;
      const address = poisoned(target);
      return { target, address, lookAlike: lookAlikeOf(address, known) };
    });
    expect(flagged.filter(({ lookAlike }) => lookAlike === undefined)).toEqual([]);
    for (const { target, address, lookAlike } of flagged) {
      expect(lookAlike?.address).toBe(address);
      expect(lookAlike?.known.address).toBe(target);
    }
    expect(flagged.filter(({ target }) => !target.startsWith('0x')).length).toBeGreaterThan(50);
  });

  it('flags none of the organization’s own addresses nor any of 1,000 random ones', () => {
    expect(ownAddresses.filter((address) => lookAlikeOf(address, known) !== undefined)).toEqual([]);
    // Ethereum compares without letter case: the same address in lower case is the same address.
    expect(lookAlikeOf(SIGNER.toLowerCase(), known)).toBeUndefined();
    const randomAddresses = Array.from({ length: 1_000 }, (_, index) => (index % 2 === 0 ? randomEthereumAddress() : randomSolanaAddress()));
    expect(randomAddresses.filter((address) => lookAlikeOf(address, known) !== undefined)).toEqual([]);
  });

  it('compares Solana addresses exactly: another letter case at the ends is another address, not a look-alike', () => {
    for (;;) {
      const target = randomSolanaAddress();
      const first = target[0]!;
      const other = first === first.toLowerCase() ? first.toUpperCase() : first.toLowerCase();
      if (other === first || !BASE58.includes(other)) continue;
      const fake = poisoned(target);
      const otherCase = other + fake.slice(1);
      if (!isSolanaAddress(otherCase)) continue;
      const only = [{ family: 'solana' as const, address: target, name: 'Target' }];
      expect(lookAlikeOf(fake, only)?.known.name).toBe('Target');
      expect(lookAlikeOf(otherCase, only)).toBeUndefined();
      return;
    }
  });

  it('marks exactly the characters that differ, in both addresses', () => {
    const one = `${PAYROLL.slice(0, 20)}${PAYROLL[20] === 'a' ? 'b' : 'a'}${PAYROLL.slice(21)}`;
    const lookAlike = lookAlikeOf(one, known);
    expect(lookAlike).toMatchObject({ known: { address: PAYROLL, name: 'Payroll' } });
    expect(lookAlike?.addressDiffers).toEqual([{ start: 20, end: 21 }]);
    expect(lookAlike?.knownDiffers).toEqual([{ start: 20, end: 21 }]);
    expect(bracketed(one, lookAlike!.addressDiffers)).toBe(`${one.slice(0, 20)}[${one[20]}]${one.slice(21)}`);
    // Different letter case only is no difference for Ethereum.
    const caseOnly = `${PAYROLL.slice(0, 10)}${PAYROLL.slice(10, 30).toLowerCase() === PAYROLL.slice(10, 30) ? PAYROLL.slice(10, 30).toUpperCase() : PAYROLL.slice(10, 30).toLowerCase()}${PAYROLL.slice(30)}`;
    expect(lookAlikeOf(caseOnly, known)).toBeUndefined();
  });

  it('marks the stretch between the common ends when Solana addresses differ in length', () => {
    const target = DESK;
    let candidate = '';
    for (let length = target.length - 1; length >= 32 && candidate === ''; length -= 1) {
      for (let attempt = 0; attempt < 500; attempt += 1) {
        const middle = Array.from({ length: length - 8 }, () => pick(BASE58)).join('');
        const tried = `${target.slice(0, 4)}${middle}${target.slice(-4)}`;
        if (isSolanaAddress(tried)) {
          candidate = tried;
          break;
        }
      }
    }
    expect(candidate).not.toBe('');
    const lookAlike = lookAlikeOf(candidate, known)!;
    const [range] = lookAlike.addressDiffers;
    const [knownRange] = lookAlike.knownDiffers;
    expect(candidate.slice(0, range!.start)).toBe(target.slice(0, knownRange!.start));
    expect(candidate.slice(range!.end)).toBe(target.slice(knownRange!.end));
    expect(range!.start).toBeGreaterThanOrEqual(4);
  });
});

describe('look-alike addresses in requests', () => {
  const fees = { chainId: 1, nonce: 1, gas: 60_000n, maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n } as const;
  const signEthereum = (to: `0x${string}`, data?: `0x${string}`, chainId = 1) =>
    describeSigningRequest(
      {
        operation: 'sign_transaction',
        parameters: {
          signWith: SIGNER,
          unsignedTransaction: serializeTransaction({ type: 'eip1559', to, ...(data === undefined ? {} : { data }), ...fees, chainId }),
          type: 'TRANSACTION_TYPE_ETHEREUM',
        },
      },
      context,
    );

  it('flags a transfer to a look-alike of an address book entry: critical, first, both named with brackets', () => {
    const fake = getAddress(poisoned(PAYROLL));
    const description = signEthereum(fake);
    const [first] = description.warnings;
    expect(first).toMatchObject({ kind: 'LOOK_ALIKE_ADDRESS', severity: 'critical', subject: fake });
    expect(first?.lookAlike).toMatchObject({ address: fake, known: { address: PAYROLL, name: 'Payroll' } });
    expect(first?.message).toContain(
      `${bracketed(fake, first!.lookAlike!.addressDiffers)} is not “Payroll” (${bracketed(PAYROLL, first!.lookAlike!.knownDiffers)})`,
    );
    expect(first?.message).toMatch(/\[/);
  });

  it('names an address book entry on its own chain only, and flags an ERC-20 transfer’s recipient and a spender', () => {
    const named = signEthereum(PAYROLL);
    expect(flatFacts(signingFacts(named)).find((fact) => fact.label === 'To')?.value[0]).toMatchObject({ text: 'Payroll', id: PAYROLL });
    expect(named.warnings.filter((warning) => warning.kind === 'LOOK_ALIKE_ADDRESS')).toEqual([]);
    // An Ethereum entry names its address on its own chain: on Base the same address is just an address.
    expect(flatFacts(signingFacts(signEthereum(PAYROLL, undefined, 8453))).find((fact) => fact.label === 'To')?.value[0]).toMatchObject({
      text: PAYROLL,
    });

    const recipient = getAddress(poisoned(PAST_RECIPIENT));
    const transfer = signEthereum(VAULT, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 5n] }));
    expect(transfer.warnings.find((warning) => warning.kind === 'LOOK_ALIKE_ADDRESS')?.lookAlike).toMatchObject({
      address: recipient,
      known: { name: 'a past recipient' },
    });
    const spender = getAddress(poisoned(PAYROLL));
    const approval = signEthereum(VAULT, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, 5n] }));
    expect(approval.warnings.find((warning) => warning.kind === 'LOOK_ALIKE_ADDRESS')?.lookAlike).toMatchObject({
      address: spender,
      known: { address: PAYROLL, name: 'Payroll' },
    });
  });

  it('flags an address inside typed data', () => {
    const fake = getAddress(poisoned(ethereumOwn[2]!));
    const typed = { ...MAIL, message: { ...MAIL.message, to: { name: 'Bob', wallet: fake } } };
    const description = describeSigningRequest(
      {
        operation: 'sign_raw_payload',
        parameters: { signWith: SIGNER, payload: JSON.stringify(typed), encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' },
      },
      context,
    );
    expect(description.warnings.find((warning) => warning.kind === 'LOOK_ALIKE_ADDRESS')?.lookAlike).toMatchObject({
      address: fake,
      known: { address: ethereumOwn[2], name: "Treasury / m/44'/60'/0'/0/3" },
    });
  });

  it('flags a SOL transfer to a look-alike of an address book entry', () => {
    const fake = poisoned(DESK);
    const transaction = new Transaction({ feePayer: SOLANA_PAYER.publicKey, recentBlockhash: 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k' }).add(
      SystemProgram.transfer({ fromPubkey: SOLANA_PAYER.publicKey, toPubkey: new PublicKey(fake), lamports: 1_000 }),
    );
    const description = describeSigningRequest(
      {
        operation: 'sign_transaction',
        parameters: {
          signWith: SOLANA_PAYER.publicKey.toBase58(),
          unsignedTransaction: bytesToHex(transaction.serialize({ requireAllSignatures: false, verifySignatures: false })),
          type: 'TRANSACTION_TYPE_SOLANA',
        },
      },
      context,
    );
    expect(description.warnings[0]).toMatchObject({ kind: 'LOOK_ALIKE_ADDRESS', severity: 'critical', lookAlike: { known: { name: 'OTC desk' } } });
  });
});
