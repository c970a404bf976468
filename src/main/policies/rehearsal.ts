/**
 * Policy rehearsal (docs/service.md#policy-rehearsal): replays the organization's recorded activities with the shared
 * policy engine, vote by vote as the votes came (the proposer's approval alone, then each further one). First against
 * the policies and root quorum of the day, to check the replay reproduces what the service recorded (every activity
 * it does not reproduce is reported, with why); then against today's policies and the draft, listing each activity
 * whose outcome, or number of approvals needed, changes, with the policies responsible. Users, tags, wallets and
 * policies are named, never shown by id. Pure over a `RehearsalHistory` snapshot; `history.ts` reads one through the
 * API client.
 */
import type { Abi } from 'viem';
import {
  timestampMs,
  type Activity,
  type Policy,
  type PrivateKey,
  type SmartContractInterface,
  type Tag,
  type User,
  type Vote,
  type Wallet,
  type WalletAccount,
} from '../../shared/api';
import { countingApprovals } from '../../shared/approvals/voting';
import { decodeEthereumTransaction } from '../../shared/chains/ethereum';
import { bitcoinNetworkOfFormats, decodeBitcoinPsbt } from '../../shared/chains/bitcoin';
import { prepareRawPayload, type HashFunction, type PayloadEncoding } from '../../shared/chains/raw-payload';
import { decodeSolanaTransaction } from '../../shared/chains/solana';
import { hexToBytes } from '../../shared/crypto/encoding';
import { describeActivity, type OrganizationLookup } from '../../shared/describe';
import { signingDecoder } from '../activities/readings';
import { contractsForReading } from '../signing/organization';
import type { DraftEntry } from '../../shared/ipc/policy-draft';
import { applyDraft, type DraftedPolicy } from './draft';
import { policyNamesOf } from './policy-words';
import {
  conditionContextOf,
  decide,
  type Authorization,
  type EngineApprover,
  type EnginePolicy,
  type PolicyEvaluation,
  type PolicyUser,
} from '../../shared/policy';

/** What the service answered when the activity was recorded (denied requests are never recorded). */
export type RecordedOutcome = 'allowed' | 'consensus-needed';
export type ReplayedOutcome = 'allowed' | 'consensus-needed' | 'denied' | 'not-replayable';

export interface RehearsalHistory {
  activities: readonly Activity[];
  /** Per activity id, the policy outcomes the service recorded for its latest vote (get_policy_evaluations). */
  recordedEvaluations: ReadonlyMap<string, readonly PolicyEvaluation[]>;
  policies: readonly Policy[];
  users: readonly User[];
  /** User tags: what readings and reasons name a tag by. */
  tags: readonly Tag[];
  wallets: readonly Wallet[];
  walletAccounts: readonly WalletAccount[];
  privateKeys: readonly PrivateKey[];
  /** Uploaded ABIs and IDLs: what decodes contract calls for `contract_call_args` and Solana instructions. */
  contractInterfaces: readonly SmartContractInterface[];
  rootQuorum: { userIds: readonly string[]; threshold: number };
}

export interface Unreproduced {
  activityId: string;
  type: string;
  reading: string;
  recorded: RecordedOutcome;
  replayed: ReplayedOutcome;
  /** What was recorded, what the replay answers, and what the history says may explain the difference. */
  reason: string;
}

export interface OutcomeChange {
  activityId: string;
  type: string;
  reading: string;
  createdAtMs: number;
  before: ReplayedOutcome;
  after: ReplayedOutcome;
  /** Distinct approvals counted when each replay decided (allowed, denied, or still waiting after the last vote). */
  approvalsBefore: number;
  approvalsAfter: number;
  /** The change in words: "needed 2 approvals, would now need 1". */
  words: string;
  /** The draft policies whose outcome differs between the two replays (the one responsible first). */
  policies: { policyId: string; policyName: string; before: string; after: string }[];
}

