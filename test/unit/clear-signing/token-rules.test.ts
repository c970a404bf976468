/**
 * Issue 24, items 5 and 6 in the reader: known token symbols and names are reserved to their own contracts, an
 * interface's label and ABI are read on the chain its upload names, and a token transfer at or above the operator's
 * threshold is flagged in the token's units.
 */
import { encodeFunctionData, erc20Abi, getAddress, serializeTransaction, type TransactionSerializable } from 'viem';
import { describe, expect, it } from 'vitest';
import { chainIdOfNotes, notesWithChainId, notesWithoutChainId } from '../../../src/shared/clear-signing/contract-networks.js';
import { describeSigningRequest, type ClearSigningContext, type EthereumTransactionDetails } from '../../../src/shared/clear-signing/index.js';
import { tokenImitation, tokenLookalikeKey } from '../../../src/shared/clear-signing/token-reservation.js';

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
/** A contract on no list. */
const ACME = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
const SIGNER = '0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1';
const VENDOR = '0x2222222222222222222222222222222222222222';
const fees = { nonce: 1, gas: 60_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n } as const;

function sign(tx: TransactionSerializable, context: ClearSigningContext) {
  const description = describeSigningRequest(
    {
      operation: 'sign_transaction',
      parameters: { signWith: SIGNER, unsignedTransaction: serializeTransaction(tx), type: 'TRANSACTION_TYPE_ETHEREUM' },
    },
    context,
  );
  return { description, tx: description.details as EthereumTransactionDetails };
}
const transfer = (to: string, amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [getAddress(to), amount] });
const spoof = (symbol: string, name?: string) => ({
  family: 'ethereum' as const,
  chainId: 1,
  address: ACME,
  symbol,
  decimals: 6,
  ...(name === undefined ? {} : { name }),
});

describe('known token symbols and names are reserved to their (chain, address)', () => {
  it('catches the symbol or name of a known token whatever its case, spacing, accents or look-alike letters', () => {
    for (const symbol of ['USDC', 'usdc', 'U5DC', 'ＵＳＤＣ', 'USDС' /* Cyrillic Es */, 'ÚSDC', 'US\u200bDC', 'USDCoin', 'U$DC']) {
      expect(tokenImitation(spoof(symbol))?.field, symbol).toBe('symbol');
    }
    expect(tokenImitation(spoof('WETH')), 'another known symbol').toBeDefined();
    expect(tokenImitation(spoof('XUSD', 'usd  coin'))?.field).toBe('name');
    expect(tokenLookalikeKey('Tether USD')).toBe(tokenLookalikeKey('TETHER  U5D'));
  });

  it('names where the real token is, its own chain first, and lets symbols of their own through', () => {
    const imitation = tokenImitation({ family: 'ethereum', chainId: 8453, address: ACME, symbol: 'USDC' })!;
    expect(imitation.canonical[0]).toMatchObject({ chainId: 8453, address: BASE_USDC });
    expect(imitation.reason).toMatch(
      new RegExp(
        `^"USDC" is reserved to USD Coin \\(USDC\\) of the known token list, at ${BASE_USDC} on Base \\(chain id 8453\\); ${USDC} on Ethereum \\(chain id 1\\); `,
      ),
    );
    expect(imitation.reason).toMatch(/Solana mint EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v; declare this token under a symbol of its own$/);
    // A Solana mint imitating a token is refused too.
    expect(tokenImitation({ family: 'solana', address: 'So11111111111111111111111111111111111111112', symbol: 'usdt' })?.canonical[0]).toMatchObject({
      symbol: 'USDT',
      family: 'solana',
    });
    for (const symbol of ['ACME', 'USDC.e', 'USDX', 'wSOL', 'DAI2']) expect(tokenImitation(spoof(symbol)), symbol).toBeUndefined();
    // The known token at its own place imitates nothing.
    expect(tokenImitation({ family: 'ethereum', chainId: 1, address: USDC.toLowerCase(), symbol: 'USDC', name: 'USD Coin' })).toBeUndefined();
  });

  it('never reads a declaration that imitates a known token, even one passed in by a caller that did not check', () => {
    const { description, tx } = sign(
      { type: 'eip1559', chainId: 1, to: ACME, data: transfer(VENDOR, 250_000_000_000n), ...fees },
      { tokens: [spoof('USDC', 'USD Coin')] },
    );
    // Read as no token at all: an unknown contract's ERC-20 call, its amount raw, nothing in "USDC".
    expect(description.summary).toBe(`Transfer 250000000000 raw units of the unknown token ${ACME} to ${VENDOR} on Ethereum`);
    expect(tx.to).toEqual({ address: ACME, role: 'unknown contract' });
    expect(JSON.stringify(description, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))).not.toContain('USDC');
  });
});

