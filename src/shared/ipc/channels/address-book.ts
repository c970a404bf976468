/** The `addressBook.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { chainId, channel, noInput, tokenAddress } from '../schemas';

/**
 * An address book entry: a name this desktop's operators gave an address of the active organization's dealings, on
 * one EVM chain, Solana or Bitcoin. The name is plain text on one line; main checks the address for its chain.
 */
const addressBookName = z
  .string()
  .trim()
  .min(1, { error: 'a name cannot be empty' })
  .max(64, { error: 'a name is at most 64 characters' })
  .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u, { error: 'a name is one line of plain text, without control or invisible formatting characters' });

export const addressBookKey = z.discriminatedUnion('family', [
  z.strictObject({ family: z.literal('ethereum'), chainId, address: tokenAddress }),
  z.strictObject({ family: z.literal('solana'), address: tokenAddress }),
  z.strictObject({ family: z.literal('bitcoin'), address: tokenAddress }),
]);

export type AddressBookKey = z.infer<typeof addressBookKey>;

export const addressBookEntry = z.discriminatedUnion('family', [
  addressBookKey.options[0].extend({ name: addressBookName }),
  addressBookKey.options[1].extend({ name: addressBookName }),
  addressBookKey.options[2].extend({ name: addressBookName }),
]);

export type AddressBookEntry = z.infer<typeof addressBookEntry>;

export const addressBookChannels = {
  /** The active organization's address book, kept by this desktop; each change answers the whole book. */
  list: channel(noInput, z.array(addressBookEntry)),
  /** Adds a name; an address already in the book (on that chain) or a name already used is refused. */
  add: channel(z.strictObject({ entry: addressBookEntry }), z.array(addressBookEntry)),
  /** Gives the entry at `entry`'s chain and address the name `entry.name`. */
  rename: channel(z.strictObject({ entry: addressBookEntry }), z.array(addressBookEntry)),
  remove: channel(z.strictObject({ entry: addressBookKey }), z.array(addressBookEntry)),
} as const;
