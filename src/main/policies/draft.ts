/**
 * A policy draft (its entries: `src/shared/ipc/policy-draft.ts`) applied to the current policies. The rehearsal
 * replays history against the result and the dry run evaluates a request against it.
 */
import { QkError } from '../../shared/errors';
import type { DraftEntry, DraftPolicy } from '../../shared/ipc/policy-draft';

/** A policy of the drafted set: as drafted (an added one gets the id `draft-<n>`, n counting entries from 1), or as it stands. */
export type DraftedPolicy = DraftPolicy & { policyId: string };

/** The draft applied to the current policies: a `policyId` replaces, none adds, `deleted` removes. */
export function applyDraft(current: readonly DraftedPolicy[], draft: readonly DraftEntry[]): DraftedPolicy[] {
  const policies = new Map(current.map((policy) => [policy.policyId, policy]));
  draft.forEach((entry, index) => {
    if ('deleted' in entry) {
      policies.delete(entry.policyId);
      return;
    }
    const policyId = entry.policyId ?? `draft-${index + 1}`;
    policies.set(policyId, { ...entry, policyId });
  });
  return [...policies.values()];
}

/** REQUEST_INVALID naming the entry when a draft replaces or deletes a policy that is not current. */
export function checkPolicyIds(draft: readonly DraftEntry[], currentPolicyIds: readonly string[]): void {
  draft.forEach((entry, index) => {
    if (entry.policyId === undefined || currentPolicyIds.includes(entry.policyId)) return;
    const what = 'deleted' in entry ? 'delete' : 'replace (leave policyId out to add a policy)';
    throw new QkError('REQUEST_INVALID', `draft [${index}].policyId: no current policy ${entry.policyId} to ${what}`, {
      field: `[${index}].policyId`,
    });
  });
}
