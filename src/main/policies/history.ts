/**
 * What a rehearsal replays, read through the profile's API client: the recorded activities (newest first, paged, up to
 * `last` or back to `sinceMs`), the per-policy outcomes the service recorded for each, and the organization as it
 * stands (policies, users and their tags, wallets, accounts, private keys, root quorum). Also the draft file's checked shape.
 */
import { z } from 'zod';
import type { Activity, WalletAccount } from '../../shared/api';
import type { policyEvaluation } from '../../shared/api/resources';
import { QkError } from '../../shared/errors';
import type { PolicyEvaluation } from '../../shared/policy';
import type { ApiClient } from '../client/api-client';
import { draftDeletion, draftPolicy, type DraftEntry } from '../../shared/ipc/policy-draft';
import { checkPolicyIds } from './draft';
import { rehearseOffThread } from './off-thread';
import type { RehearsalHistory, RehearsalReport } from './rehearsal';

const PAGE = 100;
/** Evaluations are one query per activity; a few at a time keeps a remote service responsive. */
const EVALUATION_READS_AT_ONCE = 8;

export interface HistoryWindow {
  /** The newest `last` activities. */
  last?: number | undefined;
  /** Activities created at or after this instant (epoch ms). */
  sinceMs?: number | undefined;
}

export async function readRehearsalHistory(client: ApiClient, window: HistoryWindow): Promise<RehearsalHistory> {
  const [activities, policies, users, tags, wallets, walletAccounts, privateKeys, contractInterfaces, configs] = await Promise.all([
    recordedActivities(client, window),
    client.query('list_policies', {}).then((answer) => answer.policies),
    client.query('list_users', {}).then((answer) => answer.users),
    client.query('list_user_tags', {}).then((answer) => answer.userTags),
    client.query('list_wallets', {}).then((answer) => answer.wallets),
    allWalletAccounts(client),
    client.query('list_private_keys', {}).then((answer) => answer.privateKeys),
    client.query('list_smart_contract_interfaces', {}).then((answer) => answer.smartContractInterfaces),
    client.query('get_organization_configs', {}),
  ]);
  const recordedEvaluations = new Map<string, PolicyEvaluation[]>();
  for (let start = 0; start < activities.length; start += EVALUATION_READS_AT_ONCE) {
    await Promise.all(
      activities.slice(start, start + EVALUATION_READS_AT_ONCE).map(async (activity) => {
        const { policyEvaluations } = await client.query('get_policy_evaluations', { activityId: activity.id });
        const latest = policyEvaluations.at(-1);
        if (latest !== undefined) recordedEvaluations.set(activity.id, evaluationsOf(latest));
      }),
    );
  }
  return {
    activities,
    recordedEvaluations,
    policies,
    users,
    tags,
    wallets,
    walletAccounts,
    privateKeys,
    contractInterfaces,
    rootQuorum: configs.configs.quorum ?? { userIds: [], threshold: 1 },
  };
}

function evaluationsOf(recorded: z.infer<typeof policyEvaluation>): PolicyEvaluation[] {
  return recorded.policyEvaluations.flatMap(({ policyId, outcome }) =>
    policyId === undefined || outcome === undefined ? [] : [{ policyId, outcome: outcome as PolicyEvaluation['outcome'] }],
  );
}

/** Every wallet account, page by page: an unpaged read answers only the service's first page. */
async function allWalletAccounts(client: ApiClient): Promise<WalletAccount[]> {
  const accounts: WalletAccount[] = [];
  for (;;) {
    const after = accounts.at(-1)?.walletAccountId;
    const { accounts: page } = await client.query('list_wallet_accounts', {
      paginationOptions: { limit: String(PAGE), ...(after === undefined ? {} : { after }) },
    });
    accounts.push(...page);
    if (page.length < PAGE) return accounts;
  }
}

async function recordedActivities(client: ApiClient, { last, sinceMs }: HistoryWindow): Promise<Activity[]> {
  const found: Activity[] = [];
  let before: string | undefined;
  for (;;) {
    const { activities } = await client.query('list_activities', {
      paginationOptions: { limit: String(PAGE), ...(before === undefined ? {} : { before }) },
    });
    for (const activity of activities) {
      if (sinceMs !== undefined && Number(activity.createdAt.seconds) * 1000 < sinceMs) return found;
      found.push(activity);
      if (last !== undefined && found.length >= last) return found;
    }
    if (activities.length < PAGE) return found;
    before = activities.at(-1)?.id;
  }
}

/** A policy as `get_policies` returns it: the fields the service adds to a drafted policy are accepted and dropped. */
const draftFilePolicy = draftPolicy
  .extend({ organizationId: z.string().optional(), createdAt: z.unknown().optional(), updatedAt: z.unknown().optional() })
  .transform(({ organizationId: _organization, createdAt: _created, updatedAt: _updated, ...policy }) => policy);
const draftList = z.array(z.unknown()).min(1, 'the draft has no policies');
/** An entry with `deleted` is a deletion, any other a policy: each is checked by its own shape so errors name its field. */
const draftEntrySchema = (entry: unknown) => (typeof entry === 'object' && entry !== null && 'deleted' in entry ? draftDeletion : draftFilePolicy);

/**
 * The draft file's text as entries, or REQUEST_INVALID naming the bad field (e.g. `[1].effect`); ids are checked
 * against `currentPolicyIds` when given (`rehearsePolicies` checks them against the policies it reads).
 */
export function parseDraft(text: string, currentPolicyIds: readonly string[] | undefined): DraftEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new QkError('REQUEST_INVALID', `draft: not JSON: ${(error as Error).message}`, { field: 'draft' });
  }
  const list = draftList.safeParse(json);
  if (!list.success) throw draftError([], list.error.issues[0]!);
  const entries: DraftEntry[] = list.data.map((item, index) => {
    const parsed = draftEntrySchema(item).safeParse(item);
    if (!parsed.success) throw draftError([index], parsed.error.issues[0]!);
    return parsed.data;
  });
  if (currentPolicyIds !== undefined) checkPolicyIds(entries, currentPolicyIds);
  return entries;
}

function draftError(prefix: PropertyKey[], issue: z.core.$ZodIssue): QkError {
  const field = [...prefix, ...issue.path]
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
    .join('')
    .replace(/^\./, '');
  return new QkError('REQUEST_INVALID', `draft${field === '' ? '' : ` ${field}`}: ${issue.message}`, { field: field === '' ? 'draft' : field });
}

/** Reads the history through `client` and rehearses the draft against it on a worker thread. */
export async function rehearsePolicies(client: ApiClient, draft: readonly DraftEntry[], window: HistoryWindow): Promise<RehearsalReport> {
  const history = await readRehearsalHistory(client, window);
  checkPolicyIds(
    draft,
    history.policies.map((policy) => policy.policyId),
  );
  return rehearseOffThread(history, draft);
}
