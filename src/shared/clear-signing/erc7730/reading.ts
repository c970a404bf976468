/**
 * The registry's reading of a signing request, beside the decoded one: an Ethereum transaction's call, or an EIP-712
 * payload, looked up in the shipped ERC-7730 descriptors. Token units come from the same lookup as the rest of the
 * card (the known list, then tokens operators declared, then the descriptor's own token); names from the
 * organization's keys. A descriptor that matches but cannot read the request says why instead of guessing.
 */
import { getAddress } from 'viem';
import type { Lookup } from '../lookup';
import type { RawPayloadsDetails } from '../types';
import type { DescriptorIndex } from './registry';
import { readCall, readTypedData, type CallInput, type TypedDataInput } from './render';
import type { DescriptorSource, Erc7730DataProvider, RenderedOutput } from './types';

/** The shipped descriptors and the registry commit they were taken from. */
export interface Erc7730Descriptors {
  index: DescriptorIndex;
  registryCommit: string;
}

export interface DescriptorSection {
  /** "the registry's uniswap descriptor calldata-UniswapV3Router02.json" */
  describedBy: string;
  source: DescriptorSource;
  registryCommit: string;
  /** Absent when the descriptor matched but could not read the request: `problem` says why. */
  rendered?: RenderedOutput;
  problem?: string;
}

function provider(lookup: Lookup): Erc7730DataProvider {
  return {
    token: (chainId, address) => {
      const token = lookup.onChain(chainId).token('ethereum', address);
      return token === undefined ? undefined : { symbol: token.symbol, decimals: token.decimals, name: token.name };
    },
    // Only names the organization gave (its keys and uploaded interfaces): the registry reading never looks one up.
    addressName: (address) => lookup.ownName('ethereum', address) ?? lookup.contract('ethereum', address)?.label,
    nftCollectionName: () => undefined,
    blockTimestamp: () => undefined,
  };
}

function describedBy(source: DescriptorSource): string {
  return source.entity === 'ercs' ? `the registry's generic ${source.file} descriptor` : `the registry's ${source.entity} descriptor ${source.file}`;
}

function attempt(
  descriptors: Erc7730Descriptors,
  read: () => { source: DescriptorSource; rendered: RenderedOutput } | undefined,
): DescriptorSection | undefined {
  try {
    const reading = read();
    if (reading === undefined) return undefined;
    return {
      describedBy: describedBy(reading.source),
      source: reading.source,
      registryCommit: descriptors.registryCommit,
      rendered: reading.rendered,
    };
  } catch (error) {
    return {
      describedBy: 'a registry descriptor',
      source: { entity: '', file: '' },
      registryCommit: descriptors.registryCommit,
      problem: (error as Error).message,
    };
  }
}

/**
 * The descriptor reading of one call, when a shipped descriptor binds its contract on its chain: the transaction's
 * own, or one a Safe or a batch makes (`from` is then the account the call comes from).
 */
export function callDescriptor(call: CallInput, lookup: Lookup, descriptors: Erc7730Descriptors): DescriptorSection | undefined {
  if (call.data.length < 10) return undefined;
  return attempt(descriptors, () => readCall(descriptors.index, call, provider(lookup)));
}

/** The descriptor reading of each EIP-712 payload a shipped descriptor binds by its domain. */
export function typedDataDescriptor(
  details: RawPayloadsDetails,
  signWith: string,
  lookup: Lookup,
  descriptors: Erc7730Descriptors,
): DescriptorSection | undefined {
  const [payload] = details.payloads;
  if (details.payloads.length !== 1 || payload?.typedData === undefined) return undefined;
  let typedData: TypedDataInput;
  try {
    typedData = JSON.parse(payload.text ?? payload.payload) as TypedDataInput;
  } catch {
    return undefined;
  }
  const from = /^0x[0-9a-fA-F]{40}$/.test(signWith) ? getAddress(signWith) : undefined;
  return attempt(descriptors, () => readTypedData(descriptors.index, typedData, provider(lookup), from));
}
