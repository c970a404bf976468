import { encodeFunctionData, getAddress, parseAbi, serializeTransaction, type Hex } from 'viem';

/** USDC on Ethereum, and a payroll address it is sent to in the specs that read a large transfer. */
export const USDC = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
export const PAYROLL = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
export const ERC20 = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);

/** An unsigned EIP-1559 transaction on Ethereum mainnet calling USDC's transfer of `baseUnits` (6 decimals) to payroll. */
export function unsignedUsdcTransfer(baseUnits: bigint): Hex {
  return serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 3,
    to: USDC,
    value: 0n,
    data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [PAYROLL, baseUnits] }),
    gas: 60_000n,
    maxFeePerGas: 20_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
}
