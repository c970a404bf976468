import { getMultiSendCallOnlyDeployments, getMultiSendDeployments } from '@safe-global/safe-deployments';
import { describe, expect, it } from 'vitest';
import { MULTI_SEND_DEPLOYMENTS, multiSendAt, type MultiSendDeployment } from '../../../src/shared/clear-signing/safe-deployments.js';

/** The table as the package describes it: every deployment type's address, zkSync's with the chains it is on. */
function fromPackage(): MultiSendDeployment[] {
  const contracts = [
    ['MultiSend', getMultiSendDeployments],
    ['MultiSendCallOnly', getMultiSendCallOnlyDeployments],
  ] as const;
  return (['1.3.0', '1.4.1', '1.5.0'] as const).flatMap((version) =>
    contracts.flatMap(([contract, deployments]) => {
      const found = deployments({ version, released: true });
      if (found === undefined) throw new Error(`the package has no ${contract} ${version}`);
      return Object.entries(found.deployments).map(([type, { address }]) => {
        const chainIds = Object.entries(found.networkAddresses)
          .filter(([, addresses]) => ([] as string[]).concat(addresses).includes(address))
          .map(([chainId]) => Number(chainId))
          .sort((a, b) => a - b);
        return { contract, version, address, ...(type === 'zksync' ? { chainIds } : {}) };
      });
    }),
  );
}

describe('Safe MultiSend deployments', () => {
  it('are exactly those @safe-global/safe-deployments lists for 1.3.0, 1.4.1 and 1.5.0', () => {
    const sorted = (table: readonly MultiSendDeployment[]) =>
      table.map((entry) => ({ ...entry, ...(entry.chainIds === undefined ? {} : { chainIds: [...entry.chainIds].sort((a, b) => a - b) }) }));
    expect(sorted(MULTI_SEND_DEPLOYMENTS)).toEqual(expect.arrayContaining(fromPackage()));
    expect(MULTI_SEND_DEPLOYMENTS).toHaveLength(fromPackage().length);
  });

  it('names a canonical address on any chain, a zkSync one only on its chains, whatever the letter case', () => {
    expect(multiSendAt('0x38869bf66a61cf6bdb996a6ae40d5853fd43b526', 8453)).toMatchObject({ contract: 'MultiSend', version: '1.4.1' });
    expect(multiSendAt('0x309D0B190FeCCa8e1D5D8309a16F7e3CB133E885', 324)).toMatchObject({ contract: 'MultiSend', version: '1.4.1' });
    expect(multiSendAt('0x309D0B190FeCCa8e1D5D8309a16F7e3CB133E885', 1)).toBeUndefined();
    expect(multiSendAt('0x309D0B190FeCCa8e1D5D8309a16F7e3CB133E885', undefined)).toBeUndefined();
    expect(multiSendAt('0x96221423681A6d52E184D440a8eFCEbB105C7242', 1)).toBeUndefined();
  });
});
