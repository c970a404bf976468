/**
 * Activities waiting for votes, and voting on them. Votes are counted per distinct user as the service records them;
 * what an activity still needs is its vote reading's (vote-reading.ts), read with the policies. Offline stamping writes a
 * request and its stamp to a file on a machine without network; `postStampedFile` sends it later, byte for byte.
 */
import { activityResponseSchema, operationByPath, parseResponse, timestampMs, type Activity, type Vote } from '../../shared/api';
import { fingerprintSchema, tallyVotes, WAITING_STATUSES, type RecordedVote, type VoteTally, type Voter } from '../../shared/approvals/voting';
import { QkError } from '../../shared/errors';
import type { StampedRequest } from '../../shared/offline/stamped-request';
import type { ApiClient } from '../client/api-client';
import { submissionOf } from '../client/submission';
import type { StampCheck } from '../confirmation/stamp-check';
import { postStampedFile, stampToFile } from '../stamper/stamped-file';
import type { RequestStamper, StampCredential } from '../stamper/stamp';

export interface PendingActivity {
  activityId: string;
  type: string;
  fingerprint: string;
  organizationId: string;
  createdAtMs: number;
  /** Distinct users whose approvals count in the open approval window. */
  approvals: number;
  voters: Voter[];
  /** Until the approvals gathered so far expire; 0 when no window is open (the next approval opens one). */
  timeLeftMs: number;
  canApprove: boolean;
  canReject: boolean;
  activity: Activity;
}

export interface ApprovalsOptions {
  client: ApiClient;
  stamper: RequestStamper;
  credential: StampCredential;
  now?: () => number;
  /** Runs before an activity or vote is stamped into an offline file; throwing stops it (see ApiClientOptions). */
  checkStamp?: StampCheck;
}

export class Approvals {
  private readonly client: ApiClient;
  private readonly stamper: RequestStamper;
  private readonly credential: StampCredential;
  private readonly now: () => number;
  private readonly checkStamp: StampCheck | undefined;

  constructor({ client, stamper, credential, now = Date.now, checkStamp }: ApprovalsOptions) {
    this.client = client;
    this.stamper = stamper;
    this.credential = credential;
    this.now = now;
    this.checkStamp = checkStamp;
  }

  /** Activities waiting for votes or an MFA step's approval, newest first, with their votes as they count now. */
  async pending(): Promise<PendingActivity[]> {
    const { activities } = await this.client.query('list_activities', { filterByStatus: [...WAITING_STATUSES] });
    return activities.map((activity) => this.describe(activity));
  }

  /** Approves by fingerprint; answers the target activity as it stands after the vote. */
  async approve(fingerprint: string): Promise<Activity> {
    return (await this.client.submit('approve_activity', { fingerprint: requireFingerprint(fingerprint) })).activity;
  }

  async reject(fingerprint: string): Promise<Activity> {
    return (await this.client.submit('reject_activity', { fingerprint: requireFingerprint(fingerprint) })).activity;
  }

  /** Stamps a request with this profile's key into a new offline file, without touching the network. */
  async stampToFile(path: string, body: string, file: string): Promise<StampedRequest> {
    const submission = this.checkStamp === undefined ? undefined : submissionOf(path, body, 'file');
    if (submission !== undefined) await this.checkStamp?.(submission);
    return stampToFile({ stamper: this.stamper, credential: this.credential, path, body, file });
  }

  /**
   * Posts an offline file exactly as stamped, whoever's key stamped it; answers the activity. Only an activity
   * submission is sent: anything else is refused before it leaves.
   */
  async postStampedFile(file: string): Promise<Activity> {
    const { request, answer } = await postStampedFile(this.client, file, ({ path }) => {
      if (operationByPath(path)?.kind !== 'activity') {
        throw new QkError('REQUEST_INVALID', `${file} holds a request for ${path.slice(0, 100)}, which is not an activity submission`, {
          field: 'file',
        });
      }
    });
    return parseResponse(activityResponseSchema, answer, `${request.path} response`).activity;
  }

  private describe(activity: Activity): PendingActivity {
    const { voters, approverIds, timeLeftMs } = tallyOf(activity.votes, this.now());
    return {
      activityId: activity.id,
      type: activity.type,
      fingerprint: activity.fingerprint,
      organizationId: activity.organizationId,
      createdAtMs: timestampMs(activity.createdAt),
      approvals: approverIds.length,
      voters,
      timeLeftMs,
      canApprove: activity.canApprove,
      canReject: activity.canReject,
      activity,
    };
  }
}

function requireFingerprint(fingerprint: string): string {
  if (!fingerprintSchema.safeParse(fingerprint).success) {
    throw new QkError(
      'REQUEST_INVALID',
      `fingerprint must be "sha256:" followed by 64 lowercase hex digits, got ${JSON.stringify(fingerprint.slice(0, 80))}`,
      {
        field: 'fingerprint',
      },
    );
  }
  return fingerprint;
}

/** Where the service's votes stand at `nowMs`, by the shared approval window rule. */
export function tallyOf(votes: readonly Vote[], nowMs: number): VoteTally {
  return tallyVotes(
    votes.map((vote): RecordedVote & { userName: string } => ({
      userId: vote.userId,
      userName: vote.user.userName,
      selection: vote.selection,
      createdAt: timestampMs(vote.createdAt),
    })),
    nowMs,
  );
}
