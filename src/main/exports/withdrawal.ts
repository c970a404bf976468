/**
 * Withdrawing an export this desktop asked for that still waits for votes (`exports.withdraw`). Main decides how: a
 * requester who may still vote on it rejects it with the profile's key, through the vote's own confirmation (whose
 * reading names the held one-time key the rejection deletes) and journal entry; one who may not (their request counts
 * as their approval while its window is open, or they are no approver) confirms the withdrawal on main's surface, the
 * activity stays open on the service, and the journal records the withdrawal. Either way the request is dropped and
 * its one-time key deleted, so a bundle it yields can never be opened.
 */
import type { Activity } from '../../shared/api/activity-record';
import { activityStatusInWords } from '../../shared/describe';
import { QkError } from '../../shared/errors';
import type { ChannelOutput } from '../../shared/ipc/contract';
import { visibleText } from '../../shared/visible-text';
import { tallyOf } from '../approvals/approvals';
import { activityStanding } from '../approvals/vote-reading';
import { requireConfirmation, type Confirm, type ConfirmationRequest } from '../confirmation/confirmation';
import type { Journal } from '../journal/journal';
import { localRecord } from '../journal/local-entry';
import type { ProfileServices } from '../profiles/active-profile';
import type { ExportRequest, ExportRequests } from './export-requests';

export interface WithdrawalDeps {
  services: Pick<ProfileServices, 'client' | 'approvals' | 'profile' | 'organization'>;
  exportRequests: ExportRequests;
  /** Main's confirmation surface, for a withdrawal that stamps nothing. */
  confirm: Confirm;
  journal: Pick<Journal, 'record'>;
  nowMs: number;
}

export async function withdrawExport(deps: WithdrawalDeps, activityId: string): Promise<ChannelOutput<'exports.withdraw'>> {
  const { services, exportRequests, nowMs } = deps;
  const { client, approvals, profile } = services;
  const stored = await exportRequests.get(activityId);
  if (stored?.profileId !== profile.id) {
    throw new QkError(
      'NOT_FOUND',
      `profile ${JSON.stringify(profile.name)} asked for no export from this desktop under activity ${JSON.stringify(activityId)}; ` +
        'Wallets → Exports you asked for lists those you can withdraw',
      { activityId },
    );
  }
  // What it exports is worded from the service's names (a wallet's, a key's): shown escaped wherever it is put.
  const request: ExportRequest = { ...stored, what: visibleText(stored.what) };
  const { activity } = await client.query('get_activity', { activityId });
  // Approved, rejected or expired since it was last read: settled as such first, and then there is nothing to withdraw.
  await exportRequests.follow(activity, nowMs);
  const current = await exportRequests.get(activityId);
  if (current === undefined) {
    throw new QkError(
      'FAILED_PRECONDITION',
      `the export of ${request.what} already ended (${endedInWords(activity)}) and is no longer listed; there is nothing to withdraw`,
      { activityId },
    );
  }
  if (current.approvedAtMs !== undefined) {
    throw new QkError(
      'FAILED_PRECONDITION',
      `the export of ${request.what} is approved, so it can no longer be withdrawn; open it under Wallets → Exports you asked for`,
      { activityId },
    );
  }

  const snapshot = await services.organization.snapshot();
  const { userId, username } = snapshot.viewer;
  const tally = tallyOf(activity.votes, nowMs);
  // Who may still vote, as the Approvals screen and the vote's confirmation read it.
  const standing = activityStanding(activity, snapshot, tally.approverIds, nowMs);
  if (typeof standing !== 'string' && standing.stillToVote.some((voter) => voter.userId === userId)) {
    const after = await exportRequests.withdraw(activityId, () => approvals.reject(activity.fingerprint));
    return { activityId, rejected: true, summary: rejectedInWords(request, after?.status ?? activity.status) };
  }

  const notRejected = tally.approverIds.includes(userId)
    ? `your approval (your request was one) counts until its approval window closes (${new Date(nowMs + tally.timeLeftMs).toISOString()}), and the service takes one vote per user in a window`
    : `${visibleText(username)} may not vote on it: not in the root quorum, nor counted by the consensus of a policy that applies to it`;
  await requireConfirmation(deps.confirm, confirmationOf(request, activityId, notRejected), `Withdrawing the export of ${request.what}`);
  await exportRequests.withdraw(activityId);
  const summary = keptOpenInWords(request);
  await deps.journal.record(
    localRecord(
      'export.withdrawn',
      {
        title: 'Export request withdrawn',
        summary,
        facts: { Activity: activityId, Export: request.what, 'Sealed to': sealedToInWords(request), 'Not rejected because': notRejected },
        verdict:
          request.sealedTo.kind === 'one-time' ? 'one-time key deleted; the activity stays open' : 'no longer followed; the activity stays open',
      },
      { profile, activityId, activityFingerprint: activity.fingerprint },
    ),
  );
  return { activityId, rejected: false, summary };
}

/** The question main asks before a withdrawal that stamps nothing: the activity stays open, and what that means. */
function confirmationOf(request: ExportRequest, activityId: string, notRejected: string): ConfirmationRequest {
  const { sealedTo } = request;
  const oneTime = sealedTo.kind === 'one-time';
  return {
    title: `Withdraw the export of ${request.what}?`,
    message: oneTime
      ? `Delete the one-time key this desktop holds for the export of ${request.what}? The activity stays open on the service, and a bundle it yields can never be opened.`
      : `Stop following the export of ${request.what} here? The activity stays open on the service, and a bundle it yields is sealed to encryption key ${sealedTo.name}, which this desktop keeps.`,
    detail: [
      `Activity: ${activityId}`,
      `Asked for: ${new Date(request.requestedAtMs).toISOString()}`,
      `Sealed to: ${sealedToInWords(request)}`,
      `Not rejected because: ${notRejected}`,
      '',
      `Other approvers can still approve it: the service then exports ${request.what} and marks it exported${
        oneTime ? ', sealed to a key that no longer exists' : ''
      }.`,
    ].join('\n'),
  };
}

function sealedToInWords({ sealedTo }: ExportRequest): string {
  return sealedTo.kind === 'one-time' ? 'a one-time key held in this desktop’s keychain' : `encryption key ${sealedTo.name}`;
}

function rejectedInWords(request: ExportRequest, status: string): string {
  const outcome =
    status === 'ACTIVITY_STATUS_REJECTED'
      ? `The export of ${request.what} was rejected`
      : `Your rejection of the export of ${request.what} was recorded (it is ${activityStatusInWords(status).toLowerCase()})`;
  return request.sealedTo.kind === 'one-time'
    ? `${outcome}, and the one-time key held for it deleted: its bundle can never be opened.`
    : `${outcome}; it is no longer listed here.`;
}

function keptOpenInWords(request: ExportRequest): string {
  return request.sealedTo.kind === 'one-time'
    ? `The one-time key for the export of ${request.what} was deleted; the activity stays open on the service, and a bundle it yields can never be opened.`
    : `The export of ${request.what} is no longer followed here; the activity stays open on the service, sealed to encryption key ${request.sealedTo.name}.`;
}

function endedInWords(activity: Activity): string {
  return activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' ? 'its approvals expired' : activityStatusInWords(activity.status).toLowerCase();
}
