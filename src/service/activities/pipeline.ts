/**
 * The one pipeline every request goes through (docs/architecture.md#through-the-services-pipeline):
 * envelope → freshness → authenticate → fingerprint → idempotency / vote → authorize → consensus →
 * execute → record, the last four inside one store transaction. A raw payload's signatures may be made just before
 * that transaction (signAheadOfTransaction), so that the write lock never waits on a signing worker.
 */
import { fingerprintOf } from '../../shared/crypto/stamp';
import type { Activity } from '../../shared/api/activity-record';
import {
  olderVersionSubmitBodySchema,
  parseRequest,
  submitBodySchema,
  type ActivityOperation,
  type ActivityVersion,
  type QueryOperation,
  type SubmitBody,
} from '../../shared/api';
import { countingApprovals, hasCountingApproval } from '../../shared/approvals/voting';
import { QkError } from '../../shared/errors';
import { authenticate, type Actor, type RequestHeaders, type StampFormat } from '../auth/authenticate';
import { credentialStillHeld, WEBAUTHN_CREDENTIAL_TYPE } from '../auth/credentials';
import { requireAllowedAddress } from '../auth/ip-allowlist';
import { authenticateReadOnlySession, readOnlySessionOf } from '../auth/read-only-session';
import {
  type Approver,
  type Authorization,
  type AuthorizationRequest,
  type ConditionRequest,
  authorize,
  denialError,
  refusedBeforeDecoding,
  voteEligibility,
} from '../authorize';
import type { PolicyJobRunner } from '../authorize/policy-pool';
import { rpcStatusOf } from '../server/errors';
import type { Repositories, Store } from '../store';
import type { OrganizationRecord } from '../store/organizations';
import { ConnectionMemo, deepFrozen } from '../store/table-memo';
import type { ActivityRecord, PolicyEvaluation, VoteRecord, VoteSelection } from '../store/activities';
import type {
  ActingUser,
  ActivityContext,
  ActivityHandler,
  ActivityHooks,
  DecisionHandler,
  DerivedAddress,
  Enclave,
  QueryHandler,
  QueryResources,
  ReadScope,
  SignedAhead,
} from './context';
import { activityView, recordedActivityView } from './views';

export interface PipelineDeps {
  store: Store;
  stampFormats: readonly StampFormat[];
  enclave: Enclave;
  now: () => number;
  newId: () => string;
  log: (line: string) => void;
  /** Every family's hooks (Family.hooks). */
  hooks: readonly ActivityHooks[];
  /** The clock an activity's timestampMs is held to, when not `now` (the Sandbox's clock may be moved ahead). */
  timestampClock?: () => number;
  /** Where a decision too costly for the event loop is made (authorize's policy workers). */
  policyWorkers: PolicyJobRunner;
}

/** An activity operation with the handler its family provides. */
export interface ActivityRoute {
  op: ActivityOperation;
  handler: ActivityHandler | DecisionHandler;
  /** Set when the route serves an older version of `op`: recorded and answered under that version's names. */
  version?: ActivityVersion;
}

/** The type, intent and result names an activity of `route` is authorized, recorded and answered under. */
function namesOf(route: ActivityRoute): { activityType: string; intentKey: string; resultKey: string | null } {
  return route.version ?? route.op;
}

/** The route of an older version when the body names one of `route`'s older types, else `route` itself. */
function versionRoute(route: ActivityRoute, body: unknown, routesByType: ReadonlyMap<string, ActivityRoute>): ActivityRoute {
  const type = (body as { type?: unknown }).type;
  if (typeof type !== 'string' || type === route.op.activityType) return route;
  const older = routesByType.get(type);
  return older?.version !== undefined && older.op === route.op ? older : route;
}

/** The envelope of a submission of `route`, its parameters read as the current operation's parameters. */
function parseSubmission(route: ActivityRoute, body: unknown): { envelope: SubmitBody<unknown>; params: Record<string, unknown> } {
  if (route.version === undefined) {
    const envelope = parseRequest(submitBodySchema(route.op), body, `${route.op.name} request`);
    return { envelope, params: envelope.parameters as Record<string, unknown> };
  }
  const envelope = parseRequest(olderVersionSubmitBodySchema(route.version, route.op), body, `${route.op.name} request`);
  const current = route.version.toCurrent(envelope.parameters);
  return { envelope, params: parseRequest(route.op.parameters, current, `${route.version.activityType} parameters`) as Record<string, unknown> };
}