export interface RehearsalReport {
  replayed: number;
  unreproduced: Unreproduced[];
  changes: OutcomeChange[];
  totals: {
    allowedToDenied: number;
    deniedToAllowed: number;
    toConsensus: number;
    fromConsensus: number;
    /** Allowed both times, on fewer (more) approvals with the draft. */
    fewerApprovals: number;
    moreApprovals: number;
    unchanged: number;
  };
}

type RootQuorum = RehearsalHistory['rootQuorum'];

function enginePolicy(policy: DraftedPolicy): EnginePolicy {
  return {
    id: policy.policyId,
    name: policy.policyName,
    effect: policy.effect,
    condition: policy.condition,
    consensus: policy.consensus,
    time: policy.time ?? '',
  };
}

export function rehearse(history: RehearsalHistory, draft: readonly DraftEntry[]): RehearsalReport {
  const current = history.policies.map(enginePolicy);
  const drafted = applyDraft(history.policies, draft).map(enginePolicy);
  const names = new Map(drafted.concat(current).map((policy) => [policy.id, policy.name]));
  const org = new Organization(history);
  const ofTheDay = new PoliciesOfTheDay(history.policies, current);
  const lookup = lookupOf(history);
  const decodeSigning = signingDecoder({ contracts: contractsForReading(history.contractInterfaces) });
  const report: RehearsalReport = {
    replayed: 0,
    unreproduced: [],
    changes: [],
    totals: { allowedToDenied: 0, deniedToAllowed: 0, toConsensus: 0, fromConsensus: 0, fewerApprovals: 0, moreApprovals: 0, unchanged: 0 },
  };
  for (const activity of history.activities) {
    const recorded = recordedOutcome(activity);
    if (recorded === undefined) continue;
    report.replayed += 1;
    // Worded only for the activities listed (most replay unchanged); signing read as its card reads it.
    const reading = () => describeActivity(activity, lookup, { settled: true, decodeSigning }).summary;
    const request = org.replayRequest(activity);
    if (typeof request === 'string') {
      report.unreproduced.push({
        activityId: activity.id,
        type: activity.type,
        reading: reading(),
        recorded,
        replayed: 'not-replayable',
        reason: `cannot be replayed: ${request}`,
      });
      continue;
    }
    const ofDay = replay(request, (atMs) => ofTheDay.at(atMs));
    const mismatch = reproductionMismatch(activity, request, ofDay, history.recordedEvaluations.get(activity.id), { org, ofTheDay, names });
    if (mismatch !== undefined) {
      report.unreproduced.push({
        activityId: activity.id,
        type: activity.type,
        reading: reading(),
        recorded,
        replayed: ofDay.outcome,
        reason: mismatch,
      });
    }
    // Today's policies are most often those of the day at every vote: that replay is then the same one.
    const before = request.steps.every((step) => ofTheDay.at(step.atMs) === current) ? ofDay : replay(request, () => current);
    const after = replay(request, () => drafted);
    if (before.outcome === after.outcome && (before.outcome !== 'allowed' || before.approvals === after.approvals)) {
      report.totals.unchanged += 1;
      continue;
    }
    countChange(report.totals, before, after);
    // Compared where the first of the two replays decided: the draft's policies at that vote against today's.
    const step = Math.min(before.decisions.length, after.decisions.length) - 1;
    const afterThen = outcomeOf(after.decisions[step]!);
    report.changes.push({
      activityId: activity.id,
      type: activity.type,
      reading: reading(),
      createdAtMs: timestampMs(activity.createdAt),
      before: before.outcome,
      after: after.outcome,
      approvalsBefore: before.approvals,
      approvalsAfter: after.approvals,
      words: changeInWords(before, after),
      policies: responsiblePolicies(before.decisions[step]!.evaluations, after.decisions[step]!.evaluations, afterThen).map(
        ({ policyId, before: was, after: is }) => ({ policyId, policyName: names.get(policyId) ?? policyId, before: was, after: is }),
      ),
    });
  }
  return report;
}

