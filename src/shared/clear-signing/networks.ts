/** Names of networks: Ethereum chains from viem's chain definitions, Bitcoin networks from the signer's address. */
import { Address } from '@scure/btc-signer';
import type { Chain } from 'viem';
import * as viemChains from 'viem/chains';
import { bitcoinNetwork, type BitcoinNetworkName } from '../chains/bitcoin';
import type { Network } from './types';

let chainsById: Map<number, Chain> | undefined;

/** viem lists some chains twice (e.g. a preconfirmation variant with the same id): the first definition names it. */
function chainById(chainId: number): Chain | undefined {
  if (chainsById === undefined) {
    chainsById = new Map();
    for (const candidate of Object.values(viemChains) as unknown[]) {
      const chain = candidate as Chain;
      if (typeof chain === 'object' && chain !== null && typeof chain.id === 'number' && !chainsById.has(chain.id)) chainsById.set(chain.id, chain);
    }
  }
  return chainsById.get(chainId);
}

export function ethereumNetwork(chainId: number | undefined): Network {
  if (chainId === undefined) return { family: 'ethereum', name: 'no chain id (pre-EIP-155: valid on every chain)' };
  const chain = chainById(chainId);
  if (chain === undefined) return { family: 'ethereum', name: `chain ${chainId} (not a chain QuorumKey knows)`, chainId };
  return { family: 'ethereum', name: chain.name, chainId, testnet: chain.testnet === true };
}

export const SOLANA_NETWORK: Network = { family: 'solana', name: 'Solana' };

const BITCOIN_NETWORK_NAMES: Record<BitcoinNetworkName, string> = {
  mainnet: 'Bitcoin mainnet',
  testnet: 'Bitcoin testnet',
  signet: 'Bitcoin signet',
  regtest: 'Bitcoin regtest',
};

export function bitcoinNetworkDescription(name: BitcoinNetworkName): Network {
  return { family: 'bitcoin', name: BITCOIN_NETWORK_NAMES[name], testnet: name !== 'mainnet' };
}

/**
 * The Bitcoin network of the signing address: from its Turnkey address format when the lookup has it, else from the
 * address itself (decoded with each network's parameters); a private key id says nothing, so mainnet is assumed.
 */
export function bitcoinNetworkOf(signWith: string, addressFormat: string | undefined): BitcoinNetworkName {
  if (addressFormat?.startsWith('ADDRESS_FORMAT_BITCOIN_')) {
    const network = addressFormat.split('_')[3]?.toLowerCase();
    if (network === 'mainnet' || network === 'testnet' || network === 'signet' || network === 'regtest') return network;
  }
  for (const name of ['mainnet', 'testnet', 'regtest'] as const) {
    try {
      Address(bitcoinNetwork(name)).decode(signWith);
      return name;
    } catch {
      // Not an address of this network: try the next.
    }
  }
  return 'mainnet';
}
