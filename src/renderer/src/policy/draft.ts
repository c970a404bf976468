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

export const DRAFT_FIELDS: readonly { field: keyof PolicyDraft; label: string }[] = [
  { field: 'name', label: 'Name' },
  { field: 'effect', label: 'Effect' },
  { field: 'condition', label: 'Condition' },
  { field: 'consensus', label: 'Consensus' },
  { field: 'time', label: 'Time window' },
  { field: 'notes', label: 'Notes' },
];

/** The fields of `after` that differ from `before`, for an update that sends only what changed. */
export function changedFields(before: PolicyDraft, after: PolicyDraft): Partial<PolicyDraft> {
  const changes: Partial<PolicyDraft> = {};
  for (const { field } of DRAFT_FIELDS) {
    if (before[field] !== after[field]) Object.assign(changes, { [field]: after[field] });
  }
  return changes;
}

export type DiffLine = { kind: 'same' | 'removed' | 'added'; text: string };

/** Line diff by longest common subsequence; policy fields are a few lines, so the quadratic table is small. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (common[i + 1]![j]! >= common[i]![j + 1]!) {
      lines.push({ kind: 'removed', text: a[i++]! });
    } else {
      lines.push({ kind: 'added', text: b[j++]! });
    }
  }
  while (i < a.length) lines.push({ kind: 'removed', text: a[i++]! });
  while (j < b.length) lines.push({ kind: 'added', text: b[j++]! });
  return lines;
}
