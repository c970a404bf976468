import type { PolicyEffect } from '../../../shared/api/enums';

/** A policy as the editor holds it: every field as text, empty meaning "not set". */
export interface PolicyDraft {
  name: string;
  effect: PolicyEffect;
  condition: string;
  consensus: string;
  time: string;
  notes: string;
}

export const EMPTY_DRAFT: PolicyDraft = { name: '', effect: 'EFFECT_ALLOW', condition: '', consensus: '', time: '', notes: '' };

const DRAFT_FIELDS: readonly (keyof PolicyDraft)[] = ['name', 'effect', 'condition', 'consensus', 'time', 'notes'];

/** The fields of `after` that differ from `before`, for an update that sends only what changed. */
export function changedFields(before: PolicyDraft, after: PolicyDraft): Partial<PolicyDraft> {
  const changes: Partial<PolicyDraft> = {};
  for (const field of DRAFT_FIELDS) {
    if (before[field] !== after[field]) Object.assign(changes, { [field]: after[field] });
  }
  return changes;
}
