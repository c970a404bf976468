import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { operations } from '../../shared/api';
import type { ChannelOutput } from '../../shared/ipc/contract';
import { readingsOf, type ReadingHandlerDeps } from '../activities/activities.ipc';
import { activityView } from '../activities/activity-views';
import type { Journal } from '../journal/journal';
import { stampCredentialRecord } from '../journal/activity-entry';
import { localRecord } from '../journal/local-entry';
import type { IpcHandlers } from '../ipc/register';
import type { PendingActivity } from './approvals';
import { optionalProposer } from './vote-reading';

type ApprovalChannel =
  'approvals.whoami' | 'approvals.pending' | 'approvals.approve' | 'approvals.reject' | 'approvals.stampToFile' | 'approvals.postStampedFile';

export interface ApprovalHandlerDeps extends ReadingHandlerDeps {
  /**
   * Where offline-stamped request files are written and read. The renderer names files, never paths, so it cannot
   * make main read or write anywhere else; people carry these files between machines by copying.
   */
  stampedRequestsDir: string;
  journal: Pick<Journal, 'record'>;
}

export function approvalsHandlers(deps: ApprovalHandlerDeps): Pick<IpcHandlers, ApprovalChannel> {
  const { active, now, stampedRequestsDir, journal } = deps;
  return {
    'approvals.whoami': async () => {
      const { client } = await active.services();
      const { organizationId, organizationName, userId, username } = await client.query('whoami', {});
      return { organizationId, organizationName, userId, username };
    },
    'approvals.pending': async () => {
      const services = await active.services();
      const pending = await services.approvals.pending();
      const readings = await (await readingsOf(deps)).of(pending.map((item) => item.activity));
      return pending.map((item, index) => ({ ...pendingApprovalView(item, now()), reading: readings[index]! }));
    },
    'approvals.approve': async ({ fingerprint }) => activityView(await (await active.services()).approvals.approve(fingerprint), now()),
    'approvals.reject': async ({ fingerprint }) => activityView(await (await active.services()).approvals.reject(fingerprint), now()),
    'approvals.stampToFile': async ({ fingerprint, vote = 'approve', file: name }) => {
      const { client, approvals, profile } = await active.services();
      // Only votes are stamped here: the renderer chooses a fingerprint, never the request main signs.
      const request =
        vote === 'approve'
          ? { path: operations.approve_activity.path, body: client.envelope('approve_activity', { fingerprint }) }
          : { path: operations.reject_activity.path, body: client.envelope('reject_activity', { fingerprint }) };
      await mkdir(stampedRequestsDir, { recursive: true, mode: 0o700 });
      const file = join(stampedRequestsDir, name);
      const stamped = await approvals.stampToFile(request.path, request.body, file);
      await journal.record(
        localRecord(
          'vote.stamped-offline',
          {
            title: vote === 'approve' ? 'Approval stamped into a file' : 'Rejection stamped into a file',
            summary: `${vote} activity ${fingerprint}, to be posted from ${name}`,
            facts: { Vote: vote, 'Activity fingerprint': fingerprint, File: file },
            verdict: 'stamped into a file, not sent',
          },
          { profile, activityFingerprint: fingerprint, credential: stampCredentialRecord(profile, stamped.stamp.headerValue) },
        ),
      );
      return { file, stampedRequestsDir, path: stamped.path, body: stamped.body };
    },
    'approvals.postStampedFile': async ({ file }) =>
      activityView(await (await active.services()).approvals.postStampedFile(join(stampedRequestsDir, file)), now()),
  };
}

function pendingApprovalView(pending: PendingActivity, nowMs: number): Omit<ChannelOutput<'approvals.pending'>[number], 'reading'> {
  return {
    activityId: pending.activityId,
    type: pending.type,
    fingerprint: pending.fingerprint,
    organizationId: pending.organizationId,
    createdAtMs: pending.createdAtMs,
    approvals: pending.approvals,
    ...optionalProposer(pending.voters),
    voters: pending.voters,
    timeLeftMs: pending.timeLeftMs,
    canApprove: pending.canApprove,
    canReject: pending.canReject,
    activity: activityView(pending.activity, nowMs),
  };
}