/** The organization's names for readings: users, tags, wallets and their accounts, keys, policies. */
function lookupOf(history: RehearsalHistory): OrganizationLookup {
  return {
    ...policyNamesOf(history, []),
    walletAccounts: history.walletAccounts.map(({ walletId, address, path, addressFormat }) => ({ walletId, address, path, addressFormat })),
  };
}

function recordedOutcome(activity: Activity): RecordedOutcome | undefined {
  switch (activity.status) {
    case 'ACTIVITY_STATUS_COMPLETED':
    case 'ACTIVITY_STATUS_FAILED':
      return 'allowed';
    case 'ACTIVITY_STATUS_CONSENSUS_NEEDED':
    case 'ACTIVITY_STATUS_REJECTED':
      return 'consensus-needed';
    default:
      return undefined;
  }
}

function outcomeOf(authorization: Authorization): Exclude<ReplayedOutcome, 'not-replayable'> {
  if (authorization.decision === 'allow') return 'allowed';
  return authorization.decision === 'deny' ? 'denied' : 'consensus-needed';
}

/** One recorded approval as the replay counts it: the approval window rule reads its user and time. */
interface ReplayVote {
  userId: string;
  selection: 'VOTE_SELECTION_APPROVED';
  createdAt: number;
  approver: EngineApprover;
}

/** The decision after each approval in time order, with the approvals that count then and the root quorum then. */
interface ReplayStep {
  atMs: number;
  approvers: readonly EngineApprover[];
  /** Distinct users among them. */
  approvals: number;
  rootQuorum: RootQuorum;
  /** Set when the root quorum then is inferred rather than read: what the reason says about it. */
  rootQuorumNote?: string | undefined;
}

type ReplayRequest = Omit<Parameters<typeof decide>[0], 'policies' | 'approvers' | 'rootQuorum' | 'now'> & { steps: readonly ReplayStep[] };

interface Replay {
  outcome: Exclude<ReplayedOutcome, 'not-replayable'>;
  /** Distinct approvals counted at the deciding step (the last one when it still waits). */
  approvals: number;
  /** The decision after each approval up to the deciding one. */
  decisions: Authorization[];
}

/** Decides after each approval until one allows or denies: the service executes (or refuses) at that vote. */
function replay(request: ReplayRequest, policiesAt: (atMs: number) => readonly EnginePolicy[]): Replay {
  const decisions: Authorization[] = [];
  const { steps, ...decision } = request;
  for (const step of steps) {
    const authorization = decide({
      ...decision,
      policies: policiesAt(step.atMs),
      approvers: step.approvers,
      rootQuorum: step.rootQuorum,
      now: step.atMs,
    });
    decisions.push(authorization);
    if (authorization.decision !== 'consensus-needed') return { outcome: outcomeOf(authorization), approvals: step.approvals, decisions };
  }
  return { outcome: 'consensus-needed', approvals: steps.at(-1)!.approvals, decisions };
}

const approvalsInWords = (count: number) => `${count} approval${count === 1 ? '' : 's'}`;

function replayInWords({ outcome, approvals }: Replay): string {
  if (outcome === 'denied') return 'was denied';
  if (outcome === 'consensus-needed') return `still waited after ${approvalsInWords(approvals)}`;
  return approvals === 1 ? "was allowed on the proposer's vote alone" : `needed ${approvalsInWords(approvals)}`;
}

/** What a replay answers, as a reason says it: "allows it with 2 approvals". */
function replayNowInWords({ outcome, approvals }: Replay): string {
  if (outcome === 'denied') return 'denies it';
  if (outcome === 'consensus-needed') return `still waits after ${approvalsInWords(approvals)}`;
  return approvals === 1 ? "allows it on the proposer's vote alone" : `allows it with ${approvalsInWords(approvals)}`;
}

