import { secp256k1 } from '@noble/curves/secp256k1.js';
import { NETWORK, p2wpkh, Transaction as BitcoinTransaction } from '@scure/btc-signer';
import { encodeFunctionData, erc20Abi, serializeTransaction } from 'viem';
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../../../src/shared/crypto/encoding.js';
import { describeSigningRequest, flatFacts, signingFacts } from '../../../src/shared/clear-signing/index.js';
import { MAIL } from '../../support/eip712-mail.js';

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const SIGNER = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';

const lines = (facts: ReturnType<typeof signingFacts>) =>
  flatFacts(facts).map((fact) => `${fact.label}: ${fact.value.map((value) => value.text).join(' | ')}`);

describe('clear signing: descriptions as labelled facts', () => {
  it('lists an ERC-20 transfer with its decoded arguments nested under the call', () => {
    const recipient = '0x1111111111111111111111111111111111111111';
    const unsignedTransaction = serializeTransaction({
      type: 'eip1559',
      chainId: 1,
      nonce: 0,
      gas: 50_000n,
      maxFeePerGas: 20_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      to: USDC,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 5_000_000n] }),
    });
    const facts = signingFacts(
      describeSigningRequest(
        { operation: 'sign_transaction', parameters: { signWith: SIGNER, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' } },
        { contracts: [{ address: USDC, type: 'ETHEREUM', label: 'USD Coin', definition: erc20Abi }] },
      ),
    );
    expect(lines(facts).slice(0, 14)).toEqual([
      'Network: Ethereum (chain id 1)',
      `Signer: ${SIGNER} | not a key of this organization`,
      'Type: EIP-1559 (type 2)',
      'To: USD Coin · contract',
      'Value: 0 ETH',
      'Nonce: 0',
      'Gas limit: 50000',
      'Max fee per gas: 20 gwei',
      'Max priority fee per gas: 1 gwei',
      'Most it can pay in fees: 0.001 ETH',
      'Call: transfer(address,uint256)',
      `Call.recipient: ${recipient}`,
      'Call.amount: 5 USDC | raw 5000000 | known token list',
      expect.stringMatching(/^Call data: 0xa9059cbb/),
    ]);
    expect(facts.find((fact) => fact.label === 'To')?.value[0]?.id).toBe(USDC);
    // The card nests the arguments under the call; the token's source is a note beside the amount, not a value.
    const call = facts.find((fact) => fact.label === 'Call');
    expect(call?.children?.map((fact) => fact.label)).toEqual(['recipient', 'amount']);
    expect(call?.children?.[1]?.value).toEqual([{ text: '5 USDC' }, { text: 'raw 5000000', note: true }, { text: 'known token list', note: true }]);
  });

  it('nests the arguments of a standard token call read without an ABI, as the card shows them', () => {
    const recipient = '0x2222222222222222222222222222222222222222';
    const unsignedTransaction = serializeTransaction({
      type: 'eip1559',
      chainId: 1,
      nonce: 1,
      gas: 50_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      to: USDC,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 7_000_000n] }),
    });
    const facts = lines(
      signingFacts(
        describeSigningRequest({
          operation: 'sign_transaction',
          parameters: { signWith: SIGNER, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' },
        }),
      ),
    );
    expect(facts).toContain('Call: not decoded; the selector 0xa9059cbb is transfer(address,uint256) in the ERC-20/721 standards');
    expect(facts).toContain('Call.amount: 7 USDC | raw 7000000 | known token list');
  });

  it('lists typed data as dotted paths and a PSBT with change marked', () => {
    const typed = signingFacts(
      describeSigningRequest({
        operation: 'sign_raw_payload',
        parameters: { signWith: SIGNER, payload: JSON.stringify(MAIL), encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' },
      }),
    );
    expect(lines(typed)).toContain('Payload: EIP-712 Mail');
    expect(lines(typed)).toContain('Payload.message.from.name: Cow');
    expect(lines(typed)).toContain('Payload.message.contents: Hello, Bob!');
    // A struct is only its fields: flattened, it adds no line of its own; nested, it holds them.
    expect(lines(typed).some((line) => line.startsWith('Payload.message.from:'))).toBe(false);
    const message = typed.find((fact) => fact.label === 'Payload')?.children?.find((fact) => fact.label === 'message');
    expect(message?.children?.find((fact) => fact.label === 'from')?.children?.map((fact) => fact.label)).toEqual(['name', 'wallet']);

    const ours = p2wpkh(secp256k1.getPublicKey(new Uint8Array(32).fill(3), true), NETWORK);
    const theirs = p2wpkh(secp256k1.getPublicKey(new Uint8Array(32).fill(4), true), NETWORK);
    const psbt = new BitcoinTransaction();
    psbt.addInput({ txid: 'ab'.repeat(32), index: 1, witnessUtxo: { script: ours.script, amount: 50_000n } });
    psbt.addOutputAddress(theirs.address, 30_000n, NETWORK);
    psbt.addOutputAddress(ours.address, 19_500n, NETWORK);
    const bitcoin = lines(
      signingFacts(
        describeSigningRequest({
          operation: 'sign_transaction',
          parameters: { signWith: ours.address, unsignedTransaction: bytesToHex(psbt.toPSBT()), type: 'TRANSACTION_TYPE_BITCOIN' },
        }),
      ),
    );
    expect(bitcoin).toEqual([
      'Network: Bitcoin mainnet',
      `Signer: ${ours.address} | not a key of this organization`,
      `Input 1: ${ours.address} · ours | 0.0005 BTC | ${'ab'.repeat(32)}:1`,
      `Output 1: ${theirs.address} | 0.0003 BTC`,
      `Output 2 (change): ${ours.address} · ours | 0.000195 BTC`,
      'Sent: 0.0003 BTC',
      'Fee: 0.000005 BTC',
    ]);
  });
});
