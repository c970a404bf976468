/**
 * Activities reshaped into the IPC contract's view: timestamps as epoch milliseconds, votes one per user, and only the
 * fields the contract names (a loose service response may carry more; the strict output would refuse it).
 */
import { timestampMs, type Activity } from '../../shared/api';
import type { ChannelOutput } from '../../shared/ipc/contract';
import { isWaitingForApprovals } from '../../shared/approvals/voting';
import { tallyOf } from '../approvals/approvals';
import type { ActivityOutcome } from '../client/api-client';

export type ActivityView = ChannelOutput<'activities.get'>;

/** `nowMs` decides which approvals have expired with their approval window. */
export function activityView(activity: Activity, nowMs: number): ActivityView {
  const { voters, approverIds, timeLeftMs } = tallyOf(activity.votes, nowMs);
  return {
    id: activity.id,
    organizationId: activity.organizationId,
    type: activity.type,
    status: activity.status,
    fingerprint: activity.fingerprint,
    intent: activity.intent,
    voters,
    approvals: approverIds.length,
    // Only an activity still taking votes has a window running out.
    timeLeftMs: isWaitingForApprovals(activity.status) ? timeLeftMs : 0,
    canApprove: activity.canApprove,
    canReject: activity.canReject,
    createdAtMs: timestampMs(activity.createdAt),
    updatedAtMs: timestampMs(activity.updatedAt),
    ...(activity.failure === undefined ? {} : { failure: failureView(activity.failure) }),
  };
}

/** A submitted activity's outcome with its result reshaped by `view`. */
export function outcomeView<R, V>(
  outcome: ActivityOutcome<R>,
  view: (result: R) => V,
  nowMs: number,
): ({ state: 'completed'; result: V; activity: ActivityView } | { state: 'consensus-needed' | 'pending' | 'rejected'; activity: ActivityView }) & {
  resentFromMs?: number;
} {
  const resent = outcome.resentFromMs === undefined ? {} : { resentFromMs: outcome.resentFromMs };
  return outcome.state === 'completed'
    ? { state: 'completed', result: view(outcome.result), activity: activityView(outcome.activity, nowMs), ...resent }
    : { state: outcome.state, activity: activityView(outcome.activity, nowMs), ...resent };
}

function failureView({ code, message }: { code?: number | undefined; message?: string | undefined }): { code?: number; message?: string } {
  return { ...(code === undefined ? {} : { code }), ...(message === undefined ? {} : { message }) };
}
