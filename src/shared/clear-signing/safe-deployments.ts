/**
 * The Safe MultiSend and MultiSendCallOnly contracts a Safe may DELEGATECALL without the card raising its critical
 * warning: the deployments Safe publishes for versions 1.3.0, 1.4.1 and 1.5.0. Copied from the
 * @safe-global/safe-deployments package (a devDependency) so the window's and the CLI's readers need no copy of its
 * hundreds of networks; test/unit/clear-signing/safe-deployments.test.ts checks this table against the package.
 *
 * The canonical and EIP-155 addresses are CREATE2 deployments of fixed bytecode, so on any chain that address holds
 * that contract or nothing. The zkSync addresses come from zkSync's own address derivation and are listed only for
 * the chains the package names.
 */

export interface MultiSendDeployment {
  contract: 'MultiSend' | 'MultiSendCallOnly';
  version: '1.3.0' | '1.4.1' | '1.5.0';
  /** The address as the package writes it (checksummed). */
  address: string;
  /** Absent: the address is the contract's on every chain. */
  chainIds?: readonly number[];
}

const ZKSYNC_1_3_0 = [232, 240, 280, 282, 300, 324, 388, 2741, 11124, 37111, 50104, 61166, 543210, 810180, 4457845, 531050104];
const ZKSYNC_1_4_1 = [232, 300, 324, 2741, 11124, 50104, 531050104];

export const MULTI_SEND_DEPLOYMENTS: readonly MultiSendDeployment[] = [
  { contract: 'MultiSend', version: '1.3.0', address: '0xA238CBeb142c10Ef7Ad8442C6D1f9E89e07e7761' },
  { contract: 'MultiSend', version: '1.3.0', address: '0x998739BFdAAdde7C933B942a68053933098f9EDa' },
  { contract: 'MultiSend', version: '1.3.0', address: '0x0dFcccB95225ffB03c6FBB2559B530C2B7C8A912', chainIds: ZKSYNC_1_3_0 },
  { contract: 'MultiSendCallOnly', version: '1.3.0', address: '0x40A2aCCbd92BCA938b02010E17A5b8929b49130D' },
  { contract: 'MultiSendCallOnly', version: '1.3.0', address: '0xA1dabEF33b3B82c7814B6D82A79e50F4AC44102B' },
  { contract: 'MultiSendCallOnly', version: '1.3.0', address: '0xf220D3b4DFb23C4ade8C88E526C1353AbAcbC38F', chainIds: ZKSYNC_1_3_0 },
  { contract: 'MultiSend', version: '1.4.1', address: '0x38869bf66a61cF6bDB996A6aE40D5853Fd43B526' },
  { contract: 'MultiSend', version: '1.4.1', address: '0x309D0B190FeCCa8e1D5D8309a16F7e3CB133E885', chainIds: ZKSYNC_1_4_1 },
  { contract: 'MultiSendCallOnly', version: '1.4.1', address: '0x9641d764fc13c8B624c04430C7356C1C7C8102e2' },
  { contract: 'MultiSendCallOnly', version: '1.4.1', address: '0x0408EF011960d02349d50286D20531229BCef773', chainIds: ZKSYNC_1_4_1 },
  { contract: 'MultiSend', version: '1.5.0', address: '0x218543288004CD07832472D464648173c77D7eB7' },
  { contract: 'MultiSendCallOnly', version: '1.5.0', address: '0xA83c336B20401Af773B6219BA5027174338D1836' },
];

/** The MultiSend deployment at `address` on `chainId` (undefined: the request names no chain). */
export function multiSendAt(address: string, chainId: number | undefined): MultiSendDeployment | undefined {
  const key = address.toLowerCase();
  return MULTI_SEND_DEPLOYMENTS.find(
    (deployment) =>
      deployment.address.toLowerCase() === key &&
      (deployment.chainIds === undefined || (chainId !== undefined && deployment.chainIds.includes(chainId))),
  );
}