export interface QueryRoute {
  op: QueryOperation;
  handler: QueryHandler;
  /** Present when the query reads a resource a session profile's scope may restrict. */
  resources?: QueryResources;
}

export interface IncomingRequest {
  rawBody: Buffer;
  body: unknown;
  headers: RequestHeaders;
  /** The client's address as the connection reports it, checked against IP allowlists. */
  remoteAddress: string | undefined;
}

/** Submissions may be at most this old, and at most this far in the future (docs/service.md#transport). */
export const MAX_TIMESTAMP_AGE_MS = 60 * 60 * 1000;
export const MAX_TIMESTAMP_SKEW_MS = 5 * 60 * 1000;

type AnyQueryHandler = (ctx: Parameters<QueryHandler>[0], request: unknown) => unknown;
type AnyQueryResources = (store: Repositories, organizationId: string, request: unknown) => Record<string, unknown>;
type AnyActivityHandler = {
  parentProposalProof?(store: Repositories, organizationId: string, params: unknown, now: number): Promise<void>;
  validate?(store: Repositories, organizationId: string, params: unknown): void;
  execute(ctx: ActivityContext, params: unknown): unknown;
  policyResources?(store: Repositories, organizationId: string, params: unknown): Record<string, unknown>;
  resourcesBeforeDecoding?(store: Repositories, organizationId: string, params: unknown): Record<string, unknown>;
  signAhead?(store: Repositories, organizationId: string, params: unknown, enclave: Enclave): Promise<SignedAhead>;
  derivedAddresses?(result: unknown): DerivedAddress[];
};

function actingUser(actor: Pick<Actor, 'user' | 'credential'>): ActingUser {
  return { userId: actor.user.id, organizationId: actor.user.organizationId, credential: actor.credential };
}

function organizationIdOf(body: unknown): string {
  const organizationId = (body as { organizationId?: unknown } | null)?.organizationId;
  if (typeof organizationId !== 'string' || organizationId === '') {
    throw new QkError('REQUEST_INVALID', 'organizationId: required; send the id of the organization to act on', {
      issues: [{ path: 'organizationId', message: 'required' }],
    });
  }
  return organizationId;
}

export async function runQuery(deps: PipelineDeps, route: QueryRoute, request: IncomingRequest): Promise<unknown> {
  const parsed = parseRequest(route.op.request, request.body, `${route.op.name} request`) as { organizationId: string };
  const now = deps.now();
  const readOnlySession = readOnlySessionOf(request.headers);
  const { actor, organization } =
    readOnlySession === undefined
      ? await authenticate(request.headers, request.rawBody, organizationIdOf(parsed), deps.stampFormats, deps.store.read, now)
      : authenticateReadOnlySession(readOnlySession, organizationIdOf(parsed), deps.store.read, now);
  requireAllowedAddress(deps.store.read, actor.credential, request.remoteAddress);
  if (route.resources !== undefined) {
    const resources = (route.resources as AnyQueryResources)(deps.store.read, organization.id, parsed);
    for (const hook of deps.hooks) hook.checkQuery?.(actor.credential, { query: route.op.name, store: deps.store.read, organization, resources });
  }
  const handler = route.handler as AnyQueryHandler;
  const readScope = (): ReadScope | undefined => {
    const scopes = deps.hooks.flatMap((hook) => hook.readScope?.(actor.credential, deps.store.read) ?? []);
    return scopes.length === 0 ? undefined : (resources) => scopes.every((allows) => allows(resources));
  };
  return handler(
    { store: deps.store.read, organizationId: organization.id, organization, actor: actingUser(actor), now, enclave: deps.enclave, readScope },
    parsed,
  );
}

