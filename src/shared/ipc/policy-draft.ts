/**
 * A policy draft's entries (docs/service.md#policy-rehearsal), one shape for the channels that take a draft
 * (`policies.rehearse`, `policies.dryRun`) and the CLI's draft file: a policy as the service creates it, with the id
 * of the current policy it replaces (none: it is added), or a deletion `{policyId, deleted: true}`. Every field is
 * bounded as the service bounds it, so a draft never holds a policy the service would refuse for its size.
 */
import { z } from 'zod';
import { policyParams } from '../api/params';
import { bounded } from '../api/primitives';

const currentPolicyId = bounded.id.min(1);

/** `create_policy`'s parameters, with condition and consensus empty and notes absent when not given. */
export const draftPolicy = policyParams.extend({
  policyId: currentPolicyId.optional(),
  policyName: bounded.name.trim().min(1, 'a policy needs a name'),
  condition: policyParams.shape.condition.default(''),
  consensus: policyParams.shape.consensus.default(''),
  notes: policyParams.shape.notes.optional(),
});
export const draftDeletion = z.strictObject({ policyId: currentPolicyId, deleted: z.literal(true) });
export const draftEntry = z.union([draftDeletion, draftPolicy]);

export type DraftPolicy = z.output<typeof draftPolicy>;
export type DraftEntry = z.output<typeof draftEntry>;
