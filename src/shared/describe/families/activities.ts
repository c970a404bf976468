/** Votes on other activities: the fingerprint a vote is bound to. */
import type { Describer, Describers } from '../draft';
import { code, text } from '../pieces';

const vote =
  (title: string): Describer =>
  (fields, draft) => {
    draft.title = title;
    draft.fact('Fingerprint of the activity voted on', code(text(fields, 'fingerprint') ?? 'not stated'));
  };

export const activityDescribers = {
  ACTIVITY_TYPE_APPROVE_ACTIVITY: vote('Approve an activity'),
  ACTIVITY_TYPE_REJECT_ACTIVITY: vote('Reject an activity'),
} satisfies Describers;
