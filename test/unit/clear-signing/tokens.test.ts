import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getTransactionEncoder,
  isAddress as isSolanaAddress,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
} from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { encodeFunctionData, erc20Abi, getAddress, maxUint256, serializeTransaction, type TransactionSerializable } from 'viem';
import { usdc } from 'viem/tokens';
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../../../src/shared/crypto/encoding.js';
import {
  describeSigningRequest,
  type ClearSigningContext,
  type EthereumTransactionDetails,
  type RawPayloadsDetails,
  type SolanaTransactionDetails,
} from '../../../src/shared/clear-signing/index.js';
import { KNOWN_TOKENS } from '../../../src/shared/clear-signing/known-tokens.js';

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const DAI = '0x6B175474E89094C44Da98b954EedeAC495271d0F';
const OP_STACK_WETH = '0x4200000000000000000000000000000000000006';
/** A contract on no list. */
const ACME = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
const SIGNER = '0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1';
const TREASURY = '0x1111111111111111111111111111111111111111';
const VENDOR = '0x2222222222222222222222222222222222222222';

const context: ClearSigningContext = {
  wallets: [
    {
      walletId: 'wallet-1',
      walletName: 'Treasury',
      accounts: [
        { address: SIGNER, path: "m/44'/60'/0'/0/0" },
        { address: TREASURY, path: "m/44'/60'/0'/0/1" },
      ],
    },
  ],
};

const fees = { nonce: 1, gas: 60_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n } as const;

function sign(tx: TransactionSerializable, extra: ClearSigningContext = {}) {
  const description = describeSigningRequest(
    {
      operation: 'sign_transaction',
      parameters: { signWith: SIGNER, unsignedTransaction: serializeTransaction(tx), type: 'TRANSACTION_TYPE_ETHEREUM' },
    },
    { ...context, ...extra },
  );
  return { description, tx: description.details as EthereumTransactionDetails };
}

const transfer = (to: string, amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [getAddress(to), amount] });
const abiFor = (address: string, label: string) => ({ contracts: [{ address, type: 'ETHEREUM' as const, label, definition: erc20Abi }] });

describe('clear signing: the known token list', () => {
  it('holds checksummed addresses, one entry per chain and address, and the USDC addresses viem carries', () => {
    const keys = new Set<string>();
    for (const token of KNOWN_TOKENS) {
      if (token.family === 'ethereum') {
        expect(token.address).toBe(getAddress(token.address));
        keys.add(`${token.chainId}:${token.address}`);
      } else {
        expect(isSolanaAddress(token.address)).toBe(true);
        keys.add(`solana:${token.address}`);
      }
    }
    expect(keys.size).toBe(KNOWN_TOKENS.length);
    const ourUsdc = KNOWN_TOKENS.flatMap((token) => (token.family === 'ethereum' && token.symbol === 'USDC' ? [token] : []));
    expect(ourUsdc.map((token) => token.chainId).sort((a, b) => a - b)).toEqual([1, 10, 137, 8453, 42161, 11155111]);
    for (const token of ourUsdc) {
      expect(token.address).toBe(usdc.addresses[token.chainId as keyof typeof usdc.addresses]);
      expect(token.decimals).toBe(usdc.decimals);
    }
  });
});

