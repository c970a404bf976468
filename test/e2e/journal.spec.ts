/**
 * The journal end to end: the root of the Sandbox approves a transfer another operator proposed, exports a wallet and
 * reveals its mnemonic, and changes a policy, each confirmed on main's surface (the host plays the person). The
 * Journal screen then shows each of the three readings exactly as that confirmation showed it; the journal is
 * exported from the screen and verified by the CLI, as an auditor would (`npm run --silent cli -- journal verify`),
 * and a copy with one line edited is refused with that entry named.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { parseEther, serializeTransaction } from 'viem';
import { ApiClient } from '../../src/main/client/api-client';
import type { Reading } from '../../src/main/confirmation/confirmation';
import { JOURNAL_EXPORTS_DIR } from '../../src/main/services';
import { Stamper } from '../../src/main/stamper/stamper';
import { AWS_NITRO_ROOT } from '../../src/shared/journal/attestations';
import type { E2eHost } from '../support/e2e-host';
import { done, expect, openScreen, screenshotBothThemes, startSandbox, test } from './fixtures';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TRANSFER_POLICY = 'two approvers for transfers';

/**
 * Through the service's API, outside this desktop's journal: a second operator, a wallet, a policy that makes a
 * transfer wait for two approvers, and that operator's proposal of a 1.5 ETH transfer, waiting for the root's vote.
 */
