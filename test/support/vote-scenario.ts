/**
 * One vote on the Approvals screen, set up and counted through the e2e host: the spec that holds it to its budget
 * (test/e2e/vote-cost.spec.ts) and `npm run bench -- approvals`, which prints it beside the budget. Plain Playwright
 * calls only, so a bench outside the test runner can use it too.
 */
import type { Locator, Page } from '@playwright/test';
import { ApiClient } from '../../src/main/client/api-client';
import type { Profile } from '../../src/main/profiles/profiles';
import { Stamper } from '../../src/main/stamper/stamper';
import type { E2eHost } from './e2e-host';
import type { TrafficCost, TrafficRecorder } from './traffic-recorder';

/** What one vote may cost after the click: the vote, the enclave's proof and at most two reads; three IPC calls. */
export const VOTE_BUDGET = { requests: 4, calls: 3 } as const;

export const ETHEREUM_WALLET_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

export interface VoteDesk {
  /** The root user's client, on the Sandbox profile's key. */
  root: ApiClient;
  rootUserId: string;
  sandbox: Profile;
  /** The users created for `names`, with a profile each on the root organization, in the order of `names`. */
  userIds: string[];
  profiles: Profile[];
}

/** Starts the Sandbox and adds users `names`, each with a keychain key and a profile of their own. */
export async function voteDesk(page: Page, host: E2eHost, names: readonly string[]): Promise<VoteDesk> {
  const { info } = await host.services.sandbox.start();
  const { rootUserId, organizationId, enclaveSignerPublicKey, baseUrl } = info;
  const sandbox = (await host.services.profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain) });
  const keys = await Promise.all(names.map((name) => host.services.keychain.generateApiKey({ name, curve: 'p256' })));
  const created = await root.submit('create_users', {
    users: keys.map(({ name, publicKey }) => ({
      userName: name,
      apiKeys: [{ apiKeyName: name, publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
      authenticators: [],
      oauthProviders: [],
      userTags: [],
    })),
  });
  if (created.state !== 'completed') throw new Error(`creating ${names.join(', ')} is ${created.state}`);
  const profiles = await Promise.all(
    names.map((name) => host.services.profiles.add({ name, kind: 'hosted', baseUrl, organizationId, apiKeyName: name, enclaveSignerPublicKey })),
  );
  return { root, rootUserId, sandbox, userIds: created.result.userIds, profiles };
}

/**
 * Waits until nothing is in flight, then makes a round trip through the page (which delivers whatever calls it had
 * queued before) and waits again, until a round trip finds nothing new.
 */
export async function settle(page: Page, traffic: TrafficRecorder): Promise<void> {
  for (;;) {
    await traffic.whenQuiet();
    await page.evaluate(() => new Promise((next) => setTimeout(next, 0)));
    if (traffic.quiet()) return;
  }
}

/** Shows profile `profile`'s Approvals screen with its only waiting activity open, every read of it done. */
export async function openWaiting(page: Page, host: E2eHost, profile: Profile, title: string): Promise<Locator> {
  await host.services.profiles.setActive(profile.id);
  await page.reload();
  await page.getByText(`Profile: ${profile.name}`).waitFor();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Approvals', exact: true }).click();
  await page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem').getByRole('button').click();
  const detail = page.getByRole('region', { name: title, exact: true });
  await detail.getByRole('button', { name: 'Approve…' }).waitFor();
  await settle(page, host.traffic);
  return detail;
}

/**
 * Clicks Approve on the open activity (main's confirmation answered as the host is told, Continue by default), waits
 * until the screen says `outcome` and everything the vote set off has settled, and answers what it cost.
 */
export async function approveOnScreen(page: Page, host: E2eHost, outcome: string): Promise<TrafficCost> {
  const mark = host.traffic.mark();
  await page.getByRole('button', { name: 'Approve…' }).click();
  await page.getByRole('status', { name: 'Your vote' }).filter({ hasText: outcome }).waitFor();
  await settle(page, host.traffic);
  return host.traffic.cost(mark);
}

/** Root user, Bea and Cy in a 3-of-3 root quorum; the root proposes a wallet, shown open on Bea's Approvals screen. */
export async function walletWaitingOnBea(page: Page, host: E2eHost): Promise<void> {
  const { root, rootUserId, userIds, profiles } = await voteDesk(page, host, ['Bea', 'Cy']);
  const quorum = await root.submit('update_root_quorum', { threshold: 3, userIds: [rootUserId, ...userIds] });
  if (quorum.state !== 'completed') throw new Error(`the root quorum change is ${quorum.state}`);
  const proposed = await root.submit('create_wallet', { walletName: 'Reserve', accounts: [ETHEREUM_WALLET_ACCOUNT] });
  if (proposed.state !== 'consensus-needed') throw new Error(`the wallet creation is ${proposed.state}`);
  await openWaiting(page, host, profiles[0]!, 'Create a wallet');
}

/** The outcome Bea's approval of the wallet shows: two of three approved, still waiting. */
export const WALLET_VOTE_OUTCOME = 'Approved — 2 approved so far; it still waits for votes.';
