/** What the organization knows about an address or a signer, read from the caller's context. */
import type { Abi } from 'viem';
import { KNOWN_TOKENS } from './known-tokens';
import { tokenImitation } from './token-reservation';
import type { AddressRef, ClearSigningContext, ContractInterface, KnownToken, ResolvedToken, Signer, TokenThreshold } from './types';

/** Ethereum addresses compare whatever their letter case; Solana and Bitcoin addresses are case-sensitive. */
export type AddressFamily = 'ethereum' | 'solana' | 'bitcoin';

const keyOf = (family: AddressFamily, address: string) => (family === 'ethereum' ? address.toLowerCase() : address);

/** Tokens by chain and address: an ERC-20 address means a token only on its own chain. */
const tokenKey = (token: KnownToken | TokenThreshold) =>
  token.family === 'ethereum' ? `ethereum:${token.chainId}:${keyOf('ethereum', token.address)}` : `solana:${token.address}`;

const KNOWN_TOKENS_BY_KEY = new Map(KNOWN_TOKENS.map((token) => [tokenKey(token), token]));

export class Lookup {
  /** Past recipients as each family compares them. */
  private readonly recipients: Record<AddressFamily, Set<string>> | undefined;
  private readonly declaredTokens: Map<string, KnownToken>;
  private readonly tokenThresholds: Map<string, bigint>;

  /**
   * `ethereumChainId`: the chain the request names, which decides what an ERC-20 address is; undefined names none.
   * `readWithoutNetwork` collects the Ethereum interfaces that named an address while stating no chain, shared by
   * every lookup of one request so the reader can warn once for each.
   */
  constructor(
    readonly context: ClearSigningContext,
    readonly ethereumChainId?: number,
    readonly readWithoutNetwork = new Set<ContractInterface>(),
  ) {
    // A declaration imitating a known token's symbol or name is never read, whoever passed it in.
    this.declaredTokens = new Map(
      (context.tokens ?? []).filter((token) => tokenImitation(token) === undefined).map((token) => [tokenKey(token), token]),
    );
    this.tokenThresholds = new Map((context.thresholds?.tokens ?? []).map((threshold) => [tokenKey(threshold), threshold.raw]));
    const known = context.knownRecipients;
    this.recipients =
      known === undefined
        ? undefined
        : { ethereum: new Set(known.map((address) => keyOf('ethereum', address))), solana: new Set(known), bitcoin: new Set(known) };
  }

  private interfacesAt(family: AddressFamily, address: string): ContractInterface[] {
    const type = family === 'ethereum' ? 'ETHEREUM' : 'SOLANA';
    const key = keyOf(family, address);
    return (this.context.contracts ?? []).filter((contract) => contract.type === type && keyOf(family, contract.address) === key);
  }

  /**
   * The interface uploaded for `address` on this lookup's chain: an Ethereum one stated for this chain, else one
   * stating no chain; one stated for another chain is never read here.
   */
  contract(family: AddressFamily, address: string): ContractInterface | undefined {
    const candidates = this.interfacesAt(family, address);
    if (family !== 'ethereum') return candidates[0];
    return (
      candidates.find((contract) => contract.chainId !== undefined && contract.chainId === this.ethereumChainId) ??
      candidates.find((contract) => contract.chainId === undefined)
    );
  }

  /** Ethereum interfaces at `address` stated for other chains than this lookup's: named when the call is not decoded. */
  contractsElsewhere(address: string): ContractInterface[] {
    return this.interfacesAt('ethereum', address).filter((contract) => contract.chainId !== undefined && contract.chainId !== this.ethereumChainId);
  }

  /** The ABI the card reads a call to `address` with: the interface for this chain. */
  abi(address: string): Abi | undefined {
    const definition = this.contract('ethereum', address)?.definition;
    return Array.isArray(definition) ? (definition as Abi) : undefined;
  }

  /**
   * The ABI the service's policies decode a call to `address` with: keyed by address alone, the newest upload, as
   * the service reads interfaces, so `eth.tx` reads here as it does there.
   */
  policyAbi(address: string): Abi | undefined {
    const definition = this.interfacesAt('ethereum', address).at(-1)?.definition;
    return Array.isArray(definition) ? (definition as Abi) : undefined;
  }

  /** The large-value threshold set for the token at `address` on this lookup's chain, in its base units. */
  tokenThreshold(family: 'ethereum' | 'solana', address: string): bigint | undefined {
    if (family === 'ethereum' && this.ethereumChainId === undefined) return undefined;
    return this.tokenThresholds.get(family === 'ethereum' ? `ethereum:${this.ethereumChainId}:${keyOf(family, address)}` : `solana:${address}`);
  }

  /** The same lookup for a request on `chainId`: ERC-20 tokens are read on that chain. */
  onChain(chainId: number | undefined): Lookup {
    return new Lookup(this.context, chainId, this.readWithoutNetwork);
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
    if (contract !== undefined) {
      if (family === 'ethereum' && contract.chainId === undefined) this.readWithoutNetwork.add(contract);
      return { address, label: contract.label, role: 'contract' };
    }
    const token = this.token(family, address);
    if (token !== undefined) return { address, label: token.symbol, role: 'token' };
    const own = this.ownName(family, address);
    if (own !== undefined) return { address, label: own, role: 'own address' };
    const role = calledWithData ? 'unknown contract' : 'address';
    const named = this.addressBookName(family, address);
    return named === undefined ? { address, role } : { address, label: named, role };
  }

  /** The name this desktop's address book gives `address`; an Ethereum entry names it on its own chain only. */
  addressBookName(family: AddressFamily, address: string): string | undefined {
    const key = keyOf(family, address);
    return this.context.addressBook?.find(
      (entry) =>
        entry.family === family && keyOf(family, entry.address) === key && (entry.family !== 'ethereum' || entry.chainId === this.ethereumChainId),
    )?.name;
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