async function proposedTransfer(page: Page, host: E2eHost): Promise<void> {
  await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const stamper = new Stamper(host.services.keychain);
  const root = new ApiClient({ profile: sandbox, stamper });
  const key = await host.services.keychain.generateApiKey({ name: 'Operator A', curve: 'p256' });
  await done(
    root.submit('create_users', {
      users: [
        {
          userName: 'Operator A',
          apiKeys: [{ apiKeyName: 'Operator A', publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    }),
  );
  const { addresses } = await done(
    root.submit('create_wallet', {
      walletName: 'treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    }),
  );
  await done(
    root.submit('create_policy', {
      policyName: TRANSFER_POLICY,
      effect: 'EFFECT_ALLOW',
      condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
      consensus: 'approvers.count() >= 2',
      notes: '',
    }),
  );
  // Operator A signs with their own key, from no profile of this desktop.
  const operator = new ApiClient({ profile: { ...sandbox, apiKeyName: 'Operator A' }, stamper });
  const unsignedTransaction = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 3,
    to: RECIPIENT,
    value: parseEther('1.5'),
    gas: 21_000n,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  const proposal = await operator.submit('sign_transaction', { signWith: addresses[0]!, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' });
  expect(proposal.state).toBe('consensus-needed');
}

/** The reading main's confirmation showed for the one stamp that matches. */
function shown(host: E2eHost, matches: (reading: Reading) => boolean): Reading {
  const readings = host.confirmations.flatMap((confirmation) => (confirmation.reading === undefined ? [] : [confirmation.reading]));
  const found = readings.filter(matches);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** A definition list as the window shows it, one "label: value" line per dt/dd pair. */
function definitionLines(list: Locator): Promise<string[]> {
  return list.evaluate((element) =>
    [...element.querySelectorAll('dt')].map((term) => `${term.textContent ?? ''}: ${term.nextElementSibling?.textContent ?? ''}`),
  );
}

/**
 * Opens the journal's entry for `reading` and checks that it shows what the confirmation showed: title, summary, every
 * fact and change before → after, warnings, the verdict and what the stamp still needed.
 */
async function expectEntryAsShown(page: Page, reading: Reading, outcome: string): Promise<Locator> {
  const row = page.getByRole('table', { name: 'Journal entries' }).getByRole('row').filter({ hasText: reading.title });
  await expect(row).toHaveCount(1);
  await row.getByRole('button', { name: /^Open entry / }).click();
  const entry = page.getByRole('dialog');
  await expect(entry.getByRole('heading', { level: 2 })).toHaveText(`Entry ${await row.getByRole('cell').first().innerText()}: ${reading.title}`);
  await expect(entry).toContainText(reading.summary);
  const lines = await definitionLines(entry.getByLabel('Reading as shown'));
  expect(lines).toEqual([
    // Who stamped, as whom and where, and what a vote did: main's vote reading, as the confirmation showed it.
    ...(reading.voter === undefined ? [] : [`${reading.action === 'submit' ? 'Submitted as' : 'Voted as'}: ${reading.voter}`]),
    ...(reading.voteDoes === undefined ? [] : [`What the vote did: ${reading.voteDoes}`]),
    ...[...reading.facts, ...reading.changes].map((line) => line.trim()),
    `Still needed when confirmed: ${reading.stillNeeded}`,
    `Outcome: ${outcome}`,
    `Verdict: ${reading.verdict}`,
  ]);
  const warnings = entry.getByRole('list', { name: 'Warnings shown' }).getByRole('listitem');
  await expect(warnings).toHaveText([...reading.warnings]);
  return entry;
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run --silent cli -- ARGS`, as an auditor types it; the verifier needs no data dir, network or keychain. */
function cli(args: string[]): Promise<CliRun> {
  return new Promise((finish) => {
    execFile('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: REPO_ROOT }, (error, stdout, stderr) => {
      finish({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
    });
  });
}

test('approve a transfer, export and reveal, change a policy: the Journal shows each reading as confirmed, and the CLI verifies its export', async ({
  page,
  host,
}) => {
  test.setTimeout(150_000);
  await proposedTransfer(page, host);

  // 1. The root approves Operator A's transfer.
  await openScreen(page, 'Approvals');
  const row = page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem');
  await expect(row).toContainText('Sign an Ethereum transaction');
  await row.getByRole('button').click();
  // The page asks nothing of its own: main's confirmation (answered by the host) is the one question.
  await page.getByRole('button', { name: 'Approve…' }).click();
  await expect(page.getByText('Nothing is waiting for votes.')).toBeVisible();

  // 2. An export to a key of this keychain, revealed on screen.
  await openScreen(page, 'Keys');
  await page.getByRole('form', { name: 'Create encryption key' }).getByLabel('Name').fill('audit desk');
  await page.getByRole('button', { name: 'Create encryption key' }).click();
  await expect(page.getByRole('table', { name: 'Encryption keys' }).getByRole('row', { name: /audit desk/ })).toBeVisible();
  await openScreen(page, 'Wallets');
  await page.getByRole('article', { name: 'Wallet treasury' }).getByRole('button', { name: 'Export treasury…' }).click();
  const exporting = page.getByRole('dialog', { name: 'Export wallet treasury' });
  await exporting.getByLabel('Encrypt to').selectOption('audit desk');
  await exporting.getByRole('button', { name: 'Export and reveal' }).click();
  await exporting.getByRole('button', { name: 'Hold or click to reveal' }).click();
  const words = exporting.getByRole('list', { name: 'Mnemonic words' }).locator('code');
  await expect(words.first()).not.toHaveText('•••••');
  const mnemonic = (await words.allInnerTexts()).join(' ');
  await exporting.getByRole('button', { name: 'Hide and forget' }).click();
  await page.keyboard.press('Escape');
  await expect(exporting).toBeHidden();

  // 3. The transfer policy now needs three approvers.
  await openScreen(page, 'Policies');
  await page.getByRole('button', { name: `Edit ${TRANSFER_POLICY}` }).click();
  const editing = page.getByRole('form', { name: `Edit policy ${TRANSFER_POLICY}` });
  await editing.getByLabel('Consensus').fill('approvers.count() >= 3');
  await editing.getByRole('button', { name: 'Review changes…' }).click();
  await page.getByRole('dialog', { name: 'Review the update' }).getByRole('button', { name: 'Submit update' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Update policy ${TRANSFER_POLICY}: done.` })).toBeVisible();

  // What the person was shown on main's surface for each of the three stamps.
  const vote = shown(host, (reading) => reading.action === 'approve');
  expect(vote.summary).toContain('1.5 ETH');
  const exported = shown(host, (reading) => reading.activityType === 'ACTIVITY_TYPE_EXPORT_WALLET');
  const policyChange = shown(host, (reading) => reading.activityType.startsWith('ACTIVITY_TYPE_UPDATE_POLICY'));
  expect(policyChange.changes).toContainEqual(expect.stringContaining('approvers.count() >= 3'));

  await openScreen(page, 'Journal');
  const entries = page.getByRole('table', { name: 'Journal entries' }).getByRole('row');
  // The header, then newest first: the policy change, the reveal, the export, the vote, and the journal's start.
  await expect(entries).toHaveCount(6);
  await expect(entries.nth(1)).toContainText('activity.submitted');
  await expect(entries.nth(2)).toContainText('export.revealed');
  await expect(entries.nth(3)).toContainText('activity.submitted');
  await expect(entries.nth(4)).toContainText('vote.approved');
  await expect(entries.nth(5)).toContainText('journal.started');
  await expect(page.getByRole('status', { name: 'Journal verification' })).toHaveText('5 entries verified.');
  await screenshotBothThemes(page, 'journal');

  const voteEntry = await expectEntryAsShown(page, vote, 'completed');
  await expect(voteEntry.getByRole('definition').filter({ hasText: /^sha256:[0-9a-f]{64}$/ })).toHaveCount(1);
  await screenshotBothThemes(page, 'journal-entry');
  await page.keyboard.press('Escape');
  await expectEntryAsShown(page, exported, 'completed');
  await page.keyboard.press('Escape');
  const policyEntry = await expectEntryAsShown(page, policyChange, 'completed');
  await expect(policyEntry.getByRole('definition').filter({ hasText: "Sandbox, this desktop's own service" })).toHaveCount(1);
  await page.keyboard.press('Escape');

  // Export the whole journal (no dates), then verify it offline as an auditor would.
  await page.getByRole('button', { name: 'Export these dates' }).click();
  const written = page.getByRole('status').filter({ hasText: /entries in / });
  await expect(written).toContainText('5 entries in ');
  const [, file, checkpoint] = /entries in (\S+), with its checkpoint (\S+)$/.exec((await written.innerText()).trim()) ?? [];
  expect(file?.startsWith(join(host.services.dataDir, JOURNAL_EXPORTS_DIR))).toBe(true);
  const text = await readFile(file!, 'utf8');
  expect(text).not.toContain(mnemonic);

  // The service's proofs verify under the Sandbox's own root, which an auditor does not pin unless given it.
  const valid = await cli(['journal', 'verify', file!]);
  expect(valid.code).toBe(0);
  expect(valid.stderr).toContain('which is not pinned; pass --attestation-root');
  expect(JSON.parse(valid.stdout)).toMatchObject({ valid: true, entries: 5, attestationRoots: [{ entries: 3, pinnedAs: null }] });
  const extending = await cli(['journal', 'verify', file!, '--checkpoint', checkpoint!]);
  expect(extending.code).toBe(0);

  // One line edited, as someone rewriting what the approver saw: 1.5 ETH made 0.5 ETH.
  const lines = text.split('\n');
  const voteLine = lines.findIndex((line) => line.includes('"action":"vote.approved"'));
  expect(lines[voteLine]).toContain('1.5 ETH');
  lines[voteLine] = lines[voteLine]!.replaceAll('1.5 ETH', '0.5 ETH');
  const tamperedFile = join(host.services.dataDir, 'tampered.jsonl');
  await writeFile(tamperedFile, lines.join('\n'));
  const tampered = await cli(['journal', 'verify', tamperedFile]);
  expect(tampered.code).toBe(1);
  expect(tampered.stderr).toContain(`entry ${voteLine} (line ${voteLine + 1})`);

  // Settings shows the auditor the key the export was verified with, and the Sandbox's root to pin.
  await openScreen(page, 'Settings');
  const journalKeyPanel = page.getByRole('region', { name: 'Journal key' });
  await expect(journalKeyPanel.locator('code').first()).toHaveText((JSON.parse(valid.stdout) as { journalKey: string }).journalKey);
  const [{ fingerprint: sandboxRoot }] = (JSON.parse(valid.stdout) as { attestationRoots: [{ fingerprint: string }] }).attestationRoots;
  expect(await definitionLines(journalKeyPanel.getByLabel('Attestation roots'))).toEqual([
    `AWS Nitro Enclaves: ${AWS_NITRO_ROOT.fingerprint}CopyQR`,
    `Sandbox, this desktop's own service: ${sandboxRoot}CopyQR`,
  ]);
  const pinned = await cli(['journal', 'verify', file!, '--attestation-root', sandboxRoot]);
  expect(pinned.stderr).toBe('');
  expect(JSON.parse(pinned.stdout)).toMatchObject({ attestationRoots: [{ fingerprint: sandboxRoot, pinnedAs: 'given with --attestation-root' }] });

  // The desktop's own journal edited in place: the Journal screen says where it broke and shows only what verified.
  const live = join(host.services.dataDir, 'journal.jsonl');
  const liveLines = (await readFile(live, 'utf8')).split('\n');
  const revealLine = liveLines.findIndex((line) => line.includes('"action":"export.revealed"'));
  liveLines[revealLine] = liveLines[revealLine]!.replace('"verdict":"revealed"', '"verdict":"not revealed"');
  await writeFile(live, liveLines.join('\n'));
  await page.reload();
  await openScreen(page, 'Journal');
  await expect(page.getByRole('alert', { name: 'Journal verification' })).toContainText(
    `The journal does not verify: entry ${revealLine} (line ${revealLine + 1})`,
  );
  await expect(entries).toHaveCount(1 + revealLine);
  await screenshotBothThemes(page, 'journal-tampered');
});
