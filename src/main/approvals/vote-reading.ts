/**
 * The one answer to "where does this activity stand, and what would my vote do" (docs/architecture.md#one-answer-per-vote):
 * the policies' verdict, what it still needs, who may still vote and why, who proposed it, and what the viewer's
 * approval or rejection does. Every surface that shows an activity waiting for votes (the card, the list row, the
 * inbox row and its notification, main's confirmation, the journal's entry, the CLI) takes its words from here, so
 * none of them can say something another contradicts. The window computes none of it.
 */
import type { Activity } from '../../shared/api';
import type { PossibleVoter } from './possible-voters';
import { currentVoteOf, type Voter, type VoteTally } from '../../shared/approvals/voting';
import { quotedText, visibleText } from '../../shared/visible-text';
import type { OrganizationSnapshot } from '../signing/organization';
import { standingIn, type PolicyStanding } from '../signing/policy-standing';

/** Where the policies stand, or why QuorumKey cannot read them for this kind of activity (the service decides). */
export type Standing = PolicyStanding | string;

export interface VoteReading {
  /** "Bea (profile Bea) in Root organization": who votes, as whom, where. */
  voter: string;
  /** The user whose submission was the first approval. */
  proposer?: string;
  /** Whether the viewer proposed it. */
  proposedByViewer: boolean;
  /** Distinct users whose approvals count now. */
  approvals: number;
  /** How many approvals in all would let it run, where that can be told. */
  required?: number;
  /** The count in words, as a list row shows it: "1 of 2 approved", or "1 approved" where the total cannot be told. */
  progress: string;
  /** The policies' own verdict on it as it stands: "policy "Ops" matches and waits for its consensus". */
  verdict: string;
  /** "needs 1 more approver tagged Ops (policy "Ops")", "nothing more: a policy allows it". */
  stillNeeded: string;
  /** Who may still vote and why, from the same evaluation as the verdict. */
  stillToVote: PossibleVoter[];
  /** The viewer's vote that counts now, if any. */
  viewerVote?: 'approved' | 'rejected';
  /** Whether an approval by the viewer counts toward what can let it run. */
  viewerCounts: boolean;
  /** Whether the viewer's approval alone would let it run. */
  viewerCompletes: boolean;
  /** "your approval completes it: the service signs this transaction with Treasury; QuorumKey does not broadcast it". */
  approveDoes: string;
  /** "your rejection ends it: it will not run". */
  rejectDoes: string;
  /** About the vote itself, most serious first: an approval that overrides every policy. */
  warnings: string[];
}

export interface VoteReadingInput {
  activity: Pick<Activity, 'type'>;
  tally: VoteTally;
  snapshot: OrganizationSnapshot;
  /** The profile the viewer votes through. */
  profileName: string;
  /** The activity's title in words ("Sign an Ethereum transaction"). */
  title: string;
  /** For a signing request: who signs it, in words ("Treasury / m/44'/60'/0'/0/0"). */
  signer?: string;
  /** With the approvals that count now. */
  standing: Standing;
  /** With the viewer's approval added to them. */
  withViewer: Standing;
}

export function voteReadingOf({ activity, tally, snapshot, profileName, title, signer, standing, withViewer }: VoteReadingInput): VoteReading {
  const viewerId = snapshot.viewer.userId;
  const viewerVote = currentVoteOf(tally.voters, viewerId)?.selection;
  const proposer = proposerOf(tally.voters);
  const read = typeof standing === 'string' ? undefined : standing;
  const mayVote = read !== undefined && (read.viewerCanApprove || read.stillToVote.some((voter) => voter.userId === viewerId));
  const viewerCompletes = viewerVote === undefined && typeof withViewer !== 'string' && withViewer.outcome === 'ALLOW' && read?.outcome !== 'ALLOW';
  const required = read === undefined ? undefined : requiredOf(read, tally.approverIds.length);
  return {
    voter: voterInWords(snapshot, profileName),
    ...(proposer === undefined ? {} : { proposer }),
    proposedByViewer: tally.voters[0]?.userId === viewerId,
    approvals: tally.approverIds.length,
    ...(required === undefined ? {} : { required }),
    progress: required === undefined ? `${tally.approverIds.length} approved` : `${tally.approverIds.length} of ${required} approved`,
    verdict: verdictInWords(standing),
    stillNeeded: stillNeededInWords(standing),
    stillToVote: read?.stillToVote ?? [],
    ...(viewerVote === undefined ? {} : { viewerVote }),
    viewerCounts: read?.viewerCanApprove === true,
    viewerCompletes,
    approveDoes: approveDoes({ activity, title, signer, read, withViewer, viewerVote, viewerCompletes }),
    rejectDoes: viewerVote === 'rejected' ? 'you rejected it already' : mayVote || viewerVote === 'approved' ? REJECTION_ENDS : REJECTION_REFUSED,
    warnings: overrideWarning(read, snapshot),
  };
}

/**
 * Who proposed an activity, by name (its id where the user has none): the proposer's submission is the first approval
 * (docs/service.md#fingerprint-idempotency-and-votes), and voters come in the order of their first votes.
 */
export function proposerOf(voters: readonly Pick<Voter, 'userId' | 'userName'>[]): string | undefined {
  const first = voters[0];
  return first === undefined ? undefined : visibleText(first.userName || first.userId);
}

/** `{ proposer }` for a view, or nothing when no one has voted. */
export function optionalProposer(voters: readonly Pick<Voter, 'userId' | 'userName'>[]): { proposer?: string } {
  const proposer = proposerOf(voters);
  return proposer === undefined ? {} : { proposer };
}

