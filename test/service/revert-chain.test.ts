/** Revert data as Turnkey's `revertChain` entries (src/service/families/revert-chain.ts). */
import { encodeErrorResult, parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { revertEntry } from '../../src/service/families/revert-chain';

const CONTRACT = '0x00000000000000000000000000000000000bad01';

describe('revertEntry', () => {
  it("reads Panic(uint256) as a native panic with its code, and no data as Solidity's bare revert", () => {
    const panic = encodeErrorResult({ abi: parseAbi(['error Panic(uint256)']), errorName: 'Panic', args: [0x11n] });
    expect(revertEntry(CONTRACT, panic)).toEqual({
      address: CONTRACT,
      errorType: 'native',
      displayMessage: 'panic 17',
      native: { nativeType: 'panic', panicCode: '17' },
    });
    expect(revertEntry(CONTRACT, '0x')).toMatchObject({ errorType: 'native', native: { nativeType: 'execution_reverted' } });
  });

  it('keeps a custom error it has no ABI for raw, with its selector', () => {
    const data = encodeErrorResult({ abi: parseAbi(['error Unauthorized(address)']), errorName: 'Unauthorized', args: [CONTRACT] });
    expect(revertEntry(CONTRACT, data)).toEqual({
      address: CONTRACT,
      errorType: 'unknown',
      displayMessage: `reverted with custom error ${data.slice(0, 10)}`,
      unknown: { selector: data.slice(0, 10), data },
    });
  });
});
