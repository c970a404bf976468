/** Ids turned into names from the organization lookup; an id the lookup does not know stays the id. */
import type { OrganizationLookup, PolicyFacts, Ref, UserFacts, WalletFacts, PrivateKeyFacts } from './types';

export class Names {
  constructor(readonly lookup: OrganizationLookup) {}

  findUser(userId: string): UserFacts | undefined {
    return this.lookup.users?.find((user) => user.userId === userId);
  }

  findPolicy(policyId: string): PolicyFacts | undefined {
    return this.lookup.policies?.find((policy) => policy.policyId === policyId);
  }

  findWallet(walletId: string): WalletFacts | undefined {
    return this.lookup.wallets?.find((wallet) => wallet.walletId === walletId);
  }

  findPrivateKey(privateKeyId: string): PrivateKeyFacts | undefined {
    return this.lookup.privateKeys?.find((key) => key.privateKeyId === privateKeyId);
  }

  user(userId: string): Ref {
    return named(this.findUser(userId)?.userName, userId);
  }

  tag(tagId: string): Ref {
    return named(this.lookup.tags?.find((tag) => tag.tagId === tagId)?.tagName, tagId);
  }

  policy(policyId: string): Ref {
    return named(this.findPolicy(policyId)?.policyName, policyId);
  }

  wallet(walletId: string): Ref {
    return named(this.findWallet(walletId)?.walletName, walletId);
  }

  privateKey(privateKeyId: string): Ref {
    return named(this.findPrivateKey(privateKeyId)?.privateKeyName, privateKeyId);
  }

  /** The wallet or private key that holds `address`, if the lookup knows. */
  holderOf(address: string): Ref | undefined {
    const account = this.lookup.walletAccounts?.find((candidate) => candidate.address === address);
    if (account !== undefined) return this.wallet(account.walletId);
    const key = this.lookup.privateKeys?.find((candidate) => candidate.addresses.includes(address));
    return key === undefined ? undefined : this.privateKey(key.privateKeyId);
  }
}

/** A name with its id one click away; without a name, the id itself. */
function named(name: string | undefined, id: string): Ref {
  return name === undefined || name === '' ? { text: id, id, code: true } : { text: name, id };
}
