/** The address book: names per organization, checked, bounded, stored in the data directory, renamed and removed. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAddress } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AddressBook, MAX_ENTRIES_PER_ORGANIZATION, MAX_ORGANIZATIONS } from '../../src/main/address-book/address-book';
import { QkError } from '../../src/shared/errors';
import type { AddressBookEntry } from '../../src/shared/ipc/contract';

const ORG = 'org-1';
const OTHER_ORG = 'org-2';
const PAYROLL = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
const DESK = 'So11111111111111111111111111111111111111112';
const COLD = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

let dataDir: string;
let book: AddressBook;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-address-book-'));
  book = new AddressBook({ dataDir });
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function refusal(promise: Promise<unknown>): Promise<QkError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(QkError);
  return error as QkError;
}

describe('address book', () => {
  it('keeps entries per organization: Ethereum checksummed per chain, Solana as given, bech32 in lower case', async () => {
    expect(await book.list(ORG)).toEqual([]);
    await book.add(ORG, { family: 'ethereum', chainId: 1, address: PAYROLL.toLowerCase(), name: 'Payroll' });
    await book.add(ORG, { family: 'ethereum', chainId: 8453, address: PAYROLL, name: 'Payroll on Base' });
    await book.add(ORG, { family: 'solana', address: DESK, name: 'OTC desk' });
    const entries = await book.add(ORG, { family: 'bitcoin', address: COLD.toUpperCase(), name: '  Cold storage ' });
    expect(entries).toEqual([
      { family: 'ethereum', chainId: 1, address: PAYROLL, name: 'Payroll' },
      { family: 'ethereum', chainId: 8453, address: PAYROLL, name: 'Payroll on Base' },
      { family: 'solana', address: DESK, name: 'OTC desk' },
      { family: 'bitcoin', address: COLD, name: 'Cold storage' },
    ]);
    expect(await book.list(OTHER_ORG)).toEqual([]);
    // A new instance reads the same file.
    expect(await new AddressBook({ dataDir }).list(ORG)).toEqual(entries);
  });

  it('refuses a duplicate address on the same chain and a name already given, naming the other entry', async () => {
    await book.add(ORG, { family: 'ethereum', chainId: 1, address: PAYROLL, name: 'Payroll' });
    const address = await refusal(book.add(ORG, { family: 'ethereum', chainId: 1, address: PAYROLL.toLowerCase(), name: 'Salaries' }));
    expect(address.code).toBe('REQUEST_INVALID');
    expect(address.message).toBe(`address: ${PAYROLL} on chain id 1 is already in the address book as “Payroll”`);
    const name = await refusal(book.add(ORG, { family: 'solana', address: DESK, name: 'payroll' }));
    expect(name.message).toBe(`name: the name “payroll” is already given to ${PAYROLL} on chain id 1`);
    // Another organization has its own book.
    expect(await book.add(OTHER_ORG, { family: 'ethereum', chainId: 1, address: PAYROLL, name: 'Payroll' })).toHaveLength(1);
  });

  it('refuses bad addresses and names with a specific error', async () => {
    const cases: [AddressBookEntry, RegExp][] = [
      [{ family: 'ethereum', chainId: 1, address: '0x1234', name: 'Short' }, /^address: "0x1234" is not an Ethereum address/],
      [{ family: 'solana', address: PAYROLL, name: 'Wrong chain' }, /^address: ".*" is not a Solana address \(base58, 32 bytes\)$/],
      [{ family: 'bitcoin', address: DESK, name: 'Not bitcoin' }, /^address: ".*" is not a Bitcoin address/],
      [{ family: 'ethereum', chainId: 1, address: PAYROLL, name: '   ' }, /a name cannot be empty/],
      [{ family: 'ethereum', chainId: 1, address: PAYROLL, name: 'x'.repeat(65) }, /a name is at most 64 characters/],
      [{ family: 'ethereum', chainId: 1, address: PAYROLL, name: 'Payroll\nPolicy verdict: allowed' }, /one line of plain text/],
      [{ family: 'ethereum', chainId: 1, address: PAYROLL, name: 'Pay\u202eroll' }, /one line of plain text/],
      [{ family: 'ethereum', chainId: 0, address: PAYROLL, name: 'Chain zero' }, /chainId/],
    ];
    for (const [entry, message] of cases) {
      const error = await refusal(book.add(ORG, entry));
      expect(error.code).toBe('REQUEST_INVALID');
      expect(error.message).toMatch(message);
    }
    expect(await book.list(ORG)).toEqual([]);
    const organization = await refusal(book.add('x'.repeat(129), { family: 'solana', address: DESK, name: 'Desk' }));
    expect(organization.message).toMatch(/^organizationId: /);
  });

  it('renames an entry (its own name again is fine, another entry’s is not) and removes it', async () => {
    await book.add(ORG, { family: 'ethereum', chainId: 1, address: PAYROLL, name: 'Payroll' });
    await book.add(ORG, { family: 'solana', address: DESK, name: 'OTC desk' });
    expect(await book.rename(ORG, { family: 'ethereum', chainId: 1, address: PAYROLL.toLowerCase(), name: 'PAYROLL' })).toContainEqual({
      family: 'ethereum',
      chainId: 1,
      address: PAYROLL,
      name: 'PAYROLL',
    });
    expect((await refusal(book.rename(ORG, { family: 'solana', address: DESK, name: 'payroll' }))).message).toMatch(/already given/);
    const missing = await refusal(book.rename(ORG, { family: 'ethereum', chainId: 10, address: PAYROLL, name: 'Payroll' }));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toBe(`${PAYROLL} on chain id 10 is not in the address book`);
    expect(await book.remove(ORG, { family: 'ethereum', chainId: 1, address: PAYROLL })).toEqual([
      { family: 'solana', address: DESK, name: 'OTC desk' },
    ]);
    expect((await refusal(book.remove(ORG, { family: 'ethereum', chainId: 1, address: PAYROLL }))).code).toBe('NOT_FOUND');
  });

  it('holds at most its bound of entries per organization and of organizations', async () => {
    const full = Array.from({ length: MAX_ENTRIES_PER_ORGANIZATION }, (_, index) => ({
      family: 'ethereum' as const,
      chainId: 1,
      address: getAddress(`0x${(index + 1).toString(16).padStart(40, '0')}`),
      name: `Entry ${index}`,
    }));
    const organizations = Object.fromEntries(Array.from({ length: MAX_ORGANIZATIONS }, (_, index) => [`org-${index}`, []]));
    await writeFile(join(dataDir, 'address-book.json'), JSON.stringify({ organizations: { ...organizations, [ORG]: full } }));
    const tooMany = await refusal(book.add(ORG, { family: 'solana', address: DESK, name: 'One more' }));
    expect(tooMany.code).toBe('LIMIT_EXCEEDED');
    expect(tooMany.message).toBe(`the address book holds at most ${MAX_ENTRIES_PER_ORGANIZATION} addresses per organization; remove one first`);
    const newOrganization = await refusal(book.add('org-new', { family: 'solana', address: DESK, name: 'Desk' }));
    expect(newOrganization.code).toBe('LIMIT_EXCEEDED');
    expect(newOrganization.message).toBe(`this desktop keeps address books for at most ${MAX_ORGANIZATIONS} organizations`);
  });

  it('refuses a file edited to hold a bad entry rather than reading it', async () => {
    const file = join(dataDir, 'address-book.json');
    await writeFile(file, JSON.stringify({ organizations: { [ORG]: [{ family: 'ethereum', chainId: 1, address: PAYROLL, name: 'Pay\nroll' }] } }));
    const error = await refusal(book.list(ORG));
    expect(error.code).toBe('FILE_ERROR');
    expect(error.message).toContain('does not have the expected structure');
    expect(JSON.parse(await readFile(file, 'utf8'))).toHaveProperty('organizations');
  });
});