/** "Bea (profile Bea) in Root organization". */
export function voterInWords(snapshot: Pick<OrganizationSnapshot, 'viewer'>, profileName: string): string {
  const { username, organizationName } = snapshot.viewer;
  return `${visibleText(username)} (profile ${visibleText(profileName)}) in ${visibleText(organizationName || snapshot.viewer.organizationId)}`;
}

/**
 * The policies' standing on an activity that signs nothing, or why it cannot be read. Its conditions read the
 * activity alone: one reading a wallet, a key or a transaction the activity does not name does not apply.
 */
export function activityStanding(
  subject: { type: string; intent: Readonly<Record<string, unknown>> },
  snapshot: OrganizationSnapshot,
  approverIds: readonly string[],
  nowMs: number,
): Standing {
  const params = Object.values(subject.intent)[0];
  try {
    return standingIn(snapshot, {
      activityType: subject.type,
      params: typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {},
      resources: {},
      approverIds,
      nowMs,
    });
  } catch (error) {
    return `QuorumKey cannot read the policies on this kind of activity (${visibleText(error instanceof Error ? error.message : String(error))}); the service decides`;
  }
}

/** The policies' own verdict, whatever the root quorum's votes decide: which matched, and how they stand. */
export function verdictInWords(standing: Standing): string {
  if (typeof standing === 'string') return standing;
  const { matchedPolicies, failedPolicies } = standing;
  const named = (policyOutcome: string) =>
    matchedPolicies
      .filter((policy) => policy.outcome === policyOutcome)
      .map((policy) => quotedText(policy.policyName))
      .join(', ');
  const words =
    named('DENY') !== ''
      ? `denied by policy ${named('DENY')}`
      : named('ALLOW') !== ''
        ? `allowed by policy ${named('ALLOW')}`
        : named('NEEDS_CONSENSUS') !== ''
          ? `policy ${named('NEEDS_CONSENSUS')} matches and waits for its consensus`
          : 'no policy matches; the root quorum decides';
  const failed = failedPolicies.map((policy) => `${quotedText(policy.policyName)} (${visibleText(policy.reason)})`);
  return failed.length === 0 ? words : `${words}; ${failed.join(', ')} ${failed.length === 1 ? 'does' : 'do'} not apply`;
}

export function stillNeededInWords(standing: Standing): string {
  if (typeof standing === 'string') return 'not known';
  const { outcome, decidedBy, consensusNeeds } = standing;
  if (outcome === 'ALLOW') return `nothing more: ${decidedBy === 'root quorum' ? 'the root quorum allows it' : 'a policy allows it'}`;
  if (outcome === 'DENY') return 'nothing can approve it while a policy denies it, but the root quorum';
  return consensusNeeds === undefined ? 'more approvals (how many, the consensus does not say)' : visibleText(consensusNeeds);
}

const REJECTION_ENDS = 'your rejection ends it: it will not run';
const REJECTION_REFUSED = 'your rejection would be refused: you are not among those who may vote on it';

function requiredOf(standing: PolicyStanding, approvals: number): number | undefined {
  if (standing.outcome === 'ALLOW') return approvals;
  return standing.missingApprovals === undefined ? undefined : approvals + standing.missingApprovals;
}

function approveDoes({
  activity,
  title,
  signer,
  read,
  withViewer,
  viewerVote,
  viewerCompletes,
}: {
  activity: Pick<Activity, 'type'>;
  title: string;
  signer: string | undefined;
  read: PolicyStanding | undefined;
  withViewer: Standing;
  viewerVote: VoteReading['viewerVote'];
  viewerCompletes: boolean;
}): string {
  if (viewerVote === 'approved') return 'you approved it already: another approval from you does not count';
  if (typeof withViewer === 'string') return `QuorumKey cannot tell what your approval does (${withViewer})`;
  if (viewerCompletes) {
    return signer === undefined
      ? `your approval completes it: the service then carries it out (${visibleText(title)})`
      : `your approval completes it: the service signs ${activity.type.includes('TRANSACTION') ? 'this transaction' : 'this payload'} with ${visibleText(signer)}; QuorumKey does not broadcast it`;
  }
  if (read?.outcome === 'ALLOW') return 'nothing: the approvals given already let it run';
  if (withViewer.outcome === 'DENY') return 'it counts, but a policy denies it: only the root quorum can let it run';
  if (read?.viewerCanApprove === true) return `your approval counts toward it; after it, it still needs ${stillNeededInWords(withViewer)}`;
  return 'your approval would not count: you are not in the root quorum, and no policy that matches counts your vote';
}

/**
 * When no policy allows the request, a root quorum member's approval is not routine: the root quorum's votes let it
 * run whatever the policies say.
 */
function overrideWarning(standing: PolicyStanding | undefined, snapshot: OrganizationSnapshot): string[] {
  const viewerId = snapshot.viewer.userId;
  if (standing === undefined || snapshot.rootQuorum?.userIds.includes(viewerId) !== true) return [];
  if (standing.outcome === 'ALLOW' && standing.decidedBy === 'policy') return [];
  const allowing = standing.matchedPolicies.some((policy) => policy.effect === 'EFFECT_ALLOW');
  const denied = standing.matchedPolicies.some((policy) => policy.outcome === 'DENY');
  if (allowing && !denied) return [];
  return [
    `${denied ? 'A policy denies this request' : 'No policy of this organization allows this request'}: your approval is a root quorum vote, which overrides every policy. Approve only if the organization means to make an exception.`,
  ];
}