/** "needed 2 approvals, would now need 1", "was allowed on the proposer's vote alone, would now be denied", … */
function changeInWords(before: Replay, after: Replay): string {
  const now =
    after.outcome === 'denied'
      ? 'would now be denied'
      : after.outcome === 'consensus-needed'
        ? after.approvals === 1
          ? "would now wait for approvals beyond the proposer's"
          : `would now still wait after those ${approvalsInWords(after.approvals)}`
        : before.outcome === 'allowed'
          ? `would now need ${after.approvals}${after.approvals === 1 ? " (the proposer's vote alone)" : ''}`
          : after.approvals === 1
            ? "would now be allowed on the proposer's vote alone"
            : `would now be allowed with ${approvalsInWords(after.approvals)}`;
  return `${replayInWords(before)}, ${now}`;
}

/** Policies whose outcome counts for the new decision and changed between the replays; the deciding outcome first. */
function responsiblePolicies(before: readonly PolicyEvaluation[], after: readonly PolicyEvaluation[], afterOutcome: ReplayedOutcome) {
  const was = new Map(before.map((evaluation) => [evaluation.policyId, evaluation.outcome as string]));
  const is = new Map(after.map((evaluation) => [evaluation.policyId, evaluation.outcome as string]));
  const deciding = afterOutcome === 'denied' ? 'OUTCOME_DENY_EXPLICIT' : afterOutcome === 'allowed' ? 'OUTCOME_ALLOW' : 'OUTCOME_REQUIRES_CONSENSUS';
  return [...new Set([...was.keys(), ...is.keys()])]
    .map((policyId) => ({ policyId, before: was.get(policyId) ?? 'ABSENT', after: is.get(policyId) ?? 'DELETED' }))
    .filter((change) => applying(change.before) !== applying(change.after))
    .sort((a, b) => Number(b.after === deciding) - Number(a.after === deciding));
}

/** A policy that cannot be evaluated does not apply: moving between that and not applying changes nothing. */
function applying(outcome: string): string {
  return outcome === 'OUTCOME_ERROR' ? 'OUTCOME_NOT_APPLICABLE' : outcome;
}

function countChange(totals: RehearsalReport['totals'], before: Replay, after: Replay): void {
  if (before.outcome === 'allowed' && after.outcome === 'denied') totals.allowedToDenied += 1;
  if (before.outcome === 'denied' && after.outcome === 'allowed') totals.deniedToAllowed += 1;
  if (after.outcome === 'consensus-needed' && before.outcome !== 'consensus-needed') totals.toConsensus += 1;
  if (before.outcome === 'consensus-needed' && after.outcome !== 'consensus-needed') totals.fromConsensus += 1;
  if (before.outcome === 'allowed' && after.outcome === 'allowed') {
    if (after.approvals < before.approvals) totals.fewerApprovals += 1;
    else totals.moreApprovals += 1;
  }
}

/**
 * The current policies as they stood at a moment: those created by then. A policy's earlier text is not kept by the
 * service, so one updated since is replayed as it stands now, and a miss names it.
 */
class PoliciesOfTheDay {
  private readonly createdAtMs: Map<string, number>;
  private readonly updatedAtMs: Map<string, number>;
  /** By how many policies existed then: the set only grows with time, so the count names it. */
  private readonly sets = new Map<number, EnginePolicy[]>();

  constructor(
    private readonly policies: readonly Policy[],
    private readonly current: readonly EnginePolicy[],
  ) {
    this.createdAtMs = new Map(policies.map((policy) => [policy.policyId, timestampMs(policy.createdAt)]));
    this.updatedAtMs = new Map(policies.map((policy) => [policy.policyId, timestampMs(policy.updatedAt)]));
  }

  at(atMs: number): readonly EnginePolicy[] {
    const existing = this.current.filter((policy) => this.createdAtMs.get(policy.id)! <= atMs);
    if (existing.length === this.current.length) return this.current;
    let set = this.sets.get(existing.length);
    if (set === undefined) this.sets.set(existing.length, (set = existing));
    return set;
  }

