import { QkError } from '../../shared/errors';
import { type Connection, type Params, type Row, integer, optionalText, text } from './connection';

export type ActivityStatus =
  | 'ACTIVITY_STATUS_CREATED'
  | 'ACTIVITY_STATUS_PENDING'
  | 'ACTIVITY_STATUS_COMPLETED'
  | 'ACTIVITY_STATUS_FAILED'
  | 'ACTIVITY_STATUS_CONSENSUS_NEEDED'
  | 'ACTIVITY_STATUS_REJECTED'
  | 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED';

export type VoteSelection = 'VOTE_SELECTION_APPROVED' | 'VOTE_SELECTION_REJECTED';

export interface ActivityRecord {
  id: string;
  organizationId: string;
  type: string;
  status: ActivityStatus;
  fingerprint: string;
  /** The raw request body exactly as stamped (executing later re-reads parameters from it). */
  body: string;
  /** The `intent` member as it appears on the wire: `{<intentKey>: parameters}`. */
  intent: Record<string, unknown>;
  result: Record<string, unknown> | undefined;
  failure: Record<string, unknown> | undefined;
  proposerUserId: string;
  createdAt: number;
  updatedAt: number;
}

/** What the policy engine decided when a vote asked it: each policy's outcome. */
export interface PolicyEvaluation {
  id: string;
  outcomes: { policyId: string; outcome: string }[];
}

/** A vote's policy evaluation, with the vote it is kept with (and whose time it has). */
export interface PolicyEvaluationRecord extends PolicyEvaluation {
  activityId: string;
  voteId: string;
  createdAt: number;
}

export interface VoteRecord {
  id: string;
  activityId: string;
  userId: string;
  selection: VoteSelection;
  message: string;
  publicKey: string;
  signature: string;
  scheme: string;
  credentialId: string;
  credentialType: string;
  createdAt: number;
}

function parseJson(value: string | undefined): Record<string, unknown> | undefined {
  return value === undefined ? undefined : (JSON.parse(value) as Record<string, unknown>);
}

