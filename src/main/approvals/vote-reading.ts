/**
 * The one answer to "where does this activity stand, and what would my vote do" (docs/architecture.md#one-answer-per-vote):
 * the policies' verdict, what it still needs, who may still vote and why, who proposed it, and what the viewer's
 * approval or rejection does. Every surface that shows an activity waiting for votes (the card, the list row, the
 * inbox row and its notification, main's confirmation, the journal's entry, the CLI) takes its words from here, so
 * none of them can say something another contradicts. The window computes none of it.
 */
import type { Activity, AuthenticationMethod, MfaStatus, User } from '../../shared/api';
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
  /** The viewer's MFA step this activity waits for (ACTIVITY_STATUS_AUTHENTICATORS_NEEDED), if it waits for one. */
  authenticators?: AuthenticatorsReading;
  /** The other users whose MFA steps it waits for: "Bob's security key (MFA policy "hw"; 0 of 1 steps met)". */
  awaitedAuthenticators?: string[];
}

/** The open step of the viewer's MFA policy on an activity, and whether this desktop can meet it. */
export interface AuthenticatorsReading {
  /** "Needs your API key approval", "Needs your security key". */
  headline: string;
  /** The approval's button: "Approve with your security key…", named by the credential it presents. */
  approveLabel: string;
  /** The MFA policy's name, quoted. */
  policy: string;
  /** The method this approval would present: the one this desktop holds, else the open step's first. */
  method: AuthenticationMethod['type'];
  /** The one credential the step names, if it names one. */
  credentialId?: string;
  /** "the API key "ci" of Bea", "any security key of Bea". */
  credential: string;
  /** Whether this desktop holds a credential that meets the step, so its approval would count. */
  heldHere: boolean;
  /** "this desktop stamps with it (profile "Bea")", "this desktop has no security key registered for Bea". */
  held: string;
  /** Steps of the policy met before this approval, and in all. */
  stepsMet: number;
  steps: number;
  /** "This approval is your API key step of MFA policy "sign"; 1 of 1 steps" (or why it cannot be). */
  approvalIs: string;
}

/** What this desktop can stamp an MFA step with for the profile's user. */
export interface HeldCredentials {
  /** The public key the profile stamps with (its keychain or token key); absent when it cannot be read. */
  apiKeyPublicKey?: string;
  /** The authenticator id of the profile's passkey, which stamps its votes instead of the API key. */
  passkeyAuthenticatorId?: string;
}

/** Where an activity waiting for authenticators stands per user: the service's `get_mfa_status`, and what this desktop holds. */
export interface MfaInput {
  statuses: readonly MfaStatus[];
  held: HeldCredentials;
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
  /** An activity waiting for authenticators: each awaited user's MFA status. */
  mfa?: MfaInput;
}

export function voteReadingOf({ activity, tally, snapshot, profileName, title, signer, standing, withViewer, mfa }: VoteReadingInput): VoteReading {
  const viewerId = snapshot.viewer.userId;
  const viewerVote = currentVoteOf(tally.voters, viewerId)?.selection;
  const proposer = proposerOf(tally.voters);
  const read = typeof standing === 'string' ? undefined : standing;
  const mayVote = read !== undefined && (read.viewerCanApprove || read.stillToVote.some((voter) => voter.userId === viewerId));
  const viewerCompletes = viewerVote === undefined && typeof withViewer !== 'string' && withViewer.outcome === 'ALLOW' && read?.outcome !== 'ALLOW';
  const required = read === undefined ? undefined : requiredOf(read, tally.approverIds.length);
  const steps = mfa === undefined ? { awaited: [] } : authenticatorsOf(mfa, snapshot, profileName);
  const authenticators = steps.viewer;
  return {
    voter: voterInWords(snapshot, profileName),
    ...(proposer === undefined ? {} : { proposer }),
    proposedByViewer: tally.voters[0]?.userId === viewerId,
    approvals: tally.approverIds.length,
    ...(required === undefined ? {} : { required }),
    progress: required === undefined ? `${tally.approverIds.length} approved` : `${tally.approverIds.length} of ${required} approved`,
    verdict: verdictInWords(standing),
    stillNeeded: withOpenSteps(stillNeededInWords(standing), authenticators, steps.awaited),
    stillToVote: read?.stillToVote ?? [],
    ...(viewerVote === undefined ? {} : { viewerVote }),
    viewerCounts: read?.viewerCanApprove === true,
    viewerCompletes,
    approveDoes:
      authenticators === undefined
        ? approveDoes({ activity, title, signer, read, withViewer, viewerVote, viewerCompletes })
        : authenticators.approvalIs,
    rejectDoes: viewerVote === 'rejected' ? 'you rejected it already' : mayVote || viewerVote === 'approved' ? REJECTION_ENDS : REJECTION_REFUSED,
    warnings: overrideWarning(read, snapshot),
    ...(authenticators === undefined ? {} : { authenticators }),
    ...(steps.awaited.length === 0 ? {} : { awaitedAuthenticators: steps.awaited }),
  };
}

