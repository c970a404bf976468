/**
 * Policy rehearsal (docs/service.md#policy-rehearsal): replays the organization's recorded activities with the shared
 * policy engine, first against the current policies (every activity whose recorded outcome the replay does not
 * reproduce is reported), then against a draft set, listing the outcomes that change and the policy responsible.
 * Pure over a `RehearsalHistory` snapshot; `history.ts` reads one through the API client.
 */
import type { Abi } from 'viem';
import type { Activity, Policy, PrivateKey, SmartContractInterface, User, Wallet, WalletAccount } from '../../shared/api';
import { decodeEthereumTransaction } from '../../shared/chains/ethereum';
import { bitcoinNetworkOfFormats, decodeBitcoinPsbt } from '../../shared/chains/bitcoin';
import { prepareRawPayload, type HashFunction, type PayloadEncoding } from '../../shared/chains/raw-payload';
import { decodeSolanaTransaction } from '../../shared/chains/solana';
import { hexToBytes } from '../../shared/crypto/encoding';
import { describeActivity } from '../../shared/describe';
import { signingDecoder } from '../activities/readings';
import { contractsForReading } from '../signing/organization';
import type { DraftEntry } from '../../shared/ipc/policy-draft';
import { applyDraft, type DraftedPolicy } from './draft';
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
  /** Why the replay differs: the outcome, or the policies whose per-policy outcome differs from the recorded one. */
  reason: string;
}

export interface OutcomeChange {
  activityId: string;
  type: string;
  reading: string;
  createdAtMs: number;
  before: ReplayedOutcome;
  after: ReplayedOutcome;
  /** The draft policies whose outcome differs between the two replays (the one responsible first). */
  policies: { policyId: string; policyName: string; before: string; after: string }[];
}

export interface RehearsalReport {
  replayed: number;
  unreproduced: Unreproduced[];
  changes: OutcomeChange[];
  totals: { allowedToDenied: number; deniedToAllowed: number; toConsensus: number; fromConsensus: number; unchanged: number };
}

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
  const decodeSigning = signingDecoder({ contracts: contractsForReading(history.contractInterfaces) });
  const report: RehearsalReport = {
    replayed: 0,
    unreproduced: [],
    changes: [],
    totals: { allowedToDenied: 0, deniedToAllowed: 0, toConsensus: 0, fromConsensus: 0, unchanged: 0 },
  };
  for (const activity of history.activities) {
    const recorded = recordedOutcome(activity);
    if (recorded === undefined) continue;
    report.replayed += 1;
    // Worded only for the activities listed (most replay unchanged); signing read as its card reads it.
    const reading = () => describeActivity(activity, {}, { settled: true, decodeSigning }).summary;
    const request = org.replayRequest(activity);
    const before = typeof request === 'string' ? undefined : decide({ ...request, policies: current });
    const beforeOutcome = outcomeOf(before);
    const mismatch = reproductionMismatch(recorded, before, request, history.recordedEvaluations.get(activity.id));
    if (mismatch !== undefined) {
      report.unreproduced.push({
        activityId: activity.id,
        type: activity.type,
        reading: reading(),
        recorded,
        replayed: beforeOutcome,
        reason: mismatch,
      });
    }
    if (typeof request === 'string' || before === undefined) continue;
    const after = decide({ ...request, policies: drafted });
    const afterOutcome = outcomeOf(after);
    if (afterOutcome === beforeOutcome) {
      report.totals.unchanged += 1;
      continue;
    }
    countChange(report.totals, beforeOutcome, afterOutcome);
    report.changes.push({
      activityId: activity.id,
      type: activity.type,
      reading: reading(),
      createdAtMs: Number(activity.createdAt.seconds) * 1000,
      before: beforeOutcome,
      after: afterOutcome,
      policies: responsiblePolicies(before.evaluations, after.evaluations, afterOutcome).map(({ policyId, before: was, after: is }) => ({
        policyId,
        policyName: names.get(policyId) ?? policyId,
        before: was,
        after: is,
      })),
    });
  }
  return report;
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

function outcomeOf(authorization: Authorization | undefined): ReplayedOutcome {
  if (authorization === undefined) return 'not-replayable';
  if (authorization.decision === 'allow') return 'allowed';
  return authorization.decision === 'deny' ? 'denied' : 'consensus-needed';
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

function countChange(totals: RehearsalReport['totals'], before: ReplayedOutcome, after: ReplayedOutcome): void {
  if (before === 'allowed' && after === 'denied') totals.allowedToDenied += 1;
  if (before === 'denied' && after === 'allowed') totals.deniedToAllowed += 1;
  if (after === 'consensus-needed') totals.toConsensus += 1;
  if (before === 'consensus-needed') totals.fromConsensus += 1;
}

/** Undefined when the replay reproduces the record, else why not. */
function reproductionMismatch(
  recorded: RecordedOutcome,
  replay: Authorization | undefined,
  request: ReplayRequest | string,
  recordedEvaluations: readonly PolicyEvaluation[] | undefined,
): string | undefined {
  if (typeof request === 'string') return `cannot be replayed: ${request}`;
  const replayed = outcomeOf(replay);
  if (replayed !== recorded) return `recorded ${recorded}, replay answers ${replayed}`;
  if (recordedEvaluations === undefined || replay === undefined || (replay.decision === 'allow' && replay.by === 'root-quorum')) return undefined;
  // The service keeps every outcome but NOT_APPLICABLE.
  const replayedApplicable = new Map(
    replay.evaluations.filter((evaluation) => evaluation.outcome !== 'OUTCOME_NOT_APPLICABLE').map((e) => [e.policyId, e.outcome as string]),
  );
  const differing = new Set<string>();
  for (const { policyId, outcome } of recordedEvaluations) if (replayedApplicable.get(policyId) !== outcome) differing.add(policyId);
  for (const policyId of replayedApplicable.keys()) if (!recordedEvaluations.some((e) => e.policyId === policyId)) differing.add(policyId);
  return differing.size === 0 ? undefined : `per-policy outcomes differ for ${[...differing].join(', ')}`;
}

type ReplayRequest = Omit<Parameters<typeof decide>[0], 'policies'>;

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
  }

  /** The engine's request for the recorded activity with every approving vote, or why it cannot be rebuilt. */
  replayRequest(activity: Activity): ReplayRequest | string {
    const params = Object.values(activity.intent)[0] as Record<string, unknown>;
    let resources: Record<string, unknown>;
    try {
      resources = this.resources(activity.type, params);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    const approvals = activity.votes.filter((vote) => vote.selection === 'VOTE_SELECTION_APPROVED');
    const approvers: EngineApprover[] = [];
    for (const vote of approvals) {
      const user = this.users.get(vote.userId);
      if (user === undefined) return `approver ${vote.userId} is no longer a user of the organization`;
      approvers.push({ user: policyUser(user), credential: credentialOf(user, vote.publicKey) });
    }
    const target = typeof params.userId === 'string' ? this.users.get(params.userId) : undefined;
    const decidedAt = approvals.at(-1)?.createdAt ?? activity.createdAt;
    return {
      activityType: activity.type,
      params,
      condition: conditionContextOf(activity.type, params, resources, target === undefined ? undefined : policyUser(target)),
      approvers,
      rootQuorum: this.history.rootQuorum,
      now: Number(decidedAt.seconds) * 1000 + Math.floor(Number(decidedAt.nanos ?? 0) / 1e6),
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