describe('clear signing: ERC-20 amounts in words', () => {
  it('reads a USDC transfer of 1000000000 as 1,000 USDC to the named wallet, from the known list, with no ABI uploaded', () => {
    const { description, tx } = sign({ type: 'eip1559', chainId: 1, to: USDC, data: transfer(TREASURY, 1_000_000_000n), ...fees });
    expect(description.summary).toBe("Transfer 1,000 USDC to Treasury / m/44'/60'/0'/0/1 on Ethereum");
    expect(tx.to).toEqual({ address: USDC, label: 'USDC', role: 'token' });
    expect(tx.call).toMatchObject({ decoded: false, functionName: 'transfer', likelySignature: 'transfer(address,uint256)' });
    expect(tx.call?.args[1]).toEqual({
      name: 'amount',
      type: 'uint256',
      text: '1,000 USDC',
      raw: '1000000000',
      amount: {
        raw: 1_000_000_000n,
        formatted: '1000',
        unit: 'USDC',
        text: '1,000 USDC',
        rawUnit: 'raw units (6 decimals)',
        source: 'known token list',
      },
    });
    // Policies cannot read the call without the ABI: the card says so rather than calling the contract unknown.
    expect(description.warnings.map((warning) => warning.kind)).toEqual(['UNDECODED']);
    expect(description.warnings[0]!.message).toBe(
      `No interface is uploaded for USDC (${USDC}): it is read as the standard ERC-20 transfer(address,uint256) of a known token, but policies cannot read its arguments until an ABI with that function is uploaded.`,
    );
  });

  it('says so when the uploaded ABI lacks the function a declared token is called with', () => {
    const approveOnly = {
      contracts: [
        {
          address: ACME,
          type: 'ETHEREUM' as const,
          label: 'Acme',
          definition: erc20Abi.filter((item) => item.type !== 'function' || item.name === 'approve'),
        },
      ],
    };
    const { description, tx } = sign(
      { type: 'eip1559', chainId: 1, to: ACME, data: transfer(VENDOR, 250n), ...fees },
      { ...approveOnly, tokens: [{ family: 'ethereum', chainId: 1, address: ACME, symbol: 'ACME', decimals: 2 }] },
    );
    expect(tx.call?.args[1]?.amount).toMatchObject({ text: '2.5 ACME', source: 'declared by an operator' });
    expect(description.warnings[0]!.message).toBe(
      `The ABI uploaded for Acme (${ACME}) has no function that decodes this call: it is read as the standard ERC-20 transfer(address,uint256) of a token an operator declared, but policies cannot read its arguments until an ABI with that function is uploaded.`,
    );
  });

  it('reads the same amount the same way through an uploaded ABI', () => {
    const { description, tx } = sign(
      { type: 'eip1559', chainId: 1, to: USDC, data: transfer(VENDOR, 1_234_567_890_123n), ...fees },
      abiFor(USDC, 'USD Coin'),
    );
    expect(description.summary).toBe(`Transfer 1,234,567.890123 USDC to ${VENDOR} on Ethereum`);
    expect(tx.call?.decoded).toBe(true);
    expect(tx.call?.args[1]?.amount?.source).toBe('known token list');
  });

  it('keeps an unknown token raw, with the note, and never guesses its decimals', () => {
    const { description, tx } = sign(
      { type: 'eip1559', chainId: 1, to: ACME, data: transfer(VENDOR, 1_000_000_000n), ...fees },
      abiFor(ACME, 'Acme'),
    );
    expect(tx.call?.args[1]).toEqual({
      name: 'amount',
      type: 'uint256',
      text: '1000000000 raw units',
      raw: '1000000000',
      amount: {
        raw: 1_000_000_000n,
        formatted: '1000000000',
        unit: 'raw units',
        text: '1000000000 raw units',
        rawUnit: 'raw units',
        source: 'unknown token: raw units',
      },
    });
    expect(description.summary).toBe(`Transfer 1000000000 raw units to ${VENDOR} on Ethereum`);
  });

  it('reads a token an operator declared, on its own chain only', () => {
    const declared: ClearSigningContext = {
      ...abiFor(ACME, 'Acme'),
      tokens: [{ family: 'ethereum', chainId: 1, address: ACME.toLowerCase(), symbol: 'ACME', decimals: 2 }],
    };
    const onMainnet = sign({ type: 'eip1559', chainId: 1, to: ACME, data: transfer(VENDOR, 123_456n), ...fees }, declared);
    expect(onMainnet.tx.call?.args[1]?.amount).toMatchObject({ text: '1,234.56 ACME', source: 'declared by an operator' });
    expect(onMainnet.description.summary).toBe(`Transfer 1,234.56 ACME to ${VENDOR} on Ethereum`);

    // The same address on another chain may be another contract: it stays raw there.
    const onBase = sign({ type: 'eip1559', chainId: 8453, to: ACME, data: transfer(VENDOR, 123_456n), ...fees }, declared);
    expect(onBase.tx.call?.args[1]?.amount).toMatchObject({ text: '123456 raw units', source: 'unknown token: raw units' });
  });

  it('names the token of the chain the transaction is on: the OP Stack WETH address is WETH on Base, nothing on Ethereum', () => {
    const onBase = sign({ type: 'eip1559', chainId: 8453, to: OP_STACK_WETH, data: transfer(VENDOR, 1_500_000_000_000_000_000n), ...fees });
    expect(onBase.description.summary).toBe(`Transfer 1.5 WETH to ${VENDOR} on Base`);
    const onEthereum = sign({ type: 'eip1559', chainId: 1, to: OP_STACK_WETH, data: transfer(VENDOR, 1n), ...fees });
    expect(onEthereum.tx.call?.args[1]?.amount).toMatchObject({ text: '1 raw units', source: 'unknown token: raw units' });
    expect(onEthereum.description.warnings.map((warning) => warning.kind)).toEqual(['UNKNOWN_CONTRACT']);
  });

  it('keeps the unlimited-approval warning on a known token', () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [getAddress(VENDOR), maxUint256] });
    const { description, tx } = sign({ type: 'eip1559', chainId: 1, to: DAI, data, ...fees });
    expect(tx.call?.args[1]).toMatchObject({ text: 'unlimited (the maximum uint256)', raw: maxUint256.toString() });
    expect(description.warnings.map((warning) => warning.kind)).toEqual(['UNDECODED', 'UNLIMITED_APPROVAL']);
    expect(description.warnings[1]!.message).toBe(
      `This approves ${VENDOR} to spend an unlimited amount of DAI (${DAI}) from the account, until the approval is revoked.`,
    );
  });

  it('reads a token permit in the units of the token it is signed for', () => {
    const permit = {
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      domain: { name: 'USD Coin', chainId: 1, verifyingContract: USDC },
      message: { owner: SIGNER, spender: VENDOR, value: '2500000' },
    };
    const description = describeSigningRequest({
      operation: 'sign_raw_payload',
      parameters: { signWith: SIGNER, payload: JSON.stringify(permit), encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' },
    });
    const details = description.details as RawPayloadsDetails;
    expect(details.payloads[0]!.typedData!.message.find((node) => node.name === 'value')?.text).toBe('2.5 USDC');
  });
});

