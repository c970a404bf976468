/**
 * The one answer to "is this a signing activity": the three operations that sign (sign_raw_payload,
 * sign_raw_payloads, sign_transaction), found by the activity type the operation table records for each. Clear
 * signing, main's signing card and the readings the screens show all ask here.
 */
import { activityOperations } from './activities';

export const SIGNING_OPERATIONS = ['sign_raw_payload', 'sign_raw_payloads', 'sign_transaction'] as const;

export type SigningOperation = (typeof SIGNING_OPERATIONS)[number];

/** The signing operation an activity type submits, or undefined for any other activity. */
export function signingOperationOf(activityType: string): SigningOperation | undefined {
  return SIGNING_OPERATIONS.find((operation) => activityOperations[operation].activityType === activityType);
}
