import { parseAbi } from 'viem';

/** The ERC-20 functions the signing tests sign, decode and upload: transfer and approve. */
export const ERC20 = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
]);

/** The same, as the JSON ABI an operator uploads as the token's contract interface. */
export const ERC20_JSON = JSON.stringify(ERC20);