describe('clear signing: Solana TransferChecked amounts', () => {
  const BLOCKHASH = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';
  const OWNER = 'GDDMwNyyx8uB6zrqwBFHjLLG3TBYk2F8Az4yrQC5RzMp' as Address;
  const SOURCE = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T' as Address;
  const DESTINATION = '8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh' as Address;

  function transferChecked(mint: string, amount: bigint, decimals: number, extra: ClearSigningContext = {}) {
    const owner = createNoopSigner(OWNER);
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(owner.address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH as Blockhash, lastValidBlockHeight: 0n }, m),
      (m) =>
        appendTransactionMessageInstructions(
          [getTransferCheckedInstruction({ source: SOURCE, mint: mint as Address, destination: DESTINATION, authority: owner, amount, decimals })],
          m,
        ),
    );
    const bytes = new Uint8Array(getTransactionEncoder().encode(compileTransaction(message)));
    const description = describeSigningRequest(
      { operation: 'sign_transaction', parameters: { signWith: OWNER, unsignedTransaction: bytesToHex(bytes), type: 'TRANSACTION_TYPE_SOLANA' } },
      extra,
    );
    return { description, solana: description.details as SolanaTransactionDetails };
  }

  it('uses the decimals the instruction states (6) and the symbol of a known mint', () => {
    const { description, solana } = transferChecked('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 1_000_000_000n, 6);
    expect(solana.tokenTransfers[0]!.amount).toEqual({
      raw: 1_000_000_000n,
      formatted: '1000',
      unit: 'USDT',
      text: '1,000 USDT',
      rawUnit: 'raw units (6 decimals)',
      source: 'decimals stated by the instruction; symbol from the known token list',
    });
    expect(description.summary).toBe(`Transfer 1,000 USDT from ${SOURCE} to ${DESTINATION} on Solana`);
  });

  it('reads an unknown mint in the stated decimals without naming a symbol, and an operator-declared mint by its symbol', () => {
    const mint = 'So11111111111111111111111111111111111111112';
    const unknown = transferChecked(mint, 2_500_000n, 6);
    expect(unknown.solana.tokenTransfers[0]!.amount).toMatchObject({
      text: '2.5 tokens',
      source: 'decimals stated by the instruction; unknown token',
    });
    const declared = transferChecked(mint, 2_500_000n, 6, { tokens: [{ family: 'solana', address: mint, symbol: 'wSOL', decimals: 9 }] });
    // The instruction's decimals win: the token program refuses the transfer if they are not the mint's.
    expect(declared.solana.tokenTransfers[0]!.amount).toMatchObject({
      text: '2.5 wSOL',
      source: 'decimals stated by the instruction; symbol declared by an operator',
    });
  });
});