/** How each method is named, and what an activity waiting for it says on the viewer's rows. */
const METHODS: Record<AuthenticationMethod['type'], { kind: string; headline: string }> = {
  AUTHENTICATION_TYPE_PASSKEY: { kind: 'security key', headline: 'Needs your security key' },
  AUTHENTICATION_TYPE_API_KEY: { kind: 'API key', headline: 'Needs your API key approval' },
  AUTHENTICATION_TYPE_SESSION: { kind: 'session', headline: 'Needs your session approval' },
  AUTHENTICATION_TYPE_EMAIL_OTP: { kind: 'email code', headline: 'Needs your email code' },
  AUTHENTICATION_TYPE_SMS_OTP: { kind: 'SMS code', headline: 'Needs your SMS code' },
  AUTHENTICATION_TYPE_OAUTH: { kind: 'OAuth sign-in', headline: 'Needs your OAuth sign-in' },
};

/** Whether `presented` meets `required`: the same type, and the same credential where the step names one. */
function meets(presented: AuthenticationMethod, required: AuthenticationMethod): boolean {
  return presented.type === required.type && (required.id === undefined || required.id === presented.id);
}

function stepsMetBy(status: Pick<MfaStatus, 'requiredMethods'>, presented: readonly AuthenticationMethod[]): number {
  return status.requiredMethods.filter((step) => step.any.some((required) => presented.some((method) => meets(method, required)))).length;
}

/** The viewer's open MFA step, in words, and every other user's still awaited. */
function authenticatorsOf(mfa: MfaInput, snapshot: OrganizationSnapshot, profileName: string): { viewer?: AuthenticatorsReading; awaited: string[] } {
  const open = mfa.statuses.filter((status) => !status.satisfied);
  const mine = open.find((status) => status.userId === snapshot.viewer.userId);
  const awaited = open
    .filter((status) => status !== mine)
    .map((status) => {
      const user = snapshot.users.find((candidate) => candidate.userId === status.userId);
      const step = status.requiredMethods.find((candidate) => stepsMetBy({ requiredMethods: [candidate] }, status.satisfiedMethods) === 0);
      const methods = (step?.any ?? []).map((method) => credentialInWords(method, user, status.userId)).join(' or ');
      return `${methods} (MFA policy ${policyNameOf(user, status.mfaPolicyId)}; ${stepsMetBy(status, status.satisfiedMethods)} of ${status.requiredMethods.length} steps met)`;
    });
  return mine === undefined ? { awaited } : { viewer: viewerStep(mine, snapshot, mfa.held, profileName), awaited };
}

function viewerStep(status: MfaStatus, snapshot: OrganizationSnapshot, held: HeldCredentials, profileName: string): AuthenticatorsReading {
  const user = snapshot.users.find((candidate) => candidate.userId === status.userId);
  const presented = presentedBy(user, held);
  const stepsMet = stepsMetBy(status, status.satisfiedMethods);
  const openSteps = status.requiredMethods.filter((step) => stepsMetBy({ requiredMethods: [step] }, status.satisfiedMethods) === 0);
  const openMethods = openSteps.flatMap((step) => step.any);
  const heldMethod = presented === undefined ? undefined : openMethods.find((method) => meets(presented, method));
  const method = heldMethod ?? openMethods[0] ?? { type: 'AUTHENTICATION_TYPE_API_KEY' as const };
  const { kind, headline } = METHODS[method.type];
  const policy = policyNameOf(user, status.mfaPolicyId);
  const steps = status.requiredMethods.length;
  const heldWords =
    heldMethod !== undefined
      ? `this desktop stamps with it (profile ${quotedText(profileName)})`
      : notHeldInWords(method, user, status.userId, profileName, held);
  return {
    headline,
    approveLabel: `Approve with your ${kind}…`,
    policy,
    method: method.type,
    ...(method.id === undefined ? {} : { credentialId: method.id }),
    credential: credentialInWords(method, user, status.userId),
    heldHere: heldMethod !== undefined,
    held: heldWords,
    stepsMet,
    steps,
    approvalIs:
      heldMethod !== undefined && presented !== undefined
        ? `This approval is your ${kind} step of MFA policy ${policy}; ${stepsMetBy(status, [...status.satisfiedMethods, presented])} of ${steps} steps`
        : `Your ${kind} step of MFA policy ${policy} is open (${stepsMet} of ${steps} steps met), but ${heldWords}: an approval from here would be refused`,
  };
}

