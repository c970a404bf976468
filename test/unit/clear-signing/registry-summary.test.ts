/**
 * A call only the registry read is summed up in its words: the descriptor's intent and owner title the request, and a
 * note saying who read it stands where "unknown contract … cannot be read" stood; the raw facts stay. A descriptor that
 * could not read the call, or an uploaded ABI, leaves the reading as it was. The swap is the registry's own test data
 * (uniswap/tests/calldata-UniswapV3Router02.tests.json, "swap - chain 1"); the permit its permit/testsv2 fixture's.
 */
import { getAddress, parseAbi, parseTransaction, serializeTransaction, type Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { shippedDescriptors, type ShippedDescriptors } from '../../../src/main/clear-signing/shipped-registry';
import {
  describeSigningRequest,
  flatFacts,
  signingFacts,
  type ClearSigningContext,
  type EthereumTransactionDetails,
  type SigningDescription,
} from '../../../src/shared/clear-signing/index.js';

/** exactInputSingle on Uniswap's SwapRouter02: 0.0065 WETH for at least 13.9 USDT, on Ethereum. */
const UNISWAP_SWAP_TX =
  '0x02f9010c010d83989680843b9aca008304e2009468b3465833fb72a70ecdf485e0e4c7bd8665fc4580b8e404e45aaf000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2000000000000000000000000dac17f958d2ee523a2206206994597c13d831ec70000000000000000000000000000000000000000000000000000000000000bb8000000000000000000000000eced4025456b6c2987fac2e4c829889e681986a70000000000000000000000000000000000000000000000000016fdae8fefba690000000000000000000000000000000000000000000000000000000000d41da00000000000000000000000000000000000000000000000000000000000000000c0';
const ROUTER = getAddress('0x68b3465833fb72a70ecdf485e0e4c7bd8665fc45');
const SIGNER = '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23';
const NOTE = `No ABI uploaded for ${ROUTER}; read by the registry's uniswap descriptor calldata-UniswapV3Router02.json; the raw call data is below`;

let descriptors: ShippedDescriptors;
beforeAll(async () => {
  descriptors = await shippedDescriptors();
});

function sign(unsignedTransaction: string, context: ClearSigningContext): SigningDescription {
  return describeSigningRequest(
    {
      operation: 'sign_transaction',
      parameters: { signWith: SIGNER, unsignedTransaction: unsignedTransaction.replace(/^0x/, ''), type: 'TRANSACTION_TYPE_ETHEREUM' },
    },
    context,
  );
}

/** The swap with its call data replaced. */
function withData(data: Hex): string {
  const { chainId, nonce, gas, maxFeePerGas, maxPriorityFeePerGas, to } = parseTransaction(UNISWAP_SWAP_TX as Hex);
  return serializeTransaction({ type: 'eip1559', chainId: chainId!, nonce, gas, maxFeePerGas, maxPriorityFeePerGas, to, data });
}

const kinds = (description: SigningDescription) => description.warnings.map((warning) => warning.kind);
const callOf = (description: SigningDescription) => (description.details as EthereumTransactionDetails).call!;
const lines = (description: SigningDescription) =>
  flatFacts(signingFacts(description)).map((fact) => `${fact.label}: ${fact.value.map((ref) => ref.text).join(' | ')}`);

describe('clear signing: a call only the registry read', () => {
  it('titles the swap by the descriptor’s intent and owner, with a note in place of the unknown-contract warning', () => {
    const description = sign(UNISWAP_SWAP_TX, { descriptors });

    expect(description.summary).toBe(`Swap on Uniswap Labs’ contract ${ROUTER} on Ethereum`);
    expect(kinds(description)).not.toContain('UNKNOWN_CONTRACT');
    expect(description.warnings.map((warning) => warning.message).join(' ')).not.toContain('cannot be read');
    expect(callOf(description).registryNote).toBe(NOTE);
    // The raw facts stay: the router, the call by its selector with the note, the call data.
    const facts = lines(description);
    expect(facts).toContain(`To: ${ROUTER} · unknown contract`);
    expect(facts).toContain(`Call: not decoded (selector 0x04e45aaf) | ${NOTE}`);
    expect(facts.some((fact) => fact.startsWith('Call data: 0x04e45aaf'))).toBe(true);
    expect(facts).toContain("Registry reading: swap | described by the registry's uniswap descriptor calldata-UniswapV3Router02.json");
  });

  it('keeps the unknown-contract warning and the selector title without the registry', () => {
    const description = sign(UNISWAP_SWAP_TX, {});

    expect(description.summary).toBe(`Call 0x04e45aaf on ${ROUTER} on Ethereum`);
    expect(kinds(description)).toContain('UNKNOWN_CONTRACT');
    expect(callOf(description).registryNote).toBeUndefined();
  });

  it('keeps the warning when the descriptor matches the call but cannot read it', () => {
    const { data } = parseTransaction(UNISWAP_SWAP_TX as Hex);
    const description = sign(withData(data!.slice(0, 10 + 64) as Hex), { descriptors });

    expect(description.descriptor?.rendered).toBeUndefined();
    expect(description.descriptor?.problem).toBeDefined();
    expect(kinds(description)).toContain('UNKNOWN_CONTRACT');
    expect(description.summary).toBe(`Call 0x04e45aaf on ${ROUTER} on Ethereum`);
    expect(callOf(description).registryNote).toBeUndefined();
  });

  it('titles the call by the uploaded ABI when there is one, the registry reading beside it', () => {
    const definition = parseAbi([
      'struct Params { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
      'function exactInputSingle(Params params) payable returns (uint256 amountOut)',
    ]);
    const description = sign(UNISWAP_SWAP_TX, {
      descriptors,
      contracts: [{ address: ROUTER, type: 'ETHEREUM', label: 'SwapRouter02', definition, chainId: 1 }],
    });

    expect(description.summary).toBe('Call exactInputSingle on SwapRouter02 on Ethereum');
    expect(callOf(description).decoded).toBe(true);
    expect(callOf(description).registryNote).toBeUndefined();
    expect(description.descriptor?.rendered?.intent).toBe('swap');
  });

  it('titles a typed-data permit by the descriptor’s intent and owner', () => {
    const permit = {
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      domain: { name: 'Arbitrum', version: '1', chainId: 42161, verifyingContract: '0x912ce59144191c1204e64559fe8253a0e49e6548' },
      message: {
        owner: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045',
        spender: '0x1111111254EEB25477B68fb85Ed929f73A960582',
        value: '2500000000000000000000',
        nonce: '7',
        deadline: '1776739200',
      },
    };
    const request = {
      operation: 'sign_raw_payload' as const,
      parameters: {
        signWith: SIGNER,
        payload: JSON.stringify(permit),
        encoding: 'PAYLOAD_ENCODING_EIP712' as const,
        hashFunction: 'HASH_FUNCTION_NO_OP' as const,
      },
    };

    const described = describeSigningRequest(request, { descriptors });
    expect(described.summary).toBe(`Sign EIP-712 Permit for Arbitrum: authorize spending of tokens on ${described.network.name}`);
    expect(describeSigningRequest(request, {}).summary).toBe(`Sign EIP-712 Permit on ${described.network.name}`);
  });
});
