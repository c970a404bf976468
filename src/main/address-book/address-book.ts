/**
 * The address book: names this desktop's operators give addresses, per organization (an Ethereum address per chain),
 * kept by the app in `<dataDir>/address-book.json`. Clear signing names these addresses on the card and in the
 * confirmation, and counts them as known when it looks for look-alikes. Names come only from here and from the
 * organization's own data, never from a service's free text.
 */
import { join } from 'node:path';
import { Address } from '@scure/btc-signer';
import { isAddress as isSolanaAddress } from '@solana/kit';
import { getAddress, isAddress } from 'viem';
import { z } from 'zod';
import { bitcoinNetwork } from '../../shared/chains/bitcoin';
import { QkError } from '../../shared/errors';
import { addressBookEntry, addressBookKey, describeIssues, type AddressBookEntry, type AddressBookKey } from '../../shared/ipc/contract';
import { JsonFile } from '../storage/json-file';

/** Enough for any organization's counterparties, small enough that every card reads the whole book at once. */
export const MAX_ENTRIES_PER_ORGANIZATION = 1_000;
/** Organizations this desktop keeps a book for. */
export const MAX_ORGANIZATIONS = 200;

const organizationIdSchema = z.string().min(1).max(128);
const storedSchema = z.strictObject({
  organizations: z
    .record(organizationIdSchema, z.array(addressBookEntry).max(MAX_ENTRIES_PER_ORGANIZATION))
    .refine((books) => Object.keys(books).length <= MAX_ORGANIZATIONS, { error: `at most ${MAX_ORGANIZATIONS} organizations` }),
});
type Stored = z.infer<typeof storedSchema>;

function invalid(field: string, message: string): QkError {
  return new QkError('REQUEST_INVALID', `${field}: ${message}`, { field });
}

/** Where an entry is, in words: "0xAbC… on chain id 1", "… on Solana". */
export function placeWords(key: AddressBookKey): string {
  return key.family === 'ethereum'
    ? `${key.address} on chain id ${key.chainId}`
    : `${key.address} on ${key.family === 'solana' ? 'Solana' : 'Bitcoin'}`;
}

/**
 * The address as stored: checksummed for Ethereum, a bech32 Bitcoin address in lower case, anything else exactly as
 * given (base58 is case-sensitive). An address that is not one of its chain's is refused.
 */
function canonicalKey(key: AddressBookKey): AddressBookKey {
  const shown = JSON.stringify(key.address.slice(0, 80));
  switch (key.family) {
    case 'ethereum':
      if (!isAddress(key.address, { strict: false })) throw invalid('address', `${shown} is not an Ethereum address (0x and 40 hex digits)`);
      return { ...key, address: getAddress(key.address) };
    case 'solana':
      if (!isSolanaAddress(key.address)) throw invalid('address', `${shown} is not a Solana address (base58, 32 bytes)`);
      return key;
    case 'bitcoin': {
      const address = /^(?:bc|tb|bcrt)1/i.test(key.address) ? key.address.toLowerCase() : key.address;
      if (!isBitcoinAddress(address)) throw invalid('address', `${shown} is not a Bitcoin address of mainnet, testnet, signet or regtest`);
      return { ...key, address };
    }
  }
}

function isBitcoinAddress(address: string): boolean {
  return (['mainnet', 'testnet', 'regtest'] as const).some((network) => {
    try {
      Address(bitcoinNetwork(network)).decode(address);
      return true;
    } catch {
      return false;
    }
  });
}

const sameKey = (a: AddressBookKey, b: AddressBookKey) =>
  a.family === b.family && a.address === b.address && (a.family !== 'ethereum' || b.family !== 'ethereum' || a.chainId === b.chainId);

/** Names compare without letter case: "Alice" and "alice" would read as the same counterparty. */
const sameName = (a: string, b: string) => a.toLocaleLowerCase('en') === b.toLocaleLowerCase('en');

function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new QkError('REQUEST_INVALID', `${what}: ${describeIssues(result.error)}`, { field: what });
  return result.data;
}

export class AddressBook {
  private readonly file: JsonFile<Stored>;

