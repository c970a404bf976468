import { encodeFunctionData, erc20Abi, maxUint256, serializeTransaction, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { describeSigningRequest, flatFacts, signingFacts, type EthereumTransactionDetails } from '../../../src/shared/clear-signing/index.js';

const SIGNER = '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23';
// A contract no list, declaration or upload describes.
const UNDESCRIBED = '0x95aD61b0a150d79219dCF64E1E6Cc01f0B64C4cE';
const RECIPIENT = '0x1111111111111111111111111111111111111111';
const SPENDER = '0x2222222222222222222222222222222222222222';

function call(data: Hex) {
  const unsignedTransaction = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 0,
    gas: 60_000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
    to: UNDESCRIBED,
    data,
  });
  return describeSigningRequest(
    { operation: 'sign_transaction', parameters: { signWith: SIGNER, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' } },
    { knownRecipients: [RECIPIENT] },
  );
}

const lines = (description: Parameters<typeof signingFacts>[0]) =>
  flatFacts(signingFacts(description)).map((fact) => `${fact.label}: ${fact.value.map((ref) => ref.text).join(' | ')}`);

describe('clear signing: the ERC-20 fallback on a contract nobody described', () => {
  it('shows a transfer’s recipient and raw amount, the token and its decimals unknown', () => {
    const description = call(encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 12_345n] }));
    const tx = description.details as EthereumTransactionDetails;

    expect(tx.call).toMatchObject({ decoded: false, functionName: 'transfer', tokenUnknown: true });
    expect(tx.call!.args.map((arg) => [arg.name, arg.text])).toEqual([
      ['recipient', RECIPIENT],
      ['amount', '12345 raw units'],
    ]);
    expect(description.summary).toBe(`Transfer 12345 raw units of the unknown token ${UNDESCRIBED} to ${RECIPIENT} on Ethereum`);
    expect(lines(description)).toEqual(
      expect.arrayContaining([
        'Call: transfer(address,uint256) of the ERC-20 standard, read by its selector | token unknown: decimals unknown',
        `Call.recipient: ${RECIPIENT}`,
        'Call.amount: 12345 raw units | unknown token: raw units',
      ]),
    );
    expect(description.warnings.map((warning) => warning.kind)).toEqual(['UNKNOWN_CONTRACT']);
    expect(description.warnings[0]!.message).toBe(
      `No interface is uploaded for ${UNDESCRIBED}: the call is read by its selector alone, as the ERC-20 transfer(address,uint256) of a token whose decimals are unknown. Upload its ABI, or check the call data another way before you approve.`,
    );
  });

  it('names a maximum approve unlimited and flags a spender never paid before', () => {
    const description = call(encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SPENDER, maxUint256] }));
    const tx = description.details as EthereumTransactionDetails;

    expect(tx.call!.args.map((arg) => [arg.name, arg.text])).toEqual([
      ['spender', SPENDER],
      ['amount', 'unlimited (the maximum uint256)'],
    ]);
    expect(description.warnings.map((warning) => warning.kind)).toEqual(['UNKNOWN_CONTRACT', 'UNLIMITED_APPROVAL', 'NEW_RECIPIENT']);
  });

  it('reads transferFrom’s three parties', () => {
    const description = call(encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [SPENDER, RECIPIENT, 7n] }));
    const tx = description.details as EthereumTransactionDetails;

    expect(tx.call!.args.map((arg) => [arg.name, arg.text])).toEqual([
      ['sender', SPENDER],
      ['recipient', RECIPIENT],
      ['amount', '7 raw units'],
    ]);
  });

  it('leaves other standard selectors a named guess without arguments', () => {
    const description = call(encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [RECIPIENT] }));
    expect((description.details as EthereumTransactionDetails).call).toEqual({
      selector: '0x70a08231',
      decoded: false,
      args: [],
      likelySignature: 'balanceOf(address)',
    });
  });
});