  /** Policies that existed at `atMs` and were changed after it, each with the moment of its change. */
  changedAfter(atMs: number): { name: string; changedAtMs: number }[] {
    return this.policies
      .filter((policy) => this.createdAtMs.get(policy.policyId)! <= atMs && this.updatedAtMs.get(policy.policyId)! > atMs)
      .map((policy) => ({ name: policy.policyName, changedAtMs: this.updatedAtMs.get(policy.policyId)! }));
  }
}

const dateInWords = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

const RECORDED_WORDS: Partial<Record<Activity['status'], string>> = {
  ACTIVITY_STATUS_COMPLETED: 'completed',
  ACTIVITY_STATUS_FAILED: 'allowed (then failed)',
  ACTIVITY_STATUS_CONSENSUS_NEEDED: 'still waiting',
  ACTIVITY_STATUS_REJECTED: 'rejected',
};

/** Undefined when the replay with the rules of the day reproduces the record, else why not, in names. */
function reproductionMismatch(
  activity: Activity,
  request: ReplayRequest,
  ofDay: Replay,
  recordedEvaluations: readonly PolicyEvaluation[] | undefined,
  { org, ofTheDay, names }: { org: Organization; ofTheDay: PoliciesOfTheDay; names: ReadonlyMap<string, string> },
): string | undefined {
  const last = request.steps.at(-1)!;
  const recordedAllowed = recordedOutcome(activity) === 'allowed';
  const reproduced = recordedAllowed
    ? ofDay.outcome === 'allowed' && ofDay.decisions.length === request.steps.length
    : ofDay.outcome === 'consensus-needed';
  // What the history says may explain a miss: a policy changed since, a root quorum inferred.
  const notes = [
    ...ofTheDay
      .changedAfter(last.atMs)
      .map(
        ({ name, changedAtMs }) =>
          `policy "${name}" was changed on ${dateInWords(changedAtMs)}, after this activity; its earlier text is not kept by the service`,
      ),
    ...(last.rootQuorumNote === undefined ? [] : [last.rootQuorumNote]),
  ];
  if (!reproduced) {
    const recorded = `recorded ${RECORDED_WORDS[activity.status]} with ${approvalsInWords(last.approvals)}`;
    return [`${recorded}, the replay ${replayNowInWords(ofDay)}`, ...notes].join('; ');
  }
  const decided = ofDay.decisions.at(-1)!;
  if (recordedEvaluations === undefined || (decided.decision === 'allow' && decided.by === 'root-quorum')) return undefined;
  // The service keeps every outcome but NOT_APPLICABLE.
  const replayed = new Map(
    decided.evaluations.filter((evaluation) => evaluation.outcome !== 'OUTCOME_NOT_APPLICABLE').map((e) => [e.policyId, e.outcome as string]),
  );
  const differing = new Set<string>();
  for (const { policyId, outcome } of recordedEvaluations) if (replayed.get(policyId) !== outcome) differing.add(policyId);
  for (const policyId of replayed.keys()) if (!recordedEvaluations.some((e) => e.policyId === policyId)) differing.add(policyId);
  if (differing.size === 0) return undefined;
  const named = [...differing].map((policyId) => {
    const name = names.get(policyId);
    if (name !== undefined) return `"${name}"`;
    const created = org.deletedPolicyName(policyId);
    return created === undefined ? 'a policy deleted since, whose text the service no longer keeps' : `"${created}" (deleted since)`;
  });
  return [`per-policy outcomes differ for ${named.join(', ')}`, ...notes].join('; ');
}

/** The organization as main reads it, indexed for rebuilding activities' condition and consensus contexts. */
class Organization {
  private readonly users: Map<string, User>;
  private readonly wallets: Map<string, Wallet>;
  private readonly accountsById: Map<string, WalletAccount>;
  private readonly accountsByAddress: Map<string, WalletAccount>;
  private readonly keysById: Map<string, PrivateKey>;
  private readonly keysByAddress: Map<string, PrivateKey>;
  private readonly abis: Map<string, Abi>;
  private readonly idls: { address: string; idl: unknown }[];
  private readonly quorumChanges: QuorumChange[];
  /** Policy names by id from the recorded creations: a policy deleted since is named by them. */
  private readonly createdPolicyNames: Map<string, string>;

