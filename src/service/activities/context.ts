/**
 * What a family handler sees. Query handlers read committed data; activity handlers run inside the
 * transaction that records their activity and must write only through `ctx.store`.
 */
import type { z } from 'zod';
import type { ActivityOperation } from '../../shared/api';
import type { Activity } from '../../shared/api/activity-record';
import type { activityOperations } from '../../shared/api/activities';
import type { queryOperations } from '../../shared/api/queries';
import type { Credential } from '../auth/credentials';
import type { ConditionRequest } from '../authorize';
import type { Repositories } from '../store';
import type { OrganizationRecord } from '../store/organizations';
import type { ActivityRecord, VoteRecord, VoteSelection } from '../store/activities';
import type { Enclave, SignedAhead } from '../enclave';

/** The enclave: the only holder of service-side secrets (enclave/index.ts). */
export type { Enclave, SignedAhead } from '../enclave';

export interface ActingUser {
  userId: string;
  /** The user's own organization (a parent organization when reading a sub-organization). */
  organizationId: string;
  credential: Credential;
}

export interface QueryContext {
  store: Repositories;
  organizationId: string;
  organization: OrganizationRecord;
  actor: ActingUser;
  now: number;
  /** For the enclave's public facts (its signing and app-proof keys). */
  enclave: Enclave;
  /**
   * Whether the stamping credential may read a resource (as conditions name it: `wallet`, `wallet_account`, …), for a
   * query that lists resources of several wallets or keys; undefined when nothing restricts its reads.
   */
  readScope(): ReadScope | undefined;
}

/** A session scope's judgement of one resource a query would answer. */
export type ReadScope = (resources: Record<string, unknown>) => boolean;

export interface ActivityContext {
  store: Repositories;
  organizationId: string;
  organization: OrganizationRecord;
  /** The proposer: who submitted the activity (also when a later approval completes it). */
  actor: ActingUser;
  now: number;
  newId: () => string;
  activityId: string;
  enclave: Enclave;
  /** What the handler's signAhead made before the transaction, if the pipeline ran it. */
  signedAhead?: SignedAhead;
}

export type QueryName = keyof typeof queryOperations;
export type ActivityName = keyof typeof activityOperations;

type QueryRequest<N extends QueryName> = z.output<(typeof queryOperations)[N]['request']>;
type QueryResponse<N extends QueryName> = z.input<(typeof queryOperations)[N]['response']>;
type ActivityParams<N extends ActivityName> = z.output<(typeof activityOperations)[N]['parameters']>;
type ActivityResult<N extends ActivityName> = z.input<(typeof activityOperations)[N]['result']>;

export type QueryHandler<N extends QueryName = QueryName> = (
  ctx: QueryContext,
  request: QueryRequest<N>,
) => QueryResponse<N> | Promise<QueryResponse<N>>;

/** An address an activity derived, for its APP_PROOF_TYPE_ADDRESS_DERIVATION proof (docs/formats.md#app-proofs). */
export interface DerivedAddress {
  address: string;
  walletId?: string;
  derivationPath?: string;
}

/**
 * An activity's execution plus, optionally, the condition keywords its intent names (`wallet`,
 * `private_key`, …) so that policies can test them (docs/service.md#policy-keywords).
 */
export interface ActivityHandler<N extends ActivityName = ActivityName> {
  /**
   * Present when a credential of the target's direct parent organization may propose this activity for a
   * sub-organization (as the auth proxy does with its key held for the parent, docs/service.md#auth-proxy). The parent
   * organization's own policies must allow its user to; the sub-organization's quorum and policies are not consulted.
   * Instead this proves whom the activity acts for (e.g. a verified OIDC token matched to a user of the
   * sub-organization). Both run before anything is recorded: what they throw is an HTTP error that leaves no trace in
   * the sub-organization. A proven proposal is recorded there and executed like the sub-organization's own, so what
   * execute refuses (otp_auth's wrong code) is a failed activity that counts the same. The parent user is recorded as
   * proposer; they may not vote on the sub-organization's activities.
   */
  parentProposalProof?(store: Repositories, organizationId: string, params: ActivityParams<N>, now: number): Promise<void>;
  /** Checks the request before anything is recorded; what it throws is an HTTP error (docs/service.md#status-codes). */
  validate?(store: Repositories, organizationId: string, params: ActivityParams<N>): void;
  execute(ctx: ActivityContext, params: ActivityParams<N>): ActivityResult<N> | Promise<ActivityResult<N>>;
  policyResources?(store: Repositories, organizationId: string, params: ActivityParams<N>): Record<string, unknown>;
  /**
   * Present when policyResources is expensive (it decodes a transaction or typed data): the resources known without
   * that work, so the pipeline can refuse a request no policy could allow before doing it (authorize's
   * refusedBeforeDecoding).
   */
  resourcesBeforeDecoding?(store: Repositories, organizationId: string, params: ActivityParams<N>): Record<string, unknown>;
  /**
   * Present when execute waits on the signing workers: the same signatures, made from committed data before the
   * activity's transaction takes the store's write lock, so that other activities' transactions run while a worker
   * signs. The pipeline runs it only when committed data says the submission executes at once, and execute receives
   * its result (ActivityContext.signedAhead), to use only where it fits what the transaction reads (SignedAhead).
   */
  signAhead?(store: Repositories, organizationId: string, params: ActivityParams<N>, enclave: Enclave): Promise<SignedAhead>;
  /** The addresses a result derives; the pipeline proves each one when the request asks for app proofs. */
  derivedAddresses?(result: Awaited<ActivityResult<N>>): DerivedAddress[];
}

