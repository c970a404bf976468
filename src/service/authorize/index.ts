/**
 * Authorization and consensus (docs/service.md#policy-precedence, docs/service.md#consensus): root quorum → allow;
 * otherwise every policy of the organization whose `time` expression holds now is evaluated (the others are skipped) —
 * a matching DENY wins, a matching ALLOW whose consensus holds allows, a user managing its own credentials is allowed,
 * a matching ALLOW still short of consensus (or a root user short of the root threshold) waits for votes.
 */
import {
  conditionContextOf,
  policyFieldHolds,
  timeContextAt,
  type Authorization,
  type EngineApprover,
  type PolicyContext,
  type PolicyCredential,
  type PolicyUser,
} from '../../shared/policy';
import { QkError } from '../../shared/errors';
import { WEBAUTHN_CREDENTIAL_TYPE } from '../auth/credentials';
import type { Repositories } from '../store';
import type { OrganizationRecord, RootQuorum } from '../store/organizations';
import type { PolicyRecord } from '../store/policies';
import { deepFrozen, TableMemo } from '../store/table-memo';
import { answerInSlice, type DecisionInput, type PolicyJob, type PolicyJobResults } from './policy-jobs';
import type { PolicyJobRunner } from './policy-pool';
import type { EligibilitySearch, SearchedUser, VoteEligibility } from './vote-search';

export type { Authorization, PolicyEvaluation, PolicyOutcome } from '../../shared/policy';
export type { VoteEligibility } from './vote-search';

/** A user whose approval counts, with the credential they approved with. */
export interface Approver {
  userId: string;
  credential: PolicyCredential;
}

export interface AuthorizationRequest {
  store: Repositories;
  organization: OrganizationRecord;
  activityType: string;
  /** The intent's parameters as submitted. */
  params: Record<string, unknown>;
  /** Condition keywords the intent names (`wallet`, `private_key`, …), from the family's handler. */
  resources: Record<string, unknown>;
  approvers: readonly Approver[];
  /** The service's clock (epoch ms): `time.now` of the policies' time expressions. */
  now: number;
  log: (line: string) => void;
  /** Where a decision or search its slice of steps on the event loop does not answer is made (the policy workers). */
  policyWorkers: PolicyJobRunner;
}

/**
 * The steps a decision or a search of who may vote may take on the service's event loop, about 2 ms: an ordinary
 * decision takes a few thousand. One that needs more is made again on a policy worker within the whole budget, whose
 * answer is the same as the event loop's would be (docs/service.md#policy-language).
 */
export const INLINE_POLICY_STEPS = 10_000;

/** `job`'s result, from its slice on the event loop or else from a policy worker; the engine's log lines go to `log`. */
async function answered<K extends PolicyJob['kind']>(
  job: Extract<PolicyJob, { kind: K }>,
  request: Pick<AuthorizationRequest, 'policyWorkers' | 'log'>,
): Promise<PolicyJobResults[K]> {
  const answer = answerInSlice(job, INLINE_POLICY_STEPS) ?? (await request.policyWorkers.run(job));
  for (const line of answer.log) request.log(line);
  return answer.result;
}

/**
 * What every decision reads of an organization (its policies and root quorum, each approver's user and tags), kept per
 * connection while its tables are unchanged (table-memo.ts), so a run of activities reads it once, not per decision.
 */
class DecisionReads {
  private static readonly byRepositories = new WeakMap<Repositories, DecisionReads>();
  private readonly policyLists = new TableMemo<PolicyRecord[]>(['policies']);
  private readonly rootQuorums = new TableMemo<RootQuorum>(['organizations', 'root_quorum_members']);
  private readonly users = new TableMemo<PolicyUser>(['users', 'user_tag_members']);

  private constructor(private readonly store: Repositories) {}

  static of(store: Repositories): DecisionReads {
    let reads = DecisionReads.byRepositories.get(store);
    if (reads === undefined) {
      reads = new DecisionReads(store);
      DecisionReads.byRepositories.set(store, reads);
    }
    return reads;
  }

  policies(organizationId: string): PolicyRecord[] {
    const load = () => deepFrozen(this.store.policies.listByOrganization(organizationId));
    return this.policyLists.get(organizationId, load, this.policyLists.mayRemember(this.store.connection));
  }

  rootQuorum(organizationId: string): RootQuorum {
    const load = () => deepFrozen(this.store.organizations.rootQuorum(organizationId));
    return this.rootQuorums.get(organizationId, load, this.rootQuorums.mayRemember(this.store.connection));
  }

  user(userId: string): PolicyUser {
    const load = (): PolicyUser => {
      const user = this.store.users.get(userId);
      return deepFrozen({
        id: userId,
        tags: this.store.userTags.tagIdsOfUser(userId),
        ...(user?.email === undefined ? {} : { email: user.email }),
        ...(user?.name === undefined ? {} : { alias: user.name }),
      });
    };
    return this.users.get(userId, load, this.users.mayRemember(this.store.connection));
  }
}

function policyUser(store: Repositories, userId: string): PolicyUser {
  return DecisionReads.of(store).user(userId);
}

/** What a condition is evaluated over: the activity and the rows it names. */
export type ConditionRequest = Pick<AuthorizationRequest, 'store' | 'organization' | 'activityType' | 'params' | 'resources'>;

