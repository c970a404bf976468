/**
 * ERC-7730 clear-signing descriptors: what the formatter reads (a descriptor whose `includes` are merged, the data a
 * wallet knows about tokens and addresses) and what it answers (the rendered intent, owner and ordered fields, in the
 * shape the registry's conformance fixtures expect).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Where a descriptor comes from in the registry: `registry/<entity>/<file>` or `ercs/<file>`. */
export interface DescriptorSource {
  entity: string;
  file: string;
}

/** A descriptor with its `includes` merged in, as the formatter reads it. */
export interface RegistryDescriptor {
  source: DescriptorSource;
  descriptor: JsonObject;
}

export interface TokenMetadata {
  symbol: string;
  decimals: number;
  name?: string | undefined;
}

/** What the wallet knows beyond the descriptor. Every lookup is local: reading never needs the network. */
export interface Erc7730DataProvider {
  token(chainId: number, address: string): TokenMetadata | undefined;
  /** A trusted name for an address; `sources` limits where it may come from ("local", "ens"). */
  addressName(address: string, sources: readonly string[] | undefined): string | undefined;
  nftCollectionName(chainId: number, address: string): string | undefined;
  /** Unix seconds of a block, for `date` fields encoded as a block height. */
  blockTimestamp(height: bigint): number | undefined;
}

export interface RenderedField {
  label: string;
  /** The formatted value, or the inner call's reading for a `calldata` field. */
  value: string | RenderedOutput;
}

export interface RenderedOutput {
  intent: string;
  interpolatedIntent?: string;
  owner: string;
  fields: RenderedField[];
}

/** The transaction or message around the structured data: the `@` paths. */
export interface Container {
  chainId: number;
  /** The contract called, or the message's verifying contract. */
  to?: string | undefined;
  from?: string | undefined;
  value: bigint;
}

/** A reading of a call or a message with the descriptor that produced it. */
export interface DescriptorReading {
  source: DescriptorSource;
  /** The `display.formats` key that matched: the function signature or the EIP-712 type encoding. */
  format: string;
  rendered: RenderedOutput;
}