/** approve_activity / reject_activity: a vote on the activity with the given fingerprint. */
export interface DecisionHandler {
  decision: VoteSelection;
}

/** What an executed activity produced, for the steps that run after its handler (app proofs). */
export interface Completion {
  /** The handler's result: the activity's result member. */
  result: unknown;
  derivedAddresses: readonly DerivedAddress[];
  /** The approvals that authorized the execution. */
  approvals: readonly VoteRecord[];
}

/**
 * Family code that the pipeline runs around every activity, whatever its operation. A family declares its hooks in
 * `Family.hooks`; the service's composition (src/service/index.ts) hands all of them to the pipeline, so the pipeline
 * imports no family.
 */
export interface ActivityHooks {
  /** Before any submission or vote (`activityType` is then APPROVE/REJECT): throws to refuse what the credential may never do. */
  checkCredential?(credential: Credential, activityType: string, params: Record<string, unknown>): void;
  /**
   * Before authorization (also for a parent's proposal) and before every vote, whose `request` is then the activity
   * voted on: throws to refuse what the stamping credential may not do.
   */
  checkRequest?(credential: Credential, request: ConditionRequest): void;
  /**
   * Before a query that reads resources policies can name (`Family.queryResources`): throws to refuse a read the
   * stamping credential may not make.
   */
  checkQuery?(credential: Credential, request: QueryScopeRequest): void;
  /** For a query that lists resources: which of them the stamping credential may read (QueryContext.readScope). */
  readScope?(credential: Credential, store: Repositories): ReadScope | undefined;
  /** MFA (docs/service.md#mfa-policies): approvals that count only once their voter presented more authenticators. */
  authenticators?: AuthenticatorHooks;
  /**
   * Just before the handler runs, seeing the organization as the decision saw it; may return a step that runs once
   * the handler has succeeded, inside the same transaction.
   */
  beforeExecution?(ctx: ActivityContext, activity: ActivityRecord, op: ActivityOperation): ((completion: Completion) => Promise<void>) | undefined;
  /**
   * Once the transaction that gave an activity a new status (recorded it, or a vote settled it) has committed: the
   * activity as get_activity answers it. Must not throw; what it starts runs off the request.
   */
  afterStatusChange?(activity: Activity): void;
}

/**
 * What an approval must present besides its stamp before it counts. The pipeline asks after recording an approval (the
 * proposal's too) and before deciding; an activity waits in ACTIVITY_STATUS_AUTHENTICATORS_NEEDED meanwhile.
 */
export interface AuthenticatorHooks {
  /**
   * For a new approval: records what its voter's MFA policy that matches the activity requires, and returns whether
   * it still waits for authenticators the stamp did not present; the approval does not count until it is met.
   */
  recordRequirement(store: Repositories, request: ConditionRequest, approval: VoteRecord): boolean;
  /**
   * For an approval by a user whose requirement on the activity waits: adds what its stamp presents, or throws the
   * refusal naming what is needed when that meets no step still open.
   */
  present(store: Repositories, approval: VoteRecord): void;
  /** The users whose approvals of the activity wait for authenticators (they do not count yet). */
  awaited(store: Repositories, activityId: string): ReadonlySet<string>;
}

/** A query as a session profile's scope sees it: the resources it reads, as conditions name them; no activity. */
export interface QueryScopeRequest {
  /** The query's name, e.g. `get_wallet`. */
  query: string;
  store: Repositories;
  organization: OrganizationRecord;
  resources: Record<string, unknown>;
}

/** The condition keywords (`wallet`, `private_key`, …) for the resources one query of `N` reads. */
export type QueryResources<N extends QueryName = QueryName> = (
  store: Repositories,
  organizationId: string,
  request: QueryRequest<N>,
) => Record<string, unknown>;

/** One resource family: its query and activity handlers keyed by operation name, and its pipeline hooks. */
export interface Family {
  queries?: { [N in QueryName]?: QueryHandler<N> };
  /** For the queries that read one resource a scope may restrict to (a wallet, a private key). */
  queryResources?: { [N in QueryName]?: QueryResources<N> };
  activities?: { [N in ActivityName]?: ActivityHandler<N> | DecisionHandler };
  hooks?: ActivityHooks;
}
