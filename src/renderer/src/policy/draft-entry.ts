import type { ChannelInput } from '../../../shared/ipc/contract';
import type { PolicyDraft } from './draft';

export type DraftEntry = NonNullable<ChannelInput<'policies.dryRun'>['draft']>[number];

/** The policy being edited as a draft entry: it replaces `policyId` when it has one, else it is added. */
export function draftEntryOf(policyId: string | undefined, draft: PolicyDraft): DraftEntry {
  const { name, effect, condition, consensus, time, notes } = draft;
  return { ...(policyId === undefined ? {} : { policyId }), policyName: name, effect, condition, consensus, time, notes };
}
