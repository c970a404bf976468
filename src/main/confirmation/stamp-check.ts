/**
 * The stamp check main's handlers run before every activity or vote they stamp: main reads what the stamp does
 * (stamp-reading.ts), refuses a change that would lock the organization or this profile out, and otherwise shows its
 * reading on the confirmation surface; only a person going ahead there lets the stamp happen.
 */
import { QkError } from '../../shared/errors';
import type { ProfileServices } from '../profiles/active-profile';
import type { ConfirmedReadings } from './confirmed-readings';
import { confirmationOf, requireStampConfirmation, type Confirm, type Reading } from './confirmation';
import { readStamp, type StampReaderDeps } from './stamp-reading';
import type { Submission } from '../client/submission';

export interface ConfirmingStampCheckOptions extends StampReaderDeps {
  /** The confirmation surface; what it is asked carries main's reading (`request.reading`) for a caller to keep. */
  confirm: Confirm;
  /** Where the line a person went ahead on waits for the stamper, whose hardware prompt restates it. */
  readings: Pick<ConfirmedReadings, 'confirmed'>;
}

/**
 * Runs before main stamps a submission (a post by the API client, or a file by the offline stamper), which are given
 * it by whoever builds them; throws to stop it (nothing is stamped then). Answers the reading a person confirmed, when
 * one was shown, so the journal records what they saw.
 */
export type StampCheck = (submission: Submission) => Promise<Reading | undefined>;

const ASKING: Record<Reading['action'], string> = { submit: 'Submitting', approve: 'Approving', reject: 'Rejecting' };

export function confirmingStampCheck({ confirm, readings, ...deps }: ConfirmingStampCheckOptions) {
  return async (submission: Submission, services: ProfileServices): Promise<Reading> => {
    const { reading, lockOut } = await readStamp(submission, services, deps);
    if (lockOut !== undefined && reading.action === 'submit') {
      throw new QkError('FAILED_PRECONDITION', `QuorumKey refuses to submit this: ${lockOut}. Nothing was stamped.`, {
        activityType: reading.activityType,
      });
    }
    await requireStampConfirmation(confirm, reading, `${ASKING[reading.action]} ${JSON.stringify(reading.title)}`);
    readings.confirmed(submission.bodyFingerprint, confirmationOf(reading).message);
    return reading;
  };
}