  constructor({ dataDir }: { dataDir: string }) {
    this.file = new JsonFile(join(dataDir, 'address-book.json'), storedSchema);
  }

  /** The organization's entries, in the order they were added. */
  async list(organizationId: string): Promise<AddressBookEntry[]> {
    return bookOf((await this.file.read())?.organizations ?? {}, organizationId);
  }

  /** Adds a name; an address already named (on that chain) or a name already given is refused, naming the other. */
  async add(organizationId: string, given: AddressBookEntry): Promise<AddressBookEntry[]> {
    const entry = canonicalEntry(given);
    return this.change(organizationId, (entries) => {
      const named = entries.find((existing) => sameKey(existing, entry));
      if (named !== undefined) throw invalid('address', `${placeWords(entry)} is already in the address book as “${named.name}”`);
      refuseTakenName(entries, entry);
      if (entries.length >= MAX_ENTRIES_PER_ORGANIZATION) {
        throw new QkError(
          'LIMIT_EXCEEDED',
          `the address book holds at most ${MAX_ENTRIES_PER_ORGANIZATION} addresses per organization; remove one first`,
        );
      }
      return [...entries, entry];
    });
  }

  /** Gives the entry at `given`'s chain and address the name `given.name`. */
  async rename(organizationId: string, given: AddressBookEntry): Promise<AddressBookEntry[]> {
    const entry = canonicalEntry(given);
    return this.change(organizationId, (entries) => {
      if (!entries.some((existing) => sameKey(existing, entry))) throw notFound(entry);
      refuseTakenName(
        entries.filter((existing) => !sameKey(existing, entry)),
        entry,
      );
      return entries.map((existing) => (sameKey(existing, entry) ? entry : existing));
    });
  }

  /** Removes an entry; one that is not there is an error naming it, so a stale screen learns it. */
  async remove(organizationId: string, given: AddressBookKey): Promise<AddressBookEntry[]> {
    const key = canonicalKey(parsed(addressBookKey, given, 'entry'));
    return this.change(organizationId, (entries) => {
      if (!entries.some((existing) => sameKey(existing, key))) throw notFound(key);
      return entries.filter((existing) => !sameKey(existing, key));
    });
  }

  private change(organizationId: string, next: (entries: AddressBookEntry[]) => AddressBookEntry[]): Promise<AddressBookEntry[]> {
    const id = parsed(organizationIdSchema, organizationId, 'organizationId');
    return this.file.update(async (current) => {
      const organizations = current?.organizations ?? {};
      if (!Object.hasOwn(organizations, id) && Object.keys(organizations).length >= MAX_ORGANIZATIONS) {
        throw new QkError('LIMIT_EXCEEDED', `this desktop keeps address books for at most ${MAX_ORGANIZATIONS} organizations`);
      }
      const entries = next(bookOf(organizations, id));
      return { next: { organizations: { ...organizations, [id]: entries } }, result: entries };
    });
  }
}

/** `given` checked as the channel checks it (a direct caller included), with its address as stored. */
function canonicalEntry(given: AddressBookEntry): AddressBookEntry {
  const entry = parsed(addressBookEntry, given, 'entry');
  return { ...entry, address: canonicalKey(keyOf(entry)).address };
}

/** An organization's entries; an id such as "__proto__" reads only an own entry, never an object's inherited member. */
function bookOf(organizations: Stored['organizations'], organizationId: string): AddressBookEntry[] {
  return Object.hasOwn(organizations, organizationId) ? (organizations[organizationId] ?? []) : [];
}

function keyOf(entry: AddressBookEntry): AddressBookKey {
  return entry.family === 'ethereum'
    ? { family: entry.family, chainId: entry.chainId, address: entry.address }
    : { family: entry.family, address: entry.address };
}

function refuseTakenName(others: readonly AddressBookEntry[], entry: AddressBookEntry): void {
  const taken = others.find((existing) => sameName(existing.name, entry.name));
  if (taken !== undefined) throw invalid('name', `the name “${entry.name}” is already given to ${placeWords(taken)}`);
}

function notFound(key: AddressBookKey): QkError {
  return new QkError('NOT_FOUND', `${placeWords(key)} is not in the address book`, { address: key.address });
}
