/**
 * The stamp check main's handlers run before every activity or vote they stamp: main reads what the stamp does
 * (stamp-reading.ts), refuses a change that would lock the organization or this profile out, and otherwise shows its
 * reading on the confirmation surface; only a person going ahead there lets the stamp happen.
 */
import { QkError } from '../../shared/errors';
import type { ProfileServices } from '../profiles/active-profile';
import { requireStampConfirmation, type Confirm, type Reading } from './confirmation';
import { readStamp, type StampReaderDeps } from './stamp-reading';
import type { Submission } from './submission';

export interface ConfirmingStampCheckOptions extends StampReaderDeps {
  /** The confirmation surface; what it is asked carries main's reading (`request.reading`) for a caller to keep. */
  confirm: Confirm;
}

const ASKING: Record<Reading['action'], string> = { submit: 'Submitting', approve: 'Approving', reject: 'Rejecting' };

export function confirmingStampCheck({ confirm, ...deps }: ConfirmingStampCheckOptions) {
  return async (submission: Submission, services: ProfileServices): Promise<Reading> => {
    const { reading, lockOut } = await readStamp(submission, services, deps);
    if (lockOut !== undefined && reading.action === 'submit') {
      throw new QkError('FAILED_PRECONDITION', `QuorumKey refuses to submit this: ${lockOut}. Nothing was stamped.`, {
        activityType: reading.activityType,
      });
    }
    await requireStampConfirmation(confirm, reading, `${ASKING[reading.action]} ${JSON.stringify(reading.title)}`);
    return reading;
  };
}
