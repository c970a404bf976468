/**
 * A Safe's inner call and each MultiSend row are read through the shipped ERC-7730 descriptors, as a transaction's own
 * call is: the registry's intent and fields beside the decoded call, with the descriptor named. The calldata is the
 * registry's own test data (uniswap/tests/calldata-UniswapV3Router02.tests.json, "swap - chain 1", and
 * morpho/testsv2/calldata-gauntlet-gtWETH.tests.json, whose expected reading is copied here).
 */
import { encodeMultiSendData, generateTypedData } from '@safe-global/protocol-kit';
import { encodeFunctionData, erc20Abi, getAddress, parseAbi, parseTransaction, serializeTransaction, zeroAddress, type Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { shippedDescriptors, type ShippedDescriptors } from '../../../src/main/clear-signing/shipped-registry';
import {
  describeSigningRequest,
  flatFacts,
  signingFacts,
  type ClearSigningContext,
  type EthereumTransactionDetails,
  type RawPayloadsDetails,
  type SigningDescription,
} from '../../../src/shared/clear-signing/index.js';

/** exactInputSingle on Uniswap's SwapRouter02: 0.0065 WETH for at least 13.9 USDT, on Ethereum. */
const UNISWAP_SWAP_TX =
  '0x02f9010c010d83989680843b9aca008304e2009468b3465833fb72a70ecdf485e0e4c7bd8665fc4580b8e404e45aaf000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2000000000000000000000000dac17f958d2ee523a2206206994597c13d831ec70000000000000000000000000000000000000000000000000000000000000bb8000000000000000000000000eced4025456b6c2987fac2e4c829889e681986a70000000000000000000000000000000000000000000000000016fdae8fefba690000000000000000000000000000000000000000000000000000000000d41da00000000000000000000000000000000000000000000000000000000000000000c0';
/** deposit on Gauntlet's gtWETH vault: 4.5 WETH, on Ethereum. */
const GTWETH_DEPOSIT_TX =
  '0x02f88401388336ee7f84067cdbbb83090aab942371e134e3455e0593363cbf89d3b6cf5374061880b85c6e553f650000000000000000000000000000000000000000000000003e7336287142000000000000000000000000000090deceec188094f6f6c1ef446d843f70abfc92cb798a57c245e9549d61ba1cce41fee9d8535a2a0fffc69debc0';
const GTWETH_EXPECTED = {
  intent: 'Deposit',
  owner: 'Gauntlet',
  fields: [
    { label: 'Deposit asset', value: '4.5 WETH' },
    { label: 'Share ticker', value: 'gtWETH' },
    { label: 'Send shares to', value: '0x90dECEec188094f6f6C1eF446D843F70abfC92Cb' },
  ],
};
const UNISWAP = "the registry's uniswap descriptor calldata-UniswapV3Router02.json";

const SAFE = getAddress('0x5afe5afe5afe5afe5afe5afe5afe5afe5afe5afe');
const SIGNER = '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const RECIPIENT = '0x1111111111111111111111111111111111111111';
const MULTI_SEND_CALL_ONLY_1_4_1 = '0x9641d764fc13c8B624c04430C7356C1C7C8102e2';
const SAFE_ABI = parseAbi([
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool success)',
  'function multiSend(bytes transactions) payable',
]);

/** The call a registry fixture's transaction makes, to put inside a Safe. */
function callOf(rawTx: string): { to: Hex; data: Hex; value: bigint } {
  const tx = parseTransaction(rawTx as Hex);
  return { to: tx.to!, data: tx.data!, value: tx.value ?? 0n };
}

let descriptors: ShippedDescriptors;
beforeAll(async () => {
  descriptors = await shippedDescriptors();
});

