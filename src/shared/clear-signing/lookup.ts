/** What the organization knows about an address or a signer, read from the caller's context. */
import type { Abi } from 'viem';
import { KNOWN_TOKENS } from './known-tokens';
import type { AddressRef, ClearSigningContext, ContractInterface, KnownToken, ResolvedToken, Signer } from './types';

/** Ethereum addresses compare whatever their letter case; Solana and Bitcoin addresses are case-sensitive. */
export type AddressFamily = 'ethereum' | 'solana' | 'bitcoin';

const keyOf = (family: AddressFamily, address: string) => (family === 'ethereum' ? address.toLowerCase() : address);

/** Tokens by chain and address: an ERC-20 address means a token only on its own chain. */
const tokenKey = (token: KnownToken) => (token.family === 'ethereum' ? `ethereum:${token.chainId}:${keyOf('ethereum', token.address)}` : `solana:${token.address}`);

const KNOWN_TOKENS_BY_KEY = new Map(KNOWN_TOKENS.map((token) => [tokenKey(token), token]));

export class Lookup {
  /** Past recipients as each family compares them. */
  private readonly recipients: Record<AddressFamily, Set<string>> | undefined;
  private readonly declaredTokens: Map<string, KnownToken>;

  /** `ethereumChainId`: the chain the request names, which decides what an ERC-20 address is; undefined names none. */
  constructor(
    readonly context: ClearSigningContext,
    readonly ethereumChainId?: number,
  ) {
    this.declaredTokens = new Map((context.tokens ?? []).map((token) => [tokenKey(token), token]));
    const known = context.knownRecipients;
    this.recipients =
      known === undefined
        ? undefined
        : { ethereum: new Set(known.map((address) => keyOf('ethereum', address))), solana: new Set(known), bitcoin: new Set(known) };
  }

  contract(family: AddressFamily, address: string): ContractInterface | undefined {
    const type = family === 'ethereum' ? 'ETHEREUM' : 'SOLANA';
    const key = keyOf(family, address);
    return this.context.contracts?.find((contract) => contract.type === type && keyOf(family, contract.address) === key);
  }

  abi(address: string): Abi | undefined {
    const definition = this.contract('ethereum', address)?.definition;
    return Array.isArray(definition) ? (definition as Abi) : undefined;
  }

  /** The same lookup for a request on `chainId`: ERC-20 tokens are read on that chain. */
  onChain(chainId: number | undefined): Lookup {
    return new Lookup(this.context, chainId);
  }

  /**
   * The token at `address`: the curated list first, then what operators declared. An Ethereum request that names no
   * chain matches no token, since the same address may be another contract elsewhere.
   */
  token(family: AddressFamily, address: string): ResolvedToken | undefined {
    if (family === 'bitcoin') return undefined;
    if (family === 'ethereum' && this.ethereumChainId === undefined) return undefined;
    const key = family === 'ethereum' ? `ethereum:${this.ethereumChainId}:${keyOf(family, address)}` : `solana:${address}`;
    const known = KNOWN_TOKENS_BY_KEY.get(key);
    if (known !== undefined) return { ...known, origin: 'known token list' };
    const declared = this.declaredTokens.get(key);
    return declared === undefined ? undefined : { ...declared, origin: 'declared by an operator' };
  }

  /** The wallet account or private key holding `address`, by name. */
  ownName(family: AddressFamily, address: string): string | undefined {
    const key = keyOf(family, address);
    for (const wallet of this.context.wallets ?? []) {
      const account = wallet.accounts.find((candidate) => keyOf(family, candidate.address) === key);
      if (account !== undefined) return account.path === undefined ? wallet.walletName : `${wallet.walletName} / ${account.path}`;
    }
    return this.context.privateKeys?.find((privateKey) => privateKey.addresses.some((candidate) => keyOf(family, candidate.address) === key))
      ?.privateKeyName;
  }

  /**
   * An address as shown. `calledWithData`: an Ethereum address that receives call data is a contract, "unknown" when
   * no interface was uploaded for it; one that receives only value is a plain address.
   */
  address(family: AddressFamily, address: string, calledWithData = false): AddressRef {
    const contract = this.contract(family, address);
    if (contract !== undefined) return { address, label: contract.label, role: 'contract' };
    const token = this.token(family, address);
    if (token !== undefined) return { address, label: token.symbol, role: 'token' };
    const own = this.ownName(family, address);
    if (own !== undefined) return { address, label: own, role: 'own address' };
    return { address, role: calledWithData ? 'unknown contract' : 'address' };
  }

  /** True when history was supplied and `address` is not in it (nor one of the organization's own). */
  isNewRecipient(family: AddressFamily, address: string): boolean {
    if (this.recipients === undefined) return false;
    if (this.ownName(family, address) !== undefined) return false;
    return !this.recipients[family].has(keyOf(family, address));
  }

  signer(signWith: string): Signer {
    // Only Ethereum addresses ignore letter case; every other address, and a key id, compares exactly.
    const family: AddressFamily = /^0x[0-9a-fA-F]{40}$/.test(signWith) ? 'ethereum' : 'solana';
    const key = keyOf(family, signWith);
    for (const wallet of this.context.wallets ?? []) {
      const account = wallet.accounts.find((candidate) => keyOf(family, candidate.address) === key);
      if (account === undefined) continue;
      return {
        signWith,
        kind: 'wallet account',
        walletId: wallet.walletId,
        walletName: wallet.walletName,
        ...(account.path === undefined ? {} : { path: account.path }),
        ...(account.addressFormat === undefined ? {} : { addressFormat: account.addressFormat }),
        text: account.path === undefined ? wallet.walletName : `${wallet.walletName} / ${account.path}`,
      };
    }
    for (const privateKey of this.context.privateKeys ?? []) {
      const byAddress = privateKey.addresses.find((candidate) => keyOf(family, candidate.address) === key);
      if (privateKey.privateKeyId !== signWith && byAddress === undefined) continue;
      return {
        signWith,
        kind: 'private key',
        privateKeyId: privateKey.privateKeyId,
        privateKeyName: privateKey.privateKeyName,
        ...(byAddress?.addressFormat === undefined ? {} : { addressFormat: byAddress.addressFormat }),
        ...(byAddress === undefined ? { keyAddresses: privateKey.addresses } : {}),
        text: privateKey.privateKeyName,
      };
    }
    return { signWith, kind: 'unknown', text: signWith };
  }
}