/** The condition context (shared `conditionContextOf`), with `user` read when `params.userId` is of this organization. */
export function conditionContext(request: ConditionRequest): PolicyContext {
  const { store, organization, params } = request;
  const target = typeof params.userId === 'string' ? store.users.get(params.userId) : undefined;
  const targetUser = target?.organizationId === organization.id ? policyUser(store, target.id) : undefined;
  return conditionContextOf(request.activityType, params, request.resources, targetUser);
}

function engineApprovers(store: Repositories, approvers: readonly Approver[]): EngineApprover[] {
  const users = new Map<string, PolicyUser>();
  return approvers.map(({ userId, credential }) => {
    const user = users.get(userId) ?? policyUser(store, userId);
    users.set(userId, user);
    return { user, credential };
  });
}

function isRootUser(store: Repositories, organizationId: string, userId: string): boolean {
  return DecisionReads.of(store).rootQuorum(organizationId).userIds.includes(userId);
}

/** Whether the policy's time window holds at `now`; a policy without one is always active, one that errs is not. */
export function policyTimeStatus(policy: PolicyRecord, now: number): { active: boolean; error?: string } {
  const held = policyFieldHolds(policy.time, 'time', timeContextAt(now));
  return typeof held === 'boolean' ? { active: held } : { active: false, error: held.message };
}

/** What the shared engine decides over: the organization's stored policies, users and root quorum. */
function decisionInput(request: AuthorizationRequest): DecisionInput {
  const { store, organization } = request;
  return {
    policies: DecisionReads.of(store).policies(organization.id),
    activityType: request.activityType,
    params: request.params,
    condition: conditionContext(request),
    approvers: engineApprovers(store, request.approvers),
    rootQuorum: DecisionReads.of(store).rootQuorum(organization.id),
    now: request.now,
  };
}

export function authorize(request: AuthorizationRequest): Promise<Authorization> {
  return answered({ kind: 'decide', request: decisionInput(request) }, request);
}

/**
 * The refusal `authorize` is certain to give whatever the decoded transaction or typed data says, decided over
 * `request.resources` without them (the shared engine's `refusedBeforeDecoding`), or undefined when decoding may matter.
 */
export function refusedBeforeDecoding(request: AuthorizationRequest): Promise<Extract<Authorization, { decision: 'deny' }> | undefined> {
  return answered({ kind: 'refused-before-decoding', request: decisionInput(request) }, request);
}

/** Turnkey's text for a request a DENY policy refuses (`Turnkey error 7: policy engine denied request explicitly`). */
const EXPLICIT_DENY_MESSAGE = 'policy engine denied request explicitly';

/**
 * The 403 a denial answers (docs/service.md#error-body: a PolicyEnginePermissionError detail). An explicit deny carries
 * Turnkey's own message verbatim, since its SDKs' callers match on it; which policy denied is in the evaluations.
 */
export function denialError(authorization: Extract<Authorization, { decision: 'deny' }>, activityType: string): QkError {
  const message =
    authorization.reason === 'explicit'
      ? EXPLICIT_DENY_MESSAGE
      : `request not authorized: No policies evaluated to outcome: Allow for ${activityType}; ask a root user to add a policy or approve it with the root quorum`;
  return new QkError('REQUEST_NOT_AUTHORIZED', message, {
    wireDetails: [
      {
        '@type': 'type.googleapis.com/errors.v1.PolicyEnginePermissionError',
        message: authorization.reason === 'explicit' ? 'Policy evaluated to outcome: Deny' : 'No policies evaluated to outcome: Allow',
        policyEvaluations: authorization.evaluations,
      },
    ],
  });
}

/** `voteEligibility`, as a yes or no. */
export async function isEligibleVoter(request: Omit<AuthorizationRequest, 'approvers'>, userId: string): Promise<boolean> {
  return (await voteEligibility(request, userId)).eligible;
}

/**
 * Whether `userId` may vote on the activity: a root-quorum member, or a user whose approval can make a difference to
 * the consensus of an ALLOW policy whose condition matches, active at `now` (docs/service.md#who-may-vote; the search
 * is `searchVoteEligibility`, over what `eligibilitySearch` reads from the store).
 */
export async function voteEligibility(request: Omit<AuthorizationRequest, 'approvers'>, userId: string): Promise<VoteEligibility> {
  const { store, organization } = request;
  if (isRootUser(store, organization.id, userId)) return { eligible: true };
  const search = eligibilitySearch(request, userId);
  if (search === undefined) return { eligible: false, tooCostly: [] };
  return answered({ kind: 'vote-eligibility', search }, request);
}

/** What the search of whether `userId` may vote reads, or undefined when the user is not of the organization. */
export function eligibilitySearch(request: ConditionRequest & Pick<AuthorizationRequest, 'now'>, userId: string): EligibilitySearch | undefined {
  const { store, organization } = request;
  const everyone = store.users.listByOrganization(organization.id).map((user) => user.id);
  if (!everyone.includes(userId)) return undefined;
  // Each user as if approving with every credential they hold (API keys and passkeys).
  const users = everyone.map((id): SearchedUser => ({
    user: policyUser(store, id),
    credentials: [
      ...store.apiKeys.listByUser(id).map((key) => ({ id: key.id, user_id: id, type: key.credentialType, public_key: key.publicKey })),
      ...store.authenticators.listByUser(id).map((passkey) => ({
        id: passkey.id,
        user_id: id,
        type: WEBAUTHN_CREDENTIAL_TYPE,
        public_key: passkey.publicKey,
        credential_id: passkey.credentialId,
      })),
    ],
  }));
  return {
    userId,
    users,
    policies: DecisionReads.of(store).policies(organization.id),
    condition: conditionContext(request),
    now: request.now,
  };
}