function execTransaction(inner: { to: string; data: Hex; value?: bigint; operation?: 0 | 1 }, context: ClearSigningContext): SigningDescription {
  const data = encodeFunctionData({
    abi: SAFE_ABI,
    functionName: 'execTransaction',
    args: [getAddress(inner.to), inner.value ?? 0n, inner.data, inner.operation ?? 0, 0n, 0n, 0n, zeroAddress, zeroAddress, `0x${'11'.repeat(65)}`],
  });
  const unsignedTransaction = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 3,
    gas: 400_000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
    to: SAFE,
    data,
  });
  return describeSigningRequest(
    { operation: 'sign_transaction', parameters: { signWith: SIGNER, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' } },
    context,
  );
}

const safeOf = (description: SigningDescription) => (description.details as EthereumTransactionDetails).call!.safeTransaction!;
const lines = (description: SigningDescription) =>
  flatFacts(signingFacts(description)).map((fact) => `${fact.label}: ${fact.value.map((ref) => ref.text).join(' | ')}`);

/** The fixture's swap signed directly: the reading a Safe's inner call must match. */
function directSwap() {
  return describeSigningRequest(
    {
      operation: 'sign_transaction',
      parameters: { signWith: SIGNER, unsignedTransaction: UNISWAP_SWAP_TX.slice(2), type: 'TRANSACTION_TYPE_ETHEREUM' },
    },
    { descriptors },
  ).descriptor;
}

describe('clear signing: registry descriptors inside a Safe transaction', () => {
  it('reads a Safe’s inner Uniswap swap by the registry’s descriptor, as the swap alone reads', () => {
    const description = execTransaction(callOf(UNISWAP_SWAP_TX), { descriptors });
    const safe = safeOf(description);

    expect(safe.descriptor?.describedBy).toBe(UNISWAP);
    expect(safe.descriptor?.rendered).toEqual({
      intent: 'swap',
      owner: 'Uniswap Labs',
      fields: [
        { label: 'Send', value: '0.006471375668623977 WETH' },
        { label: 'Minimum to Receive', value: '13.901216 USDT' },
        { label: 'Uniswap fee', value: '0.3%' },
        { label: 'Beneficiary', value: '0xEceD4025456B6c2987faC2e4c829889e681986a7' },
      ],
    });
    expect(safe.descriptor?.rendered).toEqual(directSwap()?.rendered);
    // The decoded call stays: the registry's reading sits beside it, never instead of it.
    expect(safe.call?.selector).toBe('0x04e45aaf');
    // The Safe itself is no contract the registry binds at this address.
    expect(description.descriptor).toBeUndefined();

    const facts = lines(description);
    expect(facts).toContain(`Call.registry reading: swap | described by ${UNISWAP}`);
    expect(facts).toContain('Call.registry reading.Minimum to Receive: 13.901216 USDT');
    expect(facts).toContain('Call.registry reading.Owner: Uniswap Labs');
    expect(facts.some((fact) => fact.startsWith('Call.call: '))).toBe(true);
  });

  it('reads no registry descriptor inside a Safe when none is shipped to the reader', () => {
    const safe = safeOf(execTransaction(callOf(UNISWAP_SWAP_TX), {}));

    expect(safe.descriptor).toBeUndefined();
    expect(safe.call?.selector).toBe('0x04e45aaf');
  });

  it('reads each MultiSend row a descriptor binds by it, and the others as before', () => {
    const swap = callOf(UNISWAP_SWAP_TX);
    const deposit = callOf(GTWETH_DEPOSIT_TX);
    const batch = encodeMultiSendData([
      { to: swap.to, value: '0', data: swap.data, operation: 0 },
      { to: USDC, value: '0', data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 1_500_000n] }), operation: 0 },
      { to: deposit.to, value: '0', data: deposit.data, operation: 0 },
    ]) as Hex;
    const description = execTransaction(
      {
        to: MULTI_SEND_CALL_ONLY_1_4_1,
        data: encodeFunctionData({ abi: SAFE_ABI, functionName: 'multiSend', args: [batch] }),
        operation: 1,
      },
      { descriptors },
    );
    const rows = safeOf(description).call!.batch!;

    expect(rows).toHaveLength(3);
    expect(rows[0]!.descriptor?.describedBy).toBe(UNISWAP);
    expect(rows[0]!.descriptor?.rendered).toEqual(directSwap()?.rendered);
    expect(rows[1]!.descriptor).toBeUndefined();
    expect(rows[1]!.call?.args[1]?.text).toBe('1.5 USDC');
    expect(rows[2]!.descriptor?.describedBy).toBe("the registry's morpho descriptor calldata-gauntlet-gtWETH.json");
    expect(rows[2]!.descriptor?.rendered).toEqual(GTWETH_EXPECTED);

    const facts = lines(description);
    expect(facts).toContain(`Call.call.call 1.registry reading: swap | described by ${UNISWAP}`);
    expect(facts).toContain('Call.call.call 3.registry reading.Deposit asset: 4.5 WETH');
    expect(facts.some((fact) => fact.startsWith('Call.call.call 2.registry reading'))).toBe(false);
  });

  it('reads a SafeTx message’s inner swap by the descriptor, as the execTransaction carrying it reads', () => {
    const swap = callOf(UNISWAP_SWAP_TX);
    const message = {
      to: swap.to,
      value: '0',
      data: swap.data,
      operation: 0,
      safeTxGas: '0',
      baseGas: '0',
      gasPrice: '0',
      gasToken: zeroAddress,
      refundReceiver: zeroAddress,
      nonce: 7,
    };
    const document = generateTypedData({ safeAddress: SAFE, safeVersion: '1.4.1', chainId: 1n, data: message });
    const description = describeSigningRequest(
      {
        operation: 'sign_raw_payload',
        parameters: {
          signWith: SIGNER,
          payload: JSON.stringify(document, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
          encoding: 'PAYLOAD_ENCODING_EIP712',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        },
      },
      { descriptors },
    );
    const safe = (description.details as RawPayloadsDetails).payloads[0]!.typedData!.safeTransaction!;

    expect(safe.descriptor?.describedBy).toBe(UNISWAP);
    expect(safe.descriptor).toEqual(safeOf(execTransaction(swap, { descriptors })).descriptor);
    expect(lines(description)).toContain(`Payload.Safe transaction.registry reading: swap | described by ${UNISWAP}`);
  });
});
