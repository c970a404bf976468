/**
 * An Anvil chain with a token to simulate against: Uniswap V2's test ERC-20 (precompiled in @uniswap/v2-core, so no
 * compiler runs) deployed by Anvil's first account, which holds its whole supply, and contracts that revert with given
 * data (a panic, a custom error) put in place with `anvil_setCode`.
 */
import { createRequire } from 'node:module';
import { createTestClient, createWalletClient, http, publicActions, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { startAnvil, type Anvil } from './anvil';

/** Anvil's first account (its well-known development key): the deployer and the signer the tests simulate as. */
export const SIGNER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
/** Anvil's second account: a recipient and a spender. */
export const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
/** The token's supply, all of it the signer's: 1,000,000 with 18 decimals. */
export const SUPPLY = 10n ** 24n;

const uniswapErc20 = createRequire(import.meta.url)('@uniswap/v2-core/build/ERC20.json') as { abi: Abi; bytecode: string };
export const TOKEN_ABI = uniswapErc20.abi;

export interface SimulationChain {
  anvil: Anvil;
  token: Hex;
  /** Puts a contract at `address` that reverts with `data` whatever it is called with. */
  revertingContract(address: Hex, data: Hex): Promise<void>;
  stop(): void;
}

export async function startSimulationChain(): Promise<SimulationChain> {
  const anvil = await startAnvil();
  try {
    const client = createWalletClient({ account: SIGNER, chain: foundry, transport: http(anvil.url) }).extend(publicActions);
    const bytecode = (uniswapErc20.bytecode.startsWith('0x') ? uniswapErc20.bytecode : `0x${uniswapErc20.bytecode}`) as Hex;
    const hash = await client.deployContract({ abi: TOKEN_ABI, bytecode, args: [SUPPLY] });
    const { contractAddress } = await client.waitForTransactionReceipt({ hash });
    const test = createTestClient({ mode: 'anvil', chain: foundry, transport: http(anvil.url) });
    return {
      anvil,
      token: contractAddress!,
      revertingContract: (address, data) => test.setCode({ address, bytecode: revertingWith(data) }),
      stop: () => void anvil.process.kill('SIGKILL'),
    };
  } catch (error) {
    anvil.process.kill('SIGKILL');
    throw error;
  }
}

/** Runtime code that copies `data` into memory a word at a time (PUSH32, MSTORE) and reverts with it. */
function revertingWith(data: Hex): Hex {
  const bytes = data.slice(2);
  const length = bytes.length / 2;
  // One-byte offsets (PUSH1) are enough for the revert data of the tests.
  if (length > 255) throw new Error(`revert data of ${length} bytes is longer than this helper writes`);
  let code = '';
  for (let offset = 0; offset < length; offset += 32) {
    code += `7f${bytes.slice(offset * 2, offset * 2 + 64).padEnd(64, '0')}60${offset.toString(16).padStart(2, '0')}52`;
  }
  return `0x${code}60${length.toString(16).padStart(2, '0')}6000fd`;
}
