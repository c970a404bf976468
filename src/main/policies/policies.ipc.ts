import { timestampMs, type Policy } from '../../shared/api';
import type { ChannelOutput } from '../../shared/ipc/contract';
import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { outcomeView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import type { Settings } from '../settings/settings';
import { signingFor } from '../signing/signing';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import { rehearsePolicies } from './history';
import { lintDraftPolicy } from './lint';
import { createMfaPolicy, deleteMfaPolicy, updateMfaPolicy } from './mfa-policies';
import { mfaPoliciesInWords } from './mfa-policy-words';
import { policyNamesOf, policyReadingOf, policyReview, readPolicyNames } from './policy-words';

type PolicyChannel = Extract<keyof IpcHandlers, `policies.${string}`>;

export interface PolicyHandlerDeps extends ActiveProfileHandlerDeps {
  /** Declared tokens, so a policy's amounts read in their units. */
  tokens: Pick<DeclaredTokens, 'list'>;
  /** A dry run reads the request as a signing card does, with the Settings thresholds. */
  settings: Pick<Settings, 'get'>;
}

export function policiesHandlers({ active, now, tokens, settings }: PolicyHandlerDeps): Pick<IpcHandlers, PolicyChannel> {
  return {
    'policies.dryRun': async ({ request, draft }) => signingFor(await active.services(), { settings, tokens, now }).dryRun(request, draft),
    'policies.list': async () => {
      const { client, policies } = await active.services();
      const [list, names] = await Promise.all([policies.list(), readPolicyNames(client, tokens)]);
      return list.map((policy) => {
        const view = policyView(policy);
        return { ...view, reading: policyReadingOf(view, names) };
      });
    },
    'policies.mfaList': async () => {
      const snapshot = await (await active.services()).organization.snapshot();
      return mfaPoliciesInWords(snapshot.users, policyNamesOf(snapshot, await tokens.list()));
    },
    'policies.review': async ({ before, after }) => policyReview(before, after, await readPolicyNames((await active.services()).client, tokens)),
    'policies.read': async (policy) => policyReadingOf(policy, await readPolicyNames((await active.services()).client, tokens)),
    'policies.get': async ({ policyId }) => policyView(await (await active.services()).policies.get(policyId)),
    'policies.create': async (input) => outcomeView(await (await active.services()).policies.create(input), policyIdOf, now()),
    'policies.update': async ({ policyId, changes }) =>
      outcomeView(await (await active.services()).policies.update(policyId, changes), policyIdOf, now()),
    'policies.delete': async ({ policyId }) => outcomeView(await (await active.services()).policies.delete(policyId), policyIdOf, now()),
    'policies.mfaCreate': async (input) => outcomeView(await createMfaPolicy(await active.services(), input), mfaPolicyIdOf, now()),
    'policies.mfaUpdate': async (input) => outcomeView(await updateMfaPolicy(await active.services(), input), mfaPolicyIdOf, now()),
    'policies.mfaDelete': async ({ userId, mfaPolicyId }) =>
      outcomeView(await deleteMfaPolicy(await active.services(), userId, mfaPolicyId), mfaPolicyIdOf, now()),
    'policies.lint': async ({ policyId, policy }) => lintDraftPolicy((await active.services()).client, { ...policy, policyId }),
    'policies.rehearse': async ({ draft, last, sinceMs }) => rehearsePolicies((await active.services()).client, draft, { last, sinceMs }),
  };
}

export function policyView(policy: Policy): ChannelOutput<'policies.get'> {
  return {
    policyId: policy.policyId,
    policyName: policy.policyName,
    effect: policy.effect,
    condition: policy.condition,
    consensus: policy.consensus,
    time: policy.time ?? '',
    notes: policy.notes,
    createdAtMs: timestampMs(policy.createdAt),
    updatedAtMs: timestampMs(policy.updatedAt),
  };
}

function policyIdOf({ policyId }: { policyId: string }): { policyId: string } {
  return { policyId };
}

function mfaPolicyIdOf({ mfaPolicyId }: { mfaPolicyId: string }): { mfaPolicyId: string } {
  return { mfaPolicyId };
}