/**
 * The method this desktop's approval presents, by id, as the service records it: the profile's passkey where it has
 * one (the Stamper stamps every vote with it), else its API key; nothing when the user has no such credential.
 */
function presentedBy(user: User | undefined, held: HeldCredentials): AuthenticationMethod | undefined {
  if (held.passkeyAuthenticatorId !== undefined) {
    const passkey = user?.authenticators.find((authenticator) => authenticator.authenticatorId === held.passkeyAuthenticatorId);
    return passkey === undefined ? undefined : { type: 'AUTHENTICATION_TYPE_PASSKEY', id: passkey.authenticatorId };
  }
  const ownKey = user?.apiKeys.find(
    (key) => held.apiKeyPublicKey !== undefined && key.credential.publicKey.toLowerCase() === held.apiKeyPublicKey.toLowerCase(),
  );
  return ownKey === undefined ? undefined : { type: 'AUTHENTICATION_TYPE_API_KEY', id: ownKey.apiKeyId };
}

/** Why this desktop cannot meet `method` for the user. */
function notHeldInWords(method: AuthenticationMethod, user: User | undefined, userId: string, profileName: string, held: HeldCredentials): string {
  const name = visibleText(user?.userName ?? userId);
  switch (method.type) {
    case 'AUTHENTICATION_TYPE_PASSKEY':
      if (held.passkeyAuthenticatorId === undefined) return `this desktop has no security key registered for ${name}`;
      return method.id === undefined
        ? `the security key profile ${quotedText(profileName)} votes with is not registered for ${name}`
        : `profile ${quotedText(profileName)} votes with another security key than ${credentialInWords(method, user, userId)}`;
    case 'AUTHENTICATION_TYPE_API_KEY':
      if (held.passkeyAuthenticatorId !== undefined) return `profile ${quotedText(profileName)} votes with its security key, not an API key`;
      return held.apiKeyPublicKey === undefined
        ? `the API key profile ${quotedText(profileName)} signs with cannot be read`
        : `profile ${quotedText(profileName)} signs with another API key than ${credentialInWords(method, user, userId)}`;
    default:
      return `QuorumKey cannot present ${credentialInWords(method, user, userId)}`;
  }
}

/** "the API key "ci" of Bea", "any security key of Bea", "Bea's email code". */
function credentialInWords(method: AuthenticationMethod, user: User | undefined, userId: string): string {
  const name = visibleText(user?.userName ?? userId);
  const { kind } = METHODS[method.type];
  if (method.id === undefined) {
    return method.type === 'AUTHENTICATION_TYPE_EMAIL_OTP' || method.type === 'AUTHENTICATION_TYPE_SMS_OTP'
      ? `${name}'s ${kind}`
      : `any ${kind} of ${name}`;
  }
  const named =
    method.type === 'AUTHENTICATION_TYPE_API_KEY'
      ? user?.apiKeys.find((key) => key.apiKeyId === method.id)?.apiKeyName
      : method.type === 'AUTHENTICATION_TYPE_PASSKEY'
        ? user?.authenticators.find((authenticator) => authenticator.authenticatorId === method.id)?.authenticatorName
        : method.type === 'AUTHENTICATION_TYPE_OAUTH'
          ? user?.oauthProviders.find((provider) => provider.providerId === method.id)?.providerName
          : undefined;
  return `the ${kind} ${quotedText(named ?? method.id)} of ${name}`;
}

function policyNameOf(user: User | undefined, mfaPolicyId: string): string {
  return quotedText(user?.mfaPolicies.find((policy) => policy.mfaPolicyId === mfaPolicyId)?.mfaPolicyName ?? mfaPolicyId);
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

/**
 * "Still needs" with the MFA steps the activity waits for first: a policy that allows it allows nothing until they
 * are met, so "nothing more" alone would contradict the step shown beside it.
 */
function withOpenSteps(stillNeeded: string, viewer: AuthenticatorsReading | undefined, awaited: readonly string[]): string {
  const open = [
    ...(viewer === undefined ? [] : [`${viewer.credential} (MFA policy ${viewer.policy}; ${viewer.stepsMet} of ${viewer.steps} steps met)`]),
    ...awaited,
  ];
  return open.length === 0 ? stillNeeded : `first ${open.join(', and ')}; then ${stillNeeded}`;
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
