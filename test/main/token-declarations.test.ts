/**
 * Issue 36, finding 2: a page changed what the last click shows about a token with no passphrase. Declaring a
 * token's decimals again (6 → 18) turned a 5,000 ACME transfer into "0.000000005 ACME" and dropped its large-value
 * warning, and removing the declaration dropped the warning too, while lowering the same threshold through
 * app.setSettings asked for the passphrase. Now thresholds hold in base units, changing or removing a declaration a
 * threshold or a past activity uses is a widening (passphrase, journaled), and the confirmation says when a token's
 * declaration changed since the organization last used it. Through the dispatcher, as a compromised page calls it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeFunctionData, serializeTransaction } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelInput } from '../../src/shared/ipc/contract';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ERC20 } from '../support/erc20';

const PASSPHRASE = 'correct horse battery staple';
const ACME = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
const RECIPIENT = '0x1111111111111111111111111111111111111111';
const ACME_KEY = { family: 'ethereum', chainId: 1, address: ACME } as const;
const acme = (decimals: number) => ({ ...ACME_KEY, symbol: 'ACME', decimals });

let bed: DispatchBed;
let signWith: string;

beforeEach(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-token-declarations-' });
  await bed.call('sandbox.start', {});
  const wallet = await bed.call('wallets.create', {
    name: 'payouts',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  if (wallet.state !== 'completed') throw new Error(`create wallet is ${wallet.state}`);
  signWith = wallet.result.addresses[0]!;
});

afterEach(() => bed.close());

/** A transfer of `baseUnits` of ACME on Ethereum, as the Sign screen sends it. */
function acmeTransfer(baseUnits: bigint, nonce = 0): ChannelInput<'signing.preview'>['request'] {
  const unsignedTransaction = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce,
    to: ACME,
    value: 0n,
    data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [RECIPIENT, baseUnits] }),
    gas: 60_000n,
    maxFeePerGas: 20_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  return { operation: 'sign_transaction', signWith, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' };
}

const FIVE_THOUSAND_ACME = 5_000_000_000n;

interface JournalReading {
  title: string;
  summary: string;
  facts: { label: string; value: string }[];
  warnings: string[];
  verdict: string;
}