  constructor(private readonly history: RehearsalHistory) {
    this.users = new Map(history.users.map((user) => [user.userId, user]));
    this.wallets = new Map(history.wallets.map((wallet) => [wallet.walletId, wallet]));
    this.accountsById = new Map(history.walletAccounts.map((account) => [account.walletAccountId, account]));
    this.accountsByAddress = new Map(history.walletAccounts.map((account) => [account.address.toLowerCase(), account]));
    this.keysById = new Map(history.privateKeys.map((key) => [key.privateKeyId, key]));
    const interfaces = (chain: string) => history.contractInterfaces.filter((entry) => entry.type.endsWith(chain));
    this.abis = new Map(
      interfaces('ETHEREUM').map((entry) => [entry.smartContractAddress.toLowerCase(), JSON.parse(entry.smartContractInterface) as Abi]),
    );
    this.idls = interfaces('SOLANA').map((entry) => ({
      address: entry.smartContractAddress,
      idl: JSON.parse(entry.smartContractInterface) as unknown,
    }));
    this.keysByAddress = new Map(
      history.privateKeys.flatMap((key) =>
        key.addresses.flatMap((entry) => (entry.address === undefined ? [] : [[entry.address.toLowerCase(), key] as const])),
      ),
    );
    this.quorumChanges = quorumChangesOf(history.activities);
    this.createdPolicyNames = new Map(
      history.activities.flatMap((activity) => {
        const created = Object.values(activity.result)[0] as { policyId?: unknown } | undefined;
        const { policyName } = intentParams(activity);
        return activity.type.startsWith('ACTIVITY_TYPE_CREATE_POLICY') && typeof created?.policyId === 'string' && typeof policyName === 'string'
          ? [[created.policyId, policyName] as const]
          : [];
      }),
    );
  }

  deletedPolicyName(policyId: string): string | undefined {
    return this.createdPolicyNames.get(policyId);
  }

  /** A user's name for reasons: the organization's, else the one the vote carried. */
  private userName(userId: string, vote?: Vote): string | undefined {
    const user = this.users.get(userId);
    if (user !== undefined) return user.userName;
    const carried = (vote?.user as { userName?: unknown } | undefined)?.userName;
    return typeof carried === 'string' && carried !== '' ? carried : undefined;
  }

  /**
   * The root quorum at `atMs`: set by the last quorum change completed before then, else today's when no change is
   * recorded; before the first recorded change it is not recorded, and is taken as the users who approved that change
   * (a root-only activity completes on the root quorum's votes), all of them needed.
   */
  private rootQuorumAt(atMs: number): { quorum: RootQuorum; note?: string } {
    const set = this.quorumChanges.filter((change) => change.atMs < atMs).at(-1);
    if (set !== undefined) return { quorum: set.quorum };
    const first = this.quorumChanges[0];
    if (first === undefined) return { quorum: this.history.rootQuorum };
    const members = first.approverIds.map((userId) => this.userName(userId) ?? 'a user deleted since').join(', ');
    return {
      quorum: { userIds: first.approverIds, threshold: first.approverIds.length },
      note: `the root quorum before its change on ${dateInWords(first.atMs)} is not recorded; the replay takes it as ${members}, who approved that change, all needed`,
    };
  }

