/**
 * The one describer of activities: what an activity asks for in words and names, with before → after against the
 * organization as it stands, exports, deletions and warnings. The approval card and the history row both render
 * its answer, so an activity reads the same wherever it is shown.
 */
import { Draft, type Fields } from './draft';
import { DESCRIBERS } from './families';
import { Names } from './names';
import type { ActivityDescription, OrganizationLookup, PolicyReader, SigningDecoder } from './types';
import { activityTypeInWords } from './words';

export * from './types';
export * from './words';
export * from './signing-words';
export { publicKeyFingerprint } from './pieces';
export type { DescriberTable } from './draft';
export { DESCRIBERS } from './families';

export interface DescribeOptions {
  /** Clear signing: turns a signing request's payload into words. Without it a signing request shows its payload. */
  decodeSigning?: SigningDecoder;
  /**
   * The activity has run (or been rejected or failed): the lookup shows the organization as it is now, so "before"
   * is not known and warnings that read the present state are left out.
   */
  settled?: boolean;
  /** Policies in words: their ids named and their amounts in units. Without it expressions are shown as written. */
  readPolicy?: PolicyReader;
}

/** Whether QuorumKey has words for `type` (unknown types are described as "unrecognised activity"). */
export function isDescribed(type: string): type is keyof typeof DESCRIBERS {
  return Object.hasOwn(DESCRIBERS, type);
}

/** `activity.intent` is the recorded intent, e.g. `{updateRootQuorumIntent: {...}}`. */
export function describeActivity(
  activity: { type: string; intent: Readonly<Record<string, unknown>> },
  lookup: OrganizationLookup = {},
  options: DescribeOptions = {},
): ActivityDescription {
  const fields = intentFields(activity.intent);
  const describer = isDescribed(activity.type) ? DESCRIBERS[activity.type] : undefined;
  if (describer === undefined || fields === undefined) {
    return {
      type: activity.type,
      title: 'Unrecognised activity',
      recognised: false,
      summary: `${activityTypeInWords(activity.type)}: QuorumKey has no words for it; read the raw request before you vote`,
      facts: [{ label: 'Type', value: [{ text: activity.type, code: true }] }],
      changes: [],
      deletions: [],
      warnings: ['QuorumKey does not know this kind of activity. Approve it only if you understand the raw request below.'],
      rawIntent: activity.intent,
    };
  }
  const draft = new Draft(activity.type, new Names(lookup), options.decodeSigning, activity.intent, options.settled === true, options.readPolicy);
  describer(fields, draft);
  return {
    type: activity.type,
    title: draft.title ?? activityTypeInWords(activity.type),
    recognised: true,
    summary: draft.summary ?? firstLine(draft),
    facts: draft.facts,
    changes: draft.changes,
    ...(draft.exports === undefined ? {} : { exports: draft.exports }),
    deletions: draft.deletions,
    warnings: draft.warnings,
    ...(draft.largeValue === undefined ? {} : { largeValue: draft.largeValue }),
    ...(draft.signing === undefined ? {} : { signing: draft.signing }),
  };
}

/** The intent's one member (`{createWalletIntent: {...}}` → its fields), or undefined when it has another shape. */
function intentFields(intent: Readonly<Record<string, unknown>>): Fields | undefined {
  const members = Object.values(intent);
  const member = members.length === 1 ? members[0] : undefined;
  return typeof member === 'object' && member !== null && !Array.isArray(member) ? (member as Fields) : undefined;
}

function firstLine(draft: Draft): string {
  if (draft.deletions.length > 0) return draft.deletions.map((item) => item.what.text).join(', ');
  const fact = draft.facts[0];
  return fact === undefined ? '' : `${fact.label}: ${fact.value.map((ref) => ref.text).join(', ')}`;
}