function checkFreshness(timestampMs: string, now: number): void {
  const sent = Number(timestampMs);
  if (!Number.isSafeInteger(sent)) {
    throw new QkError('INVALID_TIME', `timestampMs ${timestampMs} is not a millisecond timestamp`);
  }
  if (sent < now - MAX_TIMESTAMP_AGE_MS) {
    throw new QkError(
      'INVALID_TIME',
      `timestampMs ${timestampMs} is more than one hour old (service time ${now}); stamp a new request with the current time`,
      { timestampMs, serviceTimeMs: String(now) },
    );
  }
  if (sent > now + MAX_TIMESTAMP_SKEW_MS) {
    throw new QkError(
      'INVALID_TIME',
      `timestampMs ${timestampMs} is more than 5 minutes in the future (service time ${now}); check the client clock`,
      { timestampMs, serviceTimeMs: String(now) },
    );
  }
}

function vote(deps: PipelineDeps, activityId: string, actor: Actor, selection: VoteSelection, message: string, now: number): VoteRecord {
  return {
    id: deps.newId(),
    activityId,
    userId: actor.user.id,
    selection,
    message,
    publicKey: actor.stamp.publicKey,
    signature: actor.stamp.signature,
    scheme: actor.stamp.scheme,
    credentialId: actor.credential.id,
    credentialType: actor.credential.type,
    createdAt: now,
  };
}

/**
 * Submits an activity. Validation, authentication and policy denials throw (HTTP errors, nothing
 * recorded); execution failures are recorded as ACTIVITY_STATUS_FAILED and answered with 200.
 */
