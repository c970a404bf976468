/**
 * The describer's signing hook filled by clear signing (src/shared/clear-signing): signing requests read as what they
 * do, with the organization's wallet and key names. A request clear signing cannot read falls back to the payload.
 */
import { describeSigningActivity, flatSigningFacts, signingFacts, type ClearSigningContext } from '../clear-signing';
import type { OrganizationLookup, SigningDecoder } from './types';

export function clearSigningDecoder(lookup: OrganizationLookup): SigningDecoder {
  const context: ClearSigningContext = {
    wallets: (lookup.wallets ?? []).map((wallet) => ({
      walletId: wallet.walletId,
      walletName: wallet.walletName,
      accounts: (lookup.walletAccounts ?? []).filter((account) => account.walletId === wallet.walletId),
    })),
    privateKeys: (lookup.privateKeys ?? []).map((key) => ({
      privateKeyId: key.privateKeyId,
      privateKeyName: key.privateKeyName,
      addresses: key.addresses.map((address) => ({ address })),
    })),
    tokens: lookup.declaredTokens ?? [],
    contracts: (lookup.contracts ?? []).flatMap((contract) => {
      try {
        return [{ ...contract, definition: JSON.parse(contract.definition) as unknown }];
      } catch {
        // An interface that is not JSON decodes nothing; its address still reads as an unknown contract.
        return [];
      }
    }),
  };
  return (_request, activity) => {
    let description;
    try {
      description = describeSigningActivity(activity, context);
    } catch {
      // Not readable (a malformed payload, a type clear signing does not cover): the raw payload is shown instead.
      return undefined;
    }
    return {
      title: description.title,
      summary: description.summary,
      facts: flatSigningFacts(signingFacts(description)),
      warnings: description.warnings.map((warning) => warning.message),
    };
  };
}
