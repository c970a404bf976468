import { timestampMs, type Policy } from '../../shared/api';
import type { ChannelOutput } from '../../shared/ipc/contract';
import type { ActiveProfileHandlerDeps } from '../activities/activities.ipc';
import { outcomeView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import { rehearsePolicies } from './history';
import { lintDraftPolicy } from './lint';
import { policyReadingOf, policyReview, readPolicyNames } from './policy-words';

type PolicyChannel =
  | 'policies.list'
  | 'policies.get'
  | 'policies.create'
  | 'policies.update'
  | 'policies.delete'
  | 'policies.review'
  | 'policies.rehearse'
  | 'policies.lint';

export interface PolicyHandlerDeps extends ActiveProfileHandlerDeps {
  /** Declared tokens, so a policy's amounts read in their units. */
  tokens: Pick<DeclaredTokens, 'list'>;
}

export function policiesHandlers({ active, now, tokens }: PolicyHandlerDeps): Pick<IpcHandlers, PolicyChannel> {
  return {
    'policies.list': async () => {
      const { client, policies } = await active.services();
      const [list, names] = await Promise.all([policies.list(), readPolicyNames(client, tokens)]);
      return list.map((policy) => {
        const view = policyView(policy);
        return { ...view, reading: policyReadingOf(view, names) };
      });
    },
    'policies.review': async ({ before, after }) => policyReview(before, after, await readPolicyNames((await active.services()).client, tokens)),
    'policies.get': async ({ policyId }) => policyView(await (await active.services()).policies.get(policyId)),
    'policies.create': async (input) => outcomeView(await (await active.services()).policies.create(input), policyIdOf, now()),
    'policies.update': async ({ policyId, changes }) =>
      outcomeView(await (await active.services()).policies.update(policyId, changes), policyIdOf, now()),
    'policies.delete': async ({ policyId }) => outcomeView(await (await active.services()).policies.delete(policyId), policyIdOf, now()),
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