export async function submitActivity(
  deps: PipelineDeps,
  pathRoute: ActivityRoute,
  request: IncomingRequest,
  routesByType: ReadonlyMap<string, ActivityRoute>,
): Promise<{ activity: Activity }> {
  const route = versionRoute(pathRoute, request.body, routesByType);
  const names = namesOf(route);
  const { envelope, params } = parseSubmission(route, request.body);
  const now = deps.now();
  checkFreshness(envelope.timestampMs, deps.timestampClock?.() ?? now);
  const { actor, organization, fromParentOrganization } = await authenticate(
    request.headers,
    request.rawBody,
    envelope.organizationId,
    deps.stampFormats,
    deps.store.read,
    now,
  );
  requireAllowedAddress(deps.store.read, actor.credential, request.remoteAddress);
  // authenticate() accepts only the target's own or direct parent's credentials; a parent may only propose what
  // the handler proves itself (ActivityHandler.parentProposalProof), never vote.
  const parentProposes = fromParentOrganization && !('decision' in route.handler) && route.handler.parentProposalProof !== undefined;
  if (fromParentOrganization && !parentProposes) throw organizationMismatch(organization, actor);
  const fingerprint = fingerprintOf(request.rawBody);
  const message = request.rawBody.toString('utf8');
  const signedAhead =
    'decision' in route.handler || parentProposes
      ? undefined
      : await signAheadOfTransaction(deps, route.handler, names.activityType, { organization, actor, params, fingerprint, now });

  const outcome = await deps.store.transaction(async (tx): Promise<{ activity: Activity; statusChanged: boolean }> => {
    if (!credentialStillHeld(tx, actor.credential)) {
      throw new QkError(
        'PUBLIC_KEY_NOT_FOUND',
        `the credential ${actor.credential.id} that stamped this request was deleted before the request could run; nothing was done`,
        { credentialId: actor.credential.id },
      );
    }
    // Also for votes: a recovery key may not approve or reject anything.
    for (const hook of deps.hooks) hook.checkCredential?.(actor.credential, names.activityType, params);
    const session: Session = { deps, tx, now, routesByType };
    if ('decision' in route.handler) {
      const target = tx.activities.findByFingerprint(organization.id, String(params.fingerprint));
      if (target === undefined) {
        throw new QkError(
          'ACTIVITY_NOT_FOUND',
          'No activity found with fingerprint. Consensus activities must target an existing activity by fingerprint',
          { fingerprint: params.fingerprint },
        );
      }
      return afterVote(target.status, await castVote(session, target, actor, route.handler.decision, message));
    }
    const existing = tx.activities.findByFingerprint(organization.id, fingerprint);
    if (existing !== undefined) {
      // Idempotent for the proposer; the byte-identical body from another user is that user's approval
      // (docs/service.md#fingerprint-idempotency-and-votes).
      const voted = tx.activities.votes(existing.id).some((v) => v.userId === actor.user.id);
      if (voted || existing.status !== 'ACTIVITY_STATUS_CONSENSUS_NEEDED') return { activity: activityView(tx, existing), statusChanged: false };
      if (parentProposes) throw organizationMismatch(organization, actor);
      return afterVote(existing.status, await castVote(session, existing, actor, 'VOTE_SELECTION_APPROVED', message));
    }
    const handler = route.handler as AnyActivityHandler;
    // A proposal no policy could allow is refused before its transaction or typed data is decoded.
    if (!parentProposes && handler.resourcesBeforeDecoding !== undefined) {
      const refusal = await refusedBeforeDecoding({
        store: tx,
        organization,
        activityType: names.activityType,
        params,
        resources: handler.resourcesBeforeDecoding(tx, organization.id, params),
        approvers: [approverOf(actor)],
        now,
        log: deps.log,
        policyWorkers: deps.policyWorkers,
      });
      if (refusal !== undefined) throw denialError(refusal, names.activityType);
    }
    // Also for a parent's proposal: a session profile limits its credential wherever it is used.
    const authorizationRequest = checkedProposal(deps, tx, handler, names.activityType, { organization, actor, params, now }, deps.log);
    // The sub-organization's quorum and policies know nothing of a parent user: the parent's policies and the
    // handler's own proof decide, both before anything is recorded.
    const authorization: Authorization = parentProposes
      ? await authorizeParentProposal(authorizationRequest, actor, handler)
      : await authorize({ ...authorizationRequest, approvers: [approverOf(actor)] });
    if (authorization.decision === 'deny') throw denialError(authorization, names.activityType);
    const record: ActivityRecord = {
      id: deps.newId(),
      organizationId: organization.id,
      type: names.activityType,
      status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
      fingerprint,
      body: message,
      intent: { [names.intentKey]: envelope.parameters },
      result: undefined,
      failure: undefined,
      proposerUserId: actor.user.id,
      createdAt: now,
      updatedAt: now,
    };
    let recorded = tx.activities.insert(record);
    const proposal = vote(deps, record.id, actor, 'VOTE_SELECTION_APPROVED', message, now);
    tx.activities.insertVote(proposal, evaluationOf(session, authorization));
    let stepsRan = false;
    // The proposer's MFA comes first: nothing runs, and no one else votes, while it waits (docs/service.md#mfa-policies).
    // A parent organization's user cannot approve here, so its proposal is not held to it.
    if (!parentProposes && recordAuthenticatorRequirement(deps, tx, authorizationRequest, proposal)) {
      recorded = { ...recorded, ...tx.activities.finish(record.id, { status: 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED' }, now) };
    } else if (authorization.decision === 'allow') {
      ({ activity: recorded, stepsRan } = await execute(session, recorded, route, actingUser(actor), params, signedAhead));
    }
    // The answer is built from what this transaction wrote: the proposal is the new activity's only vote, and only the
    // steps after its handler write app proofs.
    const appProofs = stepsRan ? tx.appProofs.listByActivity(record.id) : [];
    return { activity: recordedActivityView(tx, recorded, [proposal], appProofs), statusChanged: true };
  });
  if (outcome.statusChanged) announceStatusChange(deps, outcome.activity);
  return { activity: outcome.activity };
}

/** A new activity as proposed: by whom, in which organization, with which parameters, at the service's `now`. */
interface Proposal {
  organization: OrganizationRecord;
  actor: Actor;
  params: Record<string, unknown>;
  now: number;
}

/**
 * What the policies decide `proposal` on, as `store` reads it: the handler checks the parameters and names the
 * resources they touch, and the hooks check what the stamping credential may request. Throws what any of them refuse.
 */
function checkedProposal(
  deps: PipelineDeps,
  store: Repositories,
  handler: AnyActivityHandler,
  activityType: string,
  proposal: Proposal,
  log: (line: string) => void,
): Omit<AuthorizationRequest, 'approvers'> {
  const { organization, actor, params, now } = proposal;
  handler.validate?.(store, organization.id, params);
  const resources = handler.policyResources?.(store, organization.id, params) ?? {};
  for (const hook of deps.hooks) hook.checkRequest?.(actor.credential, { store, organization, activityType, params, resources });
  return { store, organization, activityType, params, resources, now, log, policyWorkers: deps.policyWorkers };
}

/**
 * The handler's signatures (ActivityHandler.signAhead), made before the transaction when committed data says the
 * submission executes at once: no activity has its fingerprint, the hooks let the credential make it, and the
 * policies allow it without anyone else's vote. Otherwise, or if any of that throws, nothing is made ahead: the
 * transaction decides as always, raises what is wrong, and signs if it executes. The only cost of a wrong guess (a
 * policy changed meanwhile, an MFA policy that makes it wait) is signatures never used.
 */
async function signAheadOfTransaction(
  deps: PipelineDeps,
  handler: AnyActivityHandler,
  activityType: string,
  submission: Proposal & { fingerprint: string },
): Promise<SignedAhead | undefined> {
  if (handler.signAhead === undefined) return undefined;
  const { organization, actor, params, fingerprint } = submission;
  const store = deps.store.read;
  try {
    if (store.activities.findByFingerprint(organization.id, fingerprint) !== undefined) return undefined;
    for (const hook of deps.hooks) hook.checkCredential?.(actor.credential, activityType, params);
    // The transaction's own decision logs what the policies say; this one only guesses it.
    const request = checkedProposal(deps, store, handler, activityType, submission, () => {});
    const guess = await authorize({ ...request, approvers: [approverOf(actor)] });
    if (guess.decision !== 'allow') return undefined;
    return await handler.signAhead(store, organization.id, params, deps.enclave);
  } catch {
    return undefined;
  }
}

/** The activity a vote answered with, and whether the vote moved it on from the status it had. */
function afterVote(statusBefore: string, activity: Activity): { activity: Activity; statusChanged: boolean } {
  return { activity, statusChanged: activity.status !== statusBefore };
}

/** Tells the hooks of a committed status change; a hook's failure is logged, never the request's. */
function announceStatusChange(deps: PipelineDeps, activity: Activity): void {
  for (const hook of deps.hooks) {
    try {
      hook.afterStatusChange?.(activity);
    } catch (error) {
      deps.log(`a hook failed after activity ${activity.id} became ${activity.status}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * A parent organization's proposal for its sub-organization: the parent's own policies must allow the proposer
 * outright (its votes cannot be collected on the sub-organization's activity), then the handler proves whom the
 * activity acts for. Either throws, so a refused proposal leaves no trace in the sub-organization's log.
 */
async function authorizeParentProposal(
  request: Omit<AuthorizationRequest, 'approvers'>,
  actor: Actor,
  handler: AnyActivityHandler,
): Promise<Authorization> {
  const { store, organization, activityType } = request;
  const parent = organizationIn(store, actor.credential.organizationId)!;
  const inParent = await authorize({ ...request, organization: parent, approvers: [approverOf(actor)] });
  if (inParent.decision === 'deny') throw denialError(inParent, activityType);
  if (inParent.decision === 'consensus-needed') {
    throw new QkError(
      'REQUEST_NOT_AUTHORIZED',
      `request not authorized: user ${actor.user.id} of parent organization ${parent.id} needs a policy there that allows ${activityType} on its own; a proposal for sub-organization ${organization.id} cannot wait for the parent's votes`,
      { organizationId: organization.id, parentOrganizationId: parent.id },
    );
  }
  await handler.parentProposalProof!(store, organization.id, request.params, request.now);
  return { decision: 'allow', by: 'operation-proof', evaluations: inParent.evaluations };
}

/**
 * What the policy engine decided for a vote, kept with it (get_policy_evaluations): the outcome of every policy that
 * applied; policies whose condition did not match the activity have no outcome on the wire.
 */
function evaluationOf(session: Session, authorization: Authorization): PolicyEvaluation {
  return {
    id: session.deps.newId(),
    outcomes: authorization.evaluations.filter((evaluation) => evaluation.outcome !== 'OUTCOME_NOT_APPLICABLE'),
  };
}

function organizationMismatch(organization: OrganizationRecord, actor: Actor): QkError {
  return new QkError(
    'ORGANIZATION_MISMATCH',
    `organization mismatch: request is targeting organization (${organization.id}), but voters are in organization (${actor.credential.organizationId}); stamp with a credential of ${organization.id}`,
    { organizationId: organization.id, voterOrganizationId: actor.credential.organizationId },
  );
}

interface Session {
  deps: PipelineDeps;
  tx: Repositories;
  now: number;
  routesByType: ReadonlyMap<string, ActivityRoute>;
}

function approverOf(actor: Actor): Approver {
  return {
    userId: actor.user.id,
    credential: {
      id: actor.credential.id,
      user_id: actor.user.id,
      type: actor.credential.type,
      public_key: actor.credential.publicKey,
      ...(actor.credential.credentialId === undefined ? {} : { credential_id: actor.credential.credentialId }),
    },
  };
}

/**
 * The approvals that count now, each with the credential it was made with, as `approverOf` gives the one being made:
 * a passkey's WebAuthn credential id is read from its authenticator (absent if that passkey was deleted since).
 */
function currentApprovers(store: Repositories, votes: readonly VoteRecord[], now: number): Approver[] {
  return countingApprovals(votes, now).map((v) => {
    const passkeyId =
      v.credentialType === WEBAUTHN_CREDENTIAL_TYPE
        ? store.authenticators.listByUser(v.userId).find((passkey) => passkey.id === v.credentialId)?.credentialId
        : undefined;
    return {
      userId: v.userId,
      credential: {
        id: v.credentialId,
        user_id: v.userId,
        type: v.credentialType,
        public_key: v.publicKey,
        ...(passkeyId === undefined ? {} : { credential_id: passkeyId }),
      },
    };
  });
}

/** Per connection: each organization's row, read once while the organizations table is unchanged. */
const organizationReads = new ConnectionMemo<OrganizationRecord | undefined>(['organizations']);

/**
 * The organization as `store` reads it now. Remembered only while the transaction has not written the organizations
 * table (it then reads what is committed), and read afresh after any write to it (table-memo.ts).
 */
function organizationIn(store: Repositories, organizationId: string): OrganizationRecord | undefined {
  return organizationReads.read(store, organizationId, () => deepFrozen(store.organizations.get(organizationId)));
}

function routeOf(session: Session, activity: ActivityRecord): ActivityRoute & { handler: ActivityHandler } {
  const route = session.routesByType.get(activity.type);
  if (route === undefined || 'decision' in route.handler) {
    throw new QkError('INTERNAL', `no handler executes ${activity.type} (activity ${activity.id})`);
  }
  return route as ActivityRoute & { handler: ActivityHandler };
}

function parametersOf(activity: ActivityRecord, route: ActivityRoute): Record<string, unknown> {
  return parseSubmission(route, JSON.parse(activity.body)).params;
}

async function castVote(session: Session, target: ActivityRecord, actor: Actor, selection: VoteSelection, message: string): Promise<Activity> {
  const { deps, tx, now } = session;
  if (target.status !== 'ACTIVITY_STATUS_CONSENSUS_NEEDED' && target.status !== 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED') {
    throw new QkError(
      'ACTIVITY_NOT_PENDING',
      `activity ${target.id} is ${target.status}; only activities in ACTIVITY_STATUS_CONSENSUS_NEEDED or ACTIVITY_STATUS_AUTHENTICATORS_NEEDED take votes`,
      { activityId: target.id, status: target.status },
    );
  }
  const awaited = authenticatorsAwaited(deps, tx, target.id);
  // An approval by a user whose MFA waits presents one more authenticator for it; it is not a second vote.
  const authenticatorStep = selection === 'VOTE_SELECTION_APPROVED' && awaited.has(actor.user.id);
  if (!awaited.has(actor.user.id) && awaited.has(target.proposerUserId)) {
    throw new QkError(
      'ACTIVITY_NOT_PENDING',
      `activity ${target.id} waits for its proposer ${target.proposerUserId} to present the authenticators their MFA policy requires; others vote once it is met`,
      { activityId: target.id, status: target.status },
    );
  }
  const votes = tx.activities.votes(target.id);
  // A user whose approval expired with its window approves again; one that still counts is a vote already cast.
  if (!authenticatorStep && hasCountingApproval(votes, actor.user.id, now)) {
    throw new QkError('ALREADY_VOTED', `user ${actor.user.id} has already voted on activity ${target.id} in its current approval window`, {
      activityId: target.id,
      userId: actor.user.id,
    });
  }
  const route = routeOf(session, target);
  const params = parametersOf(target, route);
  const handler = route.handler as AnyActivityHandler;
  const request = {
    store: tx,
    organization: organizationIn(tx, target.organizationId)!,
    activityType: target.type,
    params,
    resources: handler.policyResources?.(tx, target.organizationId, params) ?? {},
    now,
    log: deps.log,
    policyWorkers: deps.policyWorkers,
  };
  // A vote acts on the activity it counts towards: a session profile's scope must allow that activity as it would its
  // proposal, so a scoped session cannot approve or reject what it could not have proposed.
  for (const hook of deps.hooks) hook.checkRequest?.(actor.credential, request);
  // An authenticator step adds to an approval already found eligible; only a new vote needs the search.
  if (!authenticatorStep) await requireEligibleVoter(request, actor.user.id, target.id);
  const cast = vote(deps, target.id, actor, selection, message, now);
  tx.activities.insertVote(cast);
  // Only the pipeline records votes, so the activity's votes are now those read above and this one.
  const votesNow = [...votes, cast];
  let decided: Executed;
  const awaitedNow = selection === 'VOTE_SELECTION_REJECTED' ? undefined : settleAuthenticators(session, target, request, cast, authenticatorStep);
  if (awaitedNow === undefined) {
    decided = { activity: { ...target, ...tx.activities.finish(target.id, { status: 'ACTIVITY_STATUS_REJECTED' }, now) }, stepsRan: false };
  } else if (awaitedNow.has(target.proposerUserId)) {
    // While its proposer's MFA waits, the activity waits as a whole.
    decided = { activity: waitFor(tx, target, 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED', now), stepsRan: false };
  } else {
    // Approvals still waiting for their voters' authenticators do not count.
    const approvals = votesNow.filter((v) => !awaitedNow.has(v.userId));
    const authorization = await authorize({ ...request, approvers: currentApprovers(tx, approvals, now) });
    if (authorization.decision === 'deny') throw denialError(authorization, target.type);
    tx.activities.recordPolicyEvaluation(target.id, cast.id, evaluationOf(session, authorization));
    if (authorization.decision === 'allow') {
      const proposerVote = votes.find((v) => v.userId === target.proposerUserId)!;
      const proposer: ActingUser = {
        userId: target.proposerUserId,
        organizationId: target.organizationId,
        credential: {
          id: proposerVote.credentialId,
          type: proposerVote.credentialType,
          publicKey: proposerVote.publicKey,
          userId: target.proposerUserId,
          organizationId: target.organizationId,
        },
      };
      decided = await execute(session, target, route, proposer, params);
    } else {
      const status = awaitedNow.size > 0 ? 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED' : 'ACTIVITY_STATUS_CONSENSUS_NEEDED';
      decided = { activity: waitFor(tx, target, status, now), stepsRan: false };
    }
  }
  // The answer is built from what this transaction wrote; only the steps after a handler write app proofs.
  const appProofs = decided.stepsRan ? tx.appProofs.listByActivity(target.id) : [];
  return recordedActivityView(tx, decided.activity, votesNow, appProofs);
}

/** Refuses a voter who is neither in the root quorum nor needed by a policy that applies to the activity. */
async function requireEligibleVoter(request: Omit<AuthorizationRequest, 'approvers'>, userId: string, activityId: string): Promise<void> {
  const eligibility = await voteEligibility(request, userId);
  if (eligibility.eligible) return;
  const tooCostly =
    eligibility.tooCostly.length === 0 ? '' : `; policies ${eligibility.tooCostly.join(', ')} were too costly to work out who may vote`;
  throw new QkError(
    'REQUEST_NOT_AUTHORIZED',
    `request not authorized: user ${userId} is neither in the root quorum nor needed by the consensus of a policy that applies to activity ${activityId}${tooCostly}`,
    { activityId, userId, ...(eligibility.tooCostly.length === 0 ? {} : { tooCostlyPolicyIds: eligibility.tooCostly }) },
  );
}

/** The users whose approvals of `activityId` wait for authenticators (MFA), by every family's hooks. */
function authenticatorsAwaited(deps: PipelineDeps, tx: Repositories, activityId: string): ReadonlySet<string> {
  const users = new Set<string>();
  for (const hook of deps.hooks) for (const userId of hook.authenticators?.awaited(tx, activityId) ?? []) users.add(userId);
  return users;
}

/**
 * Records what the voter of a new approval must still present (MFA), by every family's hooks; returns whether the
 * approval waits for it before it counts.
 */
function recordAuthenticatorRequirement(deps: PipelineDeps, tx: Repositories, request: ConditionRequest, approval: VoteRecord): boolean {
  let waits = false;
  for (const hook of deps.hooks) if (hook.authenticators?.recordRequirement(tx, request, approval) === true) waits = true;
  return waits;
}

/**
 * Records what an approval presents for MFA: one more authenticator of a waiting voter, or a new voter's requirement.
 * Returns the users whose approvals still wait for authenticators once it is recorded.
 */
function settleAuthenticators(
  session: Session,
  target: ActivityRecord,
  request: ConditionRequest,
  cast: VoteRecord,
  authenticatorStep: boolean,
): ReadonlySet<string> {
  const { deps, tx } = session;
  if (authenticatorStep) for (const hook of deps.hooks) hook.authenticators?.present(tx, cast);
  else recordAuthenticatorRequirement(deps, tx, request, cast);
  return authenticatorsAwaited(deps, tx, target.id);
}

/**
 * Leaves the activity waiting, in `status`: for more approvals, or for the authenticators of some approval's voter.
 * Returns the activity as its row now reads.
 */
function waitFor(
  tx: Repositories,
  target: ActivityRecord,
  status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED' | 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED',
  now: number,
): ActivityRecord {
  const current = tx.activities.get(target.organizationId, target.id)!;
  if (current.status !== status) return { ...current, ...tx.activities.finish(target.id, { status }, now) };
  tx.activities.touch(target.id, now);
  return { ...current, updatedAt: now };
}

/** An executed activity as its transaction left it, and whether steps ran after its handler (app proofs). */
interface Executed {
  activity: ActivityRecord;
  stepsRan: boolean;
}

/**
 * Runs the handler inside a savepoint: a QkError rolls back only the handler's writes and records the
 * activity FAILED (docs/service.md#error-body); anything else propagates and rolls back the whole transaction.
 * `params` are the activity's parameters as parsed from its stored body (the caller has them already); `signedAhead`
 * what signAheadOfTransaction made for a submission.
 */
async function execute(
  session: Session,
  activity: ActivityRecord,
  route: ActivityRoute,
  actor: ActingUser,
  params: Record<string, unknown>,
  signedAhead?: SignedAhead,
): Promise<Executed> {
  const { deps, tx, now } = session;
  const handler = route.handler as AnyActivityHandler;
  const ctx: ActivityContext = {
    store: tx,
    organizationId: activity.organizationId,
    organization: organizationIn(tx, activity.organizationId)!,
    actor,
    now,
    newId: deps.newId,
    activityId: activity.id,
    enclave: deps.enclave,
    ...(signedAhead === undefined ? {} : { signedAhead }),
  };
  // Taken before the handler runs so that hooks (app proofs) see the organization as the decision saw it.
  const afterExecution = deps.hooks.flatMap((hook) => hook.beforeExecution?.(ctx, activity, route.op) ?? []);
  const connection = tx.connection;
  connection.exec('SAVEPOINT activity_execution');
  let result: unknown;
  try {
    result = await handler.execute(ctx, params);
  } catch (error) {
    connection.exec('ROLLBACK TO activity_execution');
    connection.exec('RELEASE activity_execution');
    if (!(error instanceof QkError) || error.code === 'INTERNAL') throw error;
    const failed = tx.activities.finish(activity.id, { status: 'ACTIVITY_STATUS_FAILED', failure: { ...rpcStatusOf(error) } }, now);
    return { activity: { ...activity, ...failed }, stepsRan: false };
  }
  connection.exec('RELEASE activity_execution');
  if (afterExecution.length > 0) {
    const completion = {
      result,
      derivedAddresses: handler.derivedAddresses?.(result) ?? [],
      approvals: countingApprovals(tx.activities.votes(activity.id), now),
    };
    for (const step of afterExecution) await step(completion);
  }
  const { resultKey } = namesOf(route);
  const answered = route.version === undefined ? result : route.version.resultFromCurrent(result);
  const completed = tx.activities.finish(
    activity.id,
    { status: 'ACTIVITY_STATUS_COMPLETED', result: resultKey === null ? {} : { [resultKey]: answered } },
    now,
  );
  return { activity: { ...activity, ...completed }, stepsRan: afterExecution.length > 0 };
}