function toActivity(row: Row): ActivityRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    type: text(row, 'type'),
    status: text(row, 'status') as ActivityStatus,
    fingerprint: text(row, 'fingerprint'),
    body: text(row, 'body'),
    intent: JSON.parse(text(row, 'intent')) as Record<string, unknown>,
    result: parseJson(optionalText(row, 'result')),
    failure: parseJson(optionalText(row, 'failure')),
    proposerUserId: text(row, 'proposer_user_id'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

function toVote(row: Row): VoteRecord {
  return {
    id: text(row, 'id'),
    activityId: text(row, 'activity_id'),
    userId: text(row, 'user_id'),
    selection: text(row, 'selection') as VoteSelection,
    message: text(row, 'message'),
    publicKey: text(row, 'public_key'),
    signature: text(row, 'signature'),
    scheme: text(row, 'scheme'),
    credentialId: text(row, 'credential_id'),
    credentialType: text(row, 'credential_type'),
    createdAt: integer(row, 'created_at'),
  };
}

export interface ActivityListQuery {
  organizationId: string;
  statuses?: readonly string[];
  types?: readonly string[];
  limit: number;
  /** Activity ids: `before` returns older activities, `after` newer ones (docs/service.md#pagination). */
  before?: string;
  after?: string;
}

export class ActivityRepository {
  constructor(private readonly connection: Connection) {}

  /** Records `activity`; returns it as a read of its row gives it, its JSON members parsed back from what was written. */
  insert(activity: Omit<ActivityRecord, 'updatedAt'>): ActivityRecord {
    const intent = JSON.stringify(activity.intent);
    const result = activity.result === undefined ? undefined : JSON.stringify(activity.result);
    const failure = activity.failure === undefined ? undefined : JSON.stringify(activity.failure);
    this.connection.run(
      `INSERT INTO activities (id, organization_id, type, status, fingerprint, body, intent, result, failure,
                               proposer_user_id, created_at, updated_at)
       VALUES (:id, :organizationId, :type, :status, :fingerprint, :body, :intent, :result, :failure,
               :proposerUserId, :createdAt, :createdAt)`,
      {
        id: activity.id,
        organizationId: activity.organizationId,
        type: activity.type,
        status: activity.status,
        fingerprint: activity.fingerprint,
        body: activity.body,
        intent,
        result: result ?? null,
        failure: failure ?? null,
        proposerUserId: activity.proposerUserId,
        createdAt: activity.createdAt,
      },
    );
    return {
      ...activity,
      intent: JSON.parse(intent) as Record<string, unknown>,
      result: parseJson(result),
      failure: parseJson(failure),
      updatedAt: activity.createdAt,
    };
  }

  get(organizationId: string, id: string): ActivityRecord | undefined {
    const row = this.connection.get('SELECT * FROM activities WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    });
    return row === undefined ? undefined : toActivity(row);
  }

  findByFingerprint(organizationId: string, fingerprint: string): ActivityRecord | undefined {
    const row = this.connection.get('SELECT * FROM activities WHERE fingerprint = :fingerprint AND organization_id = :organizationId', {
      fingerprint,
      organizationId,
    });
    return row === undefined ? undefined : toActivity(row);
  }

  /**
   * Records the outcome; `result`/`failure` are set only for the statuses that carry them. Returns the columns it set
   * as a read of the row gives them, its JSON members parsed back from what was written.
   */
  finish(
    id: string,
    outcome: { status: ActivityStatus; result?: Record<string, unknown>; failure?: Record<string, unknown> },
    now: number,
  ): Pick<ActivityRecord, 'status' | 'result' | 'failure' | 'updatedAt'> {
    const result = outcome.result === undefined ? undefined : JSON.stringify(outcome.result);
    const failure = outcome.failure === undefined ? undefined : JSON.stringify(outcome.failure);
    this.connection.run('UPDATE activities SET status = :status, result = :result, failure = :failure, updated_at = :now WHERE id = :id', {
      id,
      status: outcome.status,
      result: result ?? null,
      failure: failure ?? null,
      now,
    });
    return { status: outcome.status, result: parseJson(result), failure: parseJson(failure), updatedAt: now };
  }

  touch(id: string, now: number): void {
    this.connection.run('UPDATE activities SET updated_at = :now WHERE id = :id', { id, now });
  }

  /** Newest first. An unknown cursor id yields an empty page rather than silently restarting. */
  list(query: ActivityListQuery): ActivityRecord[] {
    const where = ['organization_id = :organizationId'];
    const params: Params = { organizationId: query.organizationId, limit: query.limit };
    const addIn = (column: string, values: readonly string[] | undefined, prefix: string): void => {
      if (values === undefined || values.length === 0) return;
      const names = values.map((value, index) => {
        params[`${prefix}${index}`] = value;
        return `:${prefix}${index}`;
      });
      where.push(`${column} IN (${names.join(', ')})`);
    };
    addIn('status', query.statuses, 'status');
    addIn('type', query.types, 'type');
    const cursorSeq = (name: 'before' | 'after', id: string): string => {
      params[name] = id;
      return `(SELECT seq FROM activities WHERE id = :${name} AND organization_id = :organizationId)`;
    };
    if (query.before !== undefined) where.push(`seq < ${cursorSeq('before', query.before)}`);
    if (query.after !== undefined) where.push(`seq > ${cursorSeq('after', query.after)}`);
    // With only `after`, take the activities nearest the cursor, then present them newest first.
    const nearestAfter = query.after !== undefined && query.before === undefined;
    const rows = this.connection.all(
      `SELECT * FROM activities WHERE ${where.join(' AND ')} ORDER BY seq ${nearestAfter ? 'ASC' : 'DESC'} LIMIT :limit`,
      params,
    );
    if (nearestAfter) rows.reverse();
    return rows.map(toActivity);
  }

  /** Records `vote`, with the policy evaluation it asked for if that is known already. */
  insertVote(vote: VoteRecord, evaluation?: PolicyEvaluation): void {
    this.connection.run(
      `INSERT INTO votes (id, activity_id, user_id, selection, message, public_key, signature, scheme, credential_id,
                          credential_type, created_at, policy_evaluation_id, policy_outcomes)
       VALUES (:id, :activityId, :userId, :selection, :message, :publicKey, :signature, :scheme, :credentialId,
               :credentialType, :createdAt, :evaluationId, :outcomes)`,
      {
        ...vote,
        evaluationId: evaluation?.id ?? null,
        outcomes: evaluation === undefined ? null : JSON.stringify(evaluation.outcomes),
      },
    );
  }

  /** Failed activities of `type` whose intent has `value` at `jsonPath` (e.g. `$.verifyOtpIntentV2.otpId`). */
  countFailed(organizationId: string, type: string, jsonPath: string, value: string): number {
    const row = this.connection.get(
      `SELECT count(*) AS n FROM activities
        WHERE organization_id = :organizationId AND type = :type AND status = 'ACTIVITY_STATUS_FAILED'
          AND json_extract(intent, :jsonPath) = :value`,
      { organizationId, type, jsonPath, value },
    );
    return row === undefined ? 0 : integer(row, 'n');
  }

  /** Keeps the policy evaluation a vote recorded earlier in this transaction asked for. */
  recordPolicyEvaluation(activityId: string, voteId: string, evaluation: PolicyEvaluation): void {
    const changed = this.connection.run(
      `UPDATE votes SET policy_evaluation_id = :evaluationId, policy_outcomes = :outcomes
        WHERE activity_id = :activityId AND id = :voteId AND policy_evaluation_id IS NULL`,
      { activityId, voteId, evaluationId: evaluation.id, outcomes: JSON.stringify(evaluation.outcomes) },
    );
    if (changed !== 1)
      throw new QkError('INTERNAL', `vote ${voteId} of activity ${activityId} is not recorded, or has its policy evaluation already`);
  }

  /** Oldest first: the order of the votes that asked for them. */
  policyEvaluations(activityId: string): PolicyEvaluationRecord[] {
    return this.connection
      .all(
        `SELECT policy_evaluation_id, policy_outcomes, id, created_at FROM votes
          WHERE activity_id = :activityId AND policy_evaluation_id IS NOT NULL ORDER BY rowid`,
        { activityId },
      )
      .map((row) => ({
        id: text(row, 'policy_evaluation_id'),
        activityId,
        voteId: text(row, 'id'),
        outcomes: JSON.parse(text(row, 'policy_outcomes')) as PolicyEvaluationRecord['outcomes'],
        createdAt: integer(row, 'created_at'),
      }));
  }

  votes(activityId: string): VoteRecord[] {
    return this.connection.all('SELECT * FROM votes WHERE activity_id = :activityId ORDER BY rowid', { activityId }).map(toVote);
  }
}