/** The readings of the journal's widened-settings records, as written to the file. */
async function widenedRecords(): Promise<JournalReading[]> {
  const text = await readFile(join(bed.dataDir, 'journal.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { action: string; reading: JournalReading })
    .filter((entry) => entry.action === 'settings.widened')
    .map((entry) => entry.reading);
}

describe('issue 36, finding 2: a page changes what the last click shows about a token, with no passphrase', () => {
  it('declaring a thresholded token’s decimals again needs the passphrase, and its large-value warning holds in base units', async () => {
    await bed.call('tokens.declare', { token: acme(6) });
    await bed.call('app.setSettings', { tokenWarnAbove: [{ token: ACME_KEY, amount: '1,000' }] });
    expect((await bed.call('app.getSettings', {})).tokenWarnAbove).toEqual([{ token: ACME_KEY, baseUnits: '1000000000' }]);
    const before = await bed.call('signing.preview', { request: acmeTransfer(FIVE_THOUSAND_ACME) });
    expect(before.description.summary).toContain('5,000 ACME');
    expect(before.description.warnings.map(({ message }) => message).join('\n')).toMatch(/Large transfer/);
    await bed.call('app.setUnlockPassphrase', { passphrase: PASSPHRASE });

    const refused = await bed.dispatch('tokens.declare', { token: acme(18) });
    expect(refused).toMatchObject({ ok: false, error: { code: 'PASSPHRASE_REQUIRED' } });
    if (refused.ok) throw new Error('unreachable');
    expect(refused.error.message).toBe(
      `declaring the token at ${ACME} on Ethereum (chain id 1) as ACME with 18 decimals instead of ACME with 6 decimals, ` +
        'used by the large-transfer warning at 1000 ACME: enter the unlock passphrase to confirm',
    );
    expect(await bed.call('tokens.list', {})).toEqual([acme(6)]);
    expect(await widenedRecords()).toEqual([]);

    expect(await bed.call('tokens.declare', { token: acme(18), passphrase: PASSPHRASE })).toEqual([acme(18)]);
    expect(await widenedRecords()).toEqual([
      {
        title: 'Token declaration changed',
        summary: `Token ${ACME} on Ethereum (chain id 1)`,
        facts: [
          { label: `Token ${ACME} on Ethereum (chain id 1)`, value: 'ACME with 6 decimals → ACME with 18 decimals' },
          { label: 'Used by', value: 'the large-transfer warning at 1000 ACME' },
        ],
        warnings: [],
        verdict: 'saved',
      },
    ]);

    // The same base units read in the new decimals, and the threshold, in base units, still flags them.
    const after = await bed.call('signing.preview', { request: acmeTransfer(FIVE_THOUSAND_ACME) });
    expect(after.description.summary).toContain('0.000000005 ACME');
    expect(after.description.warnings.map(({ message }) => message).join('\n')).toMatch(/Large transfer/);
    expect((await bed.call('tokens.catalog', {})).find((token) => token.token.address === ACME)?.warnAbove).toBe('0.000000001');
  });

  it('removing a declaration a threshold uses needs the passphrase, and is journaled', async () => {
    await bed.call('tokens.declare', { token: acme(6) });
    await bed.call('app.setSettings', { tokenWarnAbove: [{ token: ACME_KEY, amount: '1000' }] });
    await bed.call('app.setUnlockPassphrase', { passphrase: PASSPHRASE });

    expect(await bed.dispatch('tokens.remove', { token: ACME_KEY })).toMatchObject({ ok: false, error: { code: 'PASSPHRASE_REQUIRED' } });
    expect(await bed.dispatch('tokens.remove', { token: ACME_KEY, passphrase: 'not it' })).toMatchObject({
      ok: false,
      error: { code: 'PASSPHRASE_INVALID' },
    });
    expect(await bed.call('tokens.list', {})).toEqual([acme(6)]);

    expect(await bed.call('tokens.remove', { token: ACME_KEY, passphrase: PASSPHRASE })).toEqual([]);
    expect((await widenedRecords()).map(({ title, facts }) => [title, facts[0]?.value])).toEqual([
      ['Token declaration removed', 'ACME with 6 decimals → not declared'],
    ]);
  });

  it('a declaration a past activity used needs the passphrase too, and the confirmation says it changed since', async () => {
    await bed.call('tokens.declare', { token: acme(6) });
    await bed.call('app.setUnlockPassphrase', { passphrase: PASSPHRASE });
    const first = await bed.call('signing.submit', { request: acmeTransfer(FIVE_THOUSAND_ACME) });
    expect(first.state).toBe('completed');
    expect(bed.confirmations.at(-1)?.reading?.warnings.join('\n') ?? '').not.toMatch(/declaration/);

    const refused = await bed.dispatch('tokens.declare', { token: acme(18) });
    expect(refused).toMatchObject({ ok: false, error: { code: 'PASSPHRASE_REQUIRED' } });
    if (refused.ok) throw new Error('unreachable');
    expect(refused.error.message).toMatch(/, used by past activity of an organization on this desktop: /);
    await bed.call('tokens.declare', { token: acme(18), passphrase: PASSPHRASE });

    await bed.call('signing.submit', { request: acmeTransfer(FIVE_THOUSAND_ACME, 1) });
    const warnings = bed.confirmations.at(-1)?.reading?.warnings ?? [];
    expect(warnings.find((warning) => warning.startsWith('The declaration of the token'))).toMatch(
      new RegExp(
        `^The declaration of the token at ${ACME} on Ethereum \\(chain id 1\\) changed since this organization last used it ` +
          '\\(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\): then ACME with 6 decimals, now ACME with 18 decimals\\.$',
      ),
    );
  });

  it('asks nothing for a declaration nothing uses, nor for a new name alone', async () => {
    await bed.call('app.setUnlockPassphrase', { passphrase: PASSPHRASE });
    await bed.call('tokens.declare', { token: acme(6) });
    await bed.call('tokens.declare', { token: acme(18) });
    await bed.call('app.setSettings', { tokenWarnAbove: [{ token: ACME_KEY, amount: '1000' }] });
    expect(await bed.call('tokens.declare', { token: { ...acme(18), name: 'Acme Corp' } })).toEqual([{ ...acme(18), name: 'Acme Corp' }]);
    expect(await widenedRecords()).toEqual([]);
  });

  it('migrates thresholds a settings file holds in the token’s units to base units, with the decimals of its first read', async () => {
    await bed.call('tokens.declare', { token: acme(6) });
    const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
    const legacy = [
      { token: ACME_KEY, amount: '1000.5' },
      { token: { family: 'ethereum', chainId: 1, address: USDC }, amount: '10000' },
      // Not in force before (more decimals than its token has, a token no longer declared): left out.
      { token: { family: 'ethereum', chainId: 1, address: USDC.toLowerCase() }, amount: '0.0000001' },
      { token: { family: 'ethereum', chainId: 8453, address: ACME }, amount: '5' },
    ];
    await writeFile(join(bed.dataDir, 'settings.json'), JSON.stringify({ idleLockMinutes: 15, tokenWarnAbove: legacy }));
    const migrated = [
      { token: ACME_KEY, baseUnits: '1000500000' },
      { token: { family: 'ethereum', chainId: 1, address: USDC }, baseUnits: '10000000000' },
    ];
    expect(await bed.call('app.getSettings', {})).toMatchObject({ idleLockMinutes: 15, tokenWarnAbove: migrated });
    expect(JSON.parse(await readFile(join(bed.dataDir, 'settings.json'), 'utf8'))).toEqual({ idleLockMinutes: 15, tokenWarnAbove: migrated });
  });
});
