/** Names of networks: Ethereum chains from viem's chain definitions, Bitcoin networks from the signer's address. */
import { Address } from '@scure/btc-signer';
import type { Chain } from 'viem';
import * as viemChains from 'viem/chains';
import { bitcoinNetwork, bitcoinNetworkOfFormat, type BitcoinNetworkName } from '../chains/bitcoin';
import type { Network, Signer } from './types';

let chainsById: Map<number, Chain> | undefined;

/** viem lists some chains twice (e.g. a preconfirmation variant with the same id): the first definition names it. */
export function chainById(chainId: number): Chain | undefined {
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
  if (chainId === undefined) return { family: 'ethereum', name: 'every chain (no EIP-155 chain id: the signature can be replayed on any chain)' };
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
 * The Bitcoin network the service decodes a PSBT for, by its rule: the Turnkey address format of the address
 * `signWith` names, or for a private key named by its id the first Bitcoin format among its addresses; mainnet when
 * none is a Bitcoin format. An address whose format the lookup lacks is read with each network's parameters.
 */
export function bitcoinNetworkOf(signer: Signer): BitcoinNetworkName {
  const candidates = signer.keyAddresses ?? [{ address: signer.signWith, addressFormat: signer.addressFormat }];
  for (const { address, addressFormat } of candidates) {
    const network = addressFormat === undefined ? networkOfAddress(address) : bitcoinNetworkOfFormat(addressFormat);
    if (network !== undefined) return network;
  }
  return 'mainnet';
}

function networkOfAddress(address: string): BitcoinNetworkName | undefined {
  for (const name of ['mainnet', 'testnet', 'regtest'] as const) {
    try {
      Address(bitcoinNetwork(name)).decode(address);
      return name;
    } catch {
      // Not an address of this network: try the next.
    }
  }
  return undefined;
}
