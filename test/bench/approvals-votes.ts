/**
 * Requests per vote: one approval on the Approvals screen, through the e2e host (the built renderer in the system's
 * Chromium, main's real handlers, a real Sandbox; keys in memory), counted from the click until everything it set off
 * has settled. Prints the service requests and IPC calls beside their budget and any question asked twice. Run
 * `npx electron-vite build` first: the host serves out/renderer.
 */
import { chromium } from '@playwright/test';
import { findChromium } from '../support/chromium.js';
import { startE2eHost } from '../support/e2e-host.js';
import { MemoryStore } from '../support/memory-secret-store.js';
import { approveOnScreen, VOTE_BUDGET, WALLET_VOTE_OUTCOME, walletWaitingOnBea } from '../support/vote-scenario.js';

export interface ApprovalVotesResult {
  requests: number;
  calls: number;
  repeated: number;
  withinBudget: boolean;
}

export async function run(): Promise<ApprovalVotesResult> {
  const host = await startE2eHost({ secretStore: new MemoryStore() });
  const browser = await chromium.launch({
    executablePath: findChromium(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await host.installBridge(page);
    await page.goto(host.url);
    await walletWaitingOnBea(page, host);
    const cost = await approveOnScreen(page, host, WALLET_VOTE_OUTCOME);
    const result: ApprovalVotesResult = {
      requests: cost.requests.length,
      calls: cost.calls.length,
      repeated: cost.repeated.length,
      withinBudget: cost.requests.length <= VOTE_BUDGET.requests && cost.calls.length <= VOTE_BUDGET.calls && cost.repeated.length === 0,
    };
    console.log(
      `one vote on the Approvals screen (2 of 3, still waiting): ${result.requests} service requests (goal ≤ ${VOTE_BUDGET.requests}), ` +
        `${result.calls} IPC calls (goal ≤ ${VOTE_BUDGET.calls}), ${result.repeated} asked twice (goal 0)` +
        (result.withinBudget ? ': met' : ': NOT met'),
    );
    console.log(`  ${cost.summary}`);
    return result;
  } finally {
    await browser.close();
    // The Sandbox stops before the host removes its data dir.
    await host.services.close();
    await host.close();
  }
}