  /** The engine's request for the recorded activity, one step per approval in time order, or why it cannot be rebuilt. */
  replayRequest(activity: Activity): ReplayRequest | string {
    const params = intentParams(activity);
    let resources: Record<string, unknown>;
    try {
      resources = this.resources(activity.type, params);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    const approvals: ReplayVote[] = [];
    for (const vote of approvalsInOrder(activity)) {
      const user = this.users.get(vote.userId);
      if (user === undefined) {
        const name = this.userName(vote.userId, vote);
        return name === undefined
          ? 'an approver is no longer a user of the organization'
          : `approver ${name} is no longer a user of the organization`;
      }
      approvals.push({
        userId: vote.userId,
        selection: 'VOTE_SELECTION_APPROVED',
        createdAt: timestampMs(vote.createdAt),
        approver: { user: policyUser(user), credential: credentialOf(user, vote.publicKey) },
      });
    }
    if (approvals.length === 0) return 'no approval is recorded for it';
    const target = typeof params.userId === 'string' ? this.users.get(params.userId) : undefined;
    const steps = approvals.map((vote, index): ReplayStep => {
      const counting = countingApprovals(approvals.slice(0, index + 1), vote.createdAt);
      const { quorum, note } = this.rootQuorumAt(vote.createdAt);
      return {
        atMs: vote.createdAt,
        approvers: counting.map((approval) => approval.approver),
        approvals: new Set(counting.map((approval) => approval.userId)).size,
        rootQuorum: quorum,
        rootQuorumNote: note,
      };
    });
    return {
      activityType: activity.type,
      params,
      condition: conditionContextOf(activity.type, params, resources, target === undefined ? undefined : policyUser(target)),
      steps,
    };
  }

  /** The condition keywords the service's handler names for this activity (`wallet`, `private_key`, `eth`, …). */
  private resources(type: string, params: Record<string, unknown>): Record<string, unknown> {
    if (typeof params.signWith === 'string') return this.signingResources(type, params);
    if (type === 'ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT' && typeof params.address === 'string') return { wallet_account: { address: params.address } };
    if (type === 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY' && typeof params.privateKeyId === 'string') {
      const key = this.keysById.get(params.privateKeyId);
      return key === undefined ? {} : { private_key: privateKeyResource(key) };
    }
    if (Array.isArray(params.walletIds)) return { wallets: params.walletIds.flatMap((id) => this.walletResource(id) ?? []) };
    if (Array.isArray(params.walletAccountIds)) {
      const walletIds = new Set(params.walletAccountIds.map((id) => this.accountsById.get(String(id))?.walletId));
      return { wallets: [...walletIds].flatMap((id) => this.walletResource(id) ?? []) };
    }
    if (typeof params.walletId === 'string' && type !== 'ACTIVITY_TYPE_CREATE_WALLET') {
      const wallet = this.walletResource(params.walletId);
      return wallet === undefined ? {} : { wallet };
    }
    return {};
  }

  private walletResource(id: unknown) {
    const wallet = typeof id === 'string' ? this.wallets.get(id) : undefined;
    return wallet === undefined ? undefined : { id: wallet.walletId, imported: wallet.imported, exported: wallet.exported, label: wallet.walletName };
  }

  private signingResources(type: string, params: Record<string, unknown>): Record<string, unknown> {
    const signWith = String(params.signWith);
    const account = this.accountsByAddress.get(signWith.toLowerCase());
    const key = account === undefined ? (this.keysById.get(signWith) ?? this.keysByAddress.get(signWith.toLowerCase())) : undefined;
    const signer =
      account !== undefined
        ? {
            resources: { wallet: this.walletResource(account.walletId), wallet_account: { address: account.address } },
            curve: account.curve,
            formats: [account.addressFormat],
            address: account.address,
          }
        : key !== undefined
          ? {
              resources: { private_key: privateKeyResource(key) },
              curve: key.curve,
              formats: key.addresses.flatMap((entry) => entry.format ?? []),
              address: key.addresses[0]?.address,
            }
          : undefined;
    if (signer === undefined) throw new Error(`signWith ${signWith} is no longer a key of the organization`);
    if (type.startsWith('ACTIVITY_TYPE_SIGN_TRANSACTION')) {
      const unsigned = String(params.unsignedTransaction);
      if (params.type === 'TRANSACTION_TYPE_ETHEREUM') {
        return {
          ...signer.resources,
          eth: { tx: { ...decodeEthereumTransaction(unsigned, (to) => this.abis.get(to.toLowerCase())).policy, from: signer.address } },
        };
      }
      if (params.type === 'TRANSACTION_TYPE_SOLANA')
        return { ...signer.resources, solana: { tx: decodeSolanaTransaction(hexToBytes(unsigned, 'unsignedTransaction'), this.idls).policy } };
      if (params.type === 'TRANSACTION_TYPE_BITCOIN') {
        return {
          ...signer.resources,
          bitcoin: { tx: decodeBitcoinPsbt(hexToBytes(unsigned, 'unsignedTransaction'), bitcoinNetworkOfFormats(signer.formats)).policy },
        };
      }
      return signer.resources;
    }
    if (typeof params.payload === 'string' && signer.curve !== 'CURVE_ED25519') {
      const prepared = prepareRawPayload({
        payload: params.payload,
        encoding: params.encoding as PayloadEncoding,
        hashFunction: params.hashFunction as HashFunction,
        curve: signer.curve,
        what: 'payload',
      });
      return { ...signer.resources, ...(prepared.policy === undefined ? {} : { eth: prepared.policy }) };
    }
    return signer.resources;
  }
}

function policyUser(user: User): PolicyUser {
  return {
    id: user.userId,
    tags: user.userTags,
    ...(user.userEmail === undefined ? {} : { email: user.userEmail }),
    alias: user.userName,
  };
}

function privateKeyResource(key: PrivateKey) {
  return { id: key.privateKeyId, tags: key.privateKeyTags, imported: key.imported, exported: key.exported, label: key.privateKeyName };
}

/** The user's API key or passkey the vote was stamped with, as `credentials` reads it. */
function credentialOf(user: User, publicKey: string): EngineApprover['credential'] {
  const apiKey = user.apiKeys.find((key) => key.credential.publicKey === publicKey);
  if (apiKey !== undefined) return { id: apiKey.apiKeyId, user_id: user.userId, type: apiKey.credential.type, public_key: publicKey };
  const passkey = user.authenticators.find((authenticator) => authenticator.credential.publicKey === publicKey);
  if (passkey !== undefined) {
    return {
      id: passkey.authenticatorId,
      user_id: user.userId,
      type: passkey.credential.type,
      public_key: publicKey,
      credential_id: passkey.credentialId,
    };
  }
  return { id: publicKey, user_id: user.userId, type: 'CREDENTIAL_TYPE_UNKNOWN', public_key: publicKey };
}

function intentParams(activity: Activity): Record<string, unknown> {
  return Object.values(activity.intent)[0] as Record<string, unknown>;
}

/** The activity's approving votes, earliest first (the proposer's submission is the first). */
function approvalsInOrder(activity: Activity): Vote[] {
  return activity.votes
    .filter((vote) => vote.selection === 'VOTE_SELECTION_APPROVED')
    .sort((a, b) => timestampMs(a.createdAt) - timestampMs(b.createdAt));
}

/** A recorded root quorum change that took effect: when, to what, and whose approvals completed it. */
interface QuorumChange {
  atMs: number;
  quorum: RootQuorum;
  approverIds: string[];
}

function quorumChangesOf(activities: readonly Activity[]): QuorumChange[] {
  return activities
    .filter((activity) => activity.type === 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM' && activity.status === 'ACTIVITY_STATUS_COMPLETED')
    .flatMap((activity) => {
      const { threshold, userIds } = intentParams(activity);
      const approvals = approvalsInOrder(activity).map((vote) => ({ ...vote, createdAt: timestampMs(vote.createdAt) }));
      const completedAtMs = approvals.at(-1)?.createdAt;
      if (typeof threshold !== 'number' || !Array.isArray(userIds) || completedAtMs === undefined) return [];
      const approverIds = [...new Set(countingApprovals(approvals, completedAtMs).map((vote) => vote.userId))];
      return [{ atMs: completedAtMs, quorum: { threshold, userIds: userIds.map(String) }, approverIds }];
    })
    .sort((a, b) => a.atMs - b.atMs);
}
