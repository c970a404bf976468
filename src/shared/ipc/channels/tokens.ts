/** The `tokens.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { channel, declaredTokenKey, declaredTokenSchema, noInput, tokenDecimals, tokenSymbol, tokenUnits, unlockPassphrase } from '../schemas';

/** A declaration as the tokens panel lists it: `notRead` says why one imitating a known token is not read. */
const declaredTokenView = z.union([
  declaredTokenSchema.options[0].extend({ notRead: z.string().max(2000).optional() }),
  declaredTokenSchema.options[1].extend({ notRead: z.string().max(2000).optional() }),
]);

export type DeclaredTokenView = z.infer<typeof declaredTokenView>;

/** A token whose amounts read in its units (the known list, then the declarations read), with its warning threshold. */
const tokenCatalogEntry = z.strictObject({
  token: declaredTokenKey,
  symbol: tokenSymbol,
  name: z.string().max(64).optional(),
  decimals: tokenDecimals,
  origin: z.enum(['known token list', 'declared by an operator']),
  /** "Ethereum (chain id 1)", "Solana". */
  network: z.string().max(200),
  /** The large-value threshold set for it, in its units. */
  warnAbove: tokenUnits.optional(),
});

export type TokenCatalogEntry = z.infer<typeof tokenCatalogEntry>;

export const tokensChannels = {
  /** Tokens operators declared (symbol and decimals), app-wide; the built-in known token list is not among them. */
  list: channel(noInput, z.array(declaredTokenView)),
  /** Every token amounts read in units (known list and declarations read), each with its large-value threshold. */
  catalog: channel(noInput, z.array(tokenCatalogEntry)),
  /**
   * Declares a token, or replaces the declaration for the same chain and address; refused for a token on the known list.
   * With an unlock passphrase set, changing the symbol or decimals of a declaration that a threshold or a past activity
   * uses, or removing it, needs `passphrase` (like a widening setting).
   */
  declare: channel(z.strictObject({ token: declaredTokenSchema, passphrase: unlockPassphrase.optional() }), z.array(declaredTokenSchema)),
  remove: channel(z.strictObject({ token: declaredTokenKey, passphrase: unlockPassphrase.optional() }), z.array(declaredTokenSchema)),
} as const;