describe('contract labels and ABIs are keyed by chain and address', () => {
  const onChain = (chainId: number | undefined): ClearSigningContext => ({
    contracts: [{ address: ACME, type: 'ETHEREUM', label: 'Acme vault', definition: erc20Abi, ...(chainId === undefined ? {} : { chainId }) }],
  });
  const call = (chainId: number, context: ClearSigningContext) =>
    sign({ type: 'eip1559', chainId, to: ACME, data: transfer(VENDOR, 5n), ...fees }, context);

  it('reads an Ethereum label and ABI on Ethereum only: the same address on Base is not named by it', () => {
    const ethereum = call(1, onChain(1));
    expect(ethereum.tx.to).toEqual({ address: ACME, label: 'Acme vault', role: 'contract' });
    expect(ethereum.tx.call?.decoded).toBe(true);
    expect(ethereum.description.warnings).toEqual([]);

    const base = call(8453, onChain(1));
    expect(base.tx.to).toEqual({ address: ACME, role: 'unknown contract' });
    expect(base.description.summary).not.toContain('Acme vault');
    expect(base.tx.call?.decoded).toBe(false);
    expect(base.description.warnings.map((warning) => warning.message)).toContain(
      `The interfaces uploaded for ${ACME} (“Acme vault” on Ethereum) name the contract at that address on another chain, not on Base: the call is read by its selector alone, as the ERC-20 transfer(address,uint256) of a token whose decimals are unknown. Check the call data another way before you approve.`,
    );
  });

  it('reads two uploads for one address each on its own chain', () => {
    const both: ClearSigningContext = {
      contracts: [
        { address: ACME, type: 'ETHEREUM', label: 'Acme on Ethereum', definition: erc20Abi, chainId: 1 },
        { address: ACME, type: 'ETHEREUM', label: 'Acme on Base', definition: erc20Abi, chainId: 8453 },
      ],
    };
    expect(call(1, both).tx.to?.label).toBe('Acme on Ethereum');
    expect(call(8453, both).tx.to?.label).toBe('Acme on Base');
  });

  it('reads an upload that names no network on every chain, with a warning in words', () => {
    const { tx, description } = call(8453, onChain(undefined));
    expect(tx.to?.label).toBe('Acme vault');
    expect(description.warnings).toContainEqual({
      kind: 'NETWORK_NOT_STATED',
      message: `The interface “Acme vault” for ${ACME} was uploaded without naming its network, so it is read on every chain: the same address on Base may be another contract. Re-upload it for its network.`,
      subject: ACME,
    });
  });

  it('states the network on the first line of the notes, and reads it back', () => {
    expect(notesWithChainId(8453, ' vault v2 ')).toBe('Network: eip155:8453\nvault v2');
    expect(chainIdOfNotes('Network: eip155:8453\nvault v2')).toBe(8453);
    expect(notesWithoutChainId('Network: eip155:8453\nvault v2')).toBe('vault v2');
    for (const notes of ['', 'vault', 'Network: eip155:0', 'network: eip155:1', 'see\nNetwork: eip155:1', 'Network: eip155:1x']) {
      expect(chainIdOfNotes(notes), notes).toBeUndefined();
    }
  });
});

describe('large-transfer warnings per token', () => {
  const threshold = (raw: bigint, chainId = 1, address = USDC): ClearSigningContext => ({
    thresholds: { tokens: [{ family: 'ethereum', chainId, address: address.toLowerCase(), raw }] },
  });
  const usdcTransfer = (amount: bigint, context: ClearSigningContext) =>
    sign({ type: 'eip1559', chainId: 1, to: USDC, data: transfer(VENDOR, amount), ...fees }, context);

  it('flags a transfer at or above the threshold, in the token’s units', () => {
    const above = usdcTransfer(250_000_000_000n, threshold(10_000_000_000n));
    expect(above.description.warnings).toContainEqual({
      kind: 'VALUE_ABOVE_THRESHOLD',
      message: 'Large transfer: 250,000 USDC ≥ your 10,000 USDC threshold.',
      subject: 'USDC 250000000000',
    });
    const at = usdcTransfer(10_000_000_000n, threshold(10_000_000_000n));
    expect(at.description.warnings.map((warning) => warning.kind)).toContain('VALUE_ABOVE_THRESHOLD');
    const below = usdcTransfer(9_999_999_999n, threshold(10_000_000_000n));
    expect(below.description.warnings.map((warning) => warning.kind)).not.toContain('VALUE_ABOVE_THRESHOLD');
  });

  it('reads a threshold for its own chain and token only, and a declared token’s with its decimals', () => {
    expect(usdcTransfer(250_000_000_000n, threshold(1n, 8453)).description.warnings.map((warning) => warning.kind)).not.toContain(
      'VALUE_ABOVE_THRESHOLD',
    );
    const declared: ClearSigningContext = {
      tokens: [{ family: 'ethereum', chainId: 1, address: ACME, symbol: 'ACME', decimals: 2 }],
      thresholds: { tokens: [{ family: 'ethereum', chainId: 1, address: ACME, raw: 100_000n }] },
    };
    const { description } = sign({ type: 'eip1559', chainId: 1, to: ACME, data: transfer(VENDOR, 123_456n), ...fees }, declared);
    expect(description.warnings.map((warning) => warning.message)).toContain('Large transfer: 1,234.56 ACME ≥ your 1,000 ACME threshold.');
  });
});
