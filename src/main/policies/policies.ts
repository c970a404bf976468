/**
 * Policies of the profile's organization. Condition, consensus and time expressions are checked with the shared
 * policy language before anything is stamped, so a typo is reported with its position instead of a service round trip.
 */
import type { Policy, PolicyEffect } from '../../shared/api';
import { QkError } from '../../shared/errors';
import { checkPolicyExpression, type PolicyExpressionKind } from '../../shared/policy';
import type { ActivityOutcome, ApiClient } from '../client/api-client';

export interface PolicyInput {
  name: string;
  effect: PolicyEffect;
  condition?: string | undefined;
  consensus?: string | undefined;
  /** When the policy is active, e.g. CronSpan('0 9 * * 1-5', '8h', 'America/New_York'); empty means always. */
  time?: string | undefined;
  notes?: string | undefined;
}

/** Fields to change; one absent or undefined stays as it is. */
export type PolicyChanges = { [Field in keyof PolicyInput]?: PolicyInput[Field] | undefined };

export class Policies {
  constructor(private readonly client: ApiClient) {}

  async list(): Promise<Policy[]> {
    return (await this.client.query('list_policies', {})).policies;
  }

  async get(policyId: string): Promise<Policy> {
    return (await this.client.query('get_policy', { policyId })).policy;
  }

  /** Creates a policy; a policy that needs votes comes back as `consensus-needed` with no id yet. */
  async create(input: PolicyInput): Promise<ActivityOutcome<{ policyId: string }>> {
    assertName(input.name);
    const condition = checked(input.condition, 'condition');
    const consensus = checked(input.consensus, 'consensus');
    const time = checked(input.time, 'time');
    return this.client.submit('create_policy', {
      policyName: input.name,
      effect: input.effect,
      ...(condition === undefined ? {} : { condition }),
      ...(consensus === undefined ? {} : { consensus }),
      ...(time === undefined ? {} : { time }),
      notes: input.notes ?? '',
    });
  }

  /** Changes only the given fields; a given but blank expression clears that field (no constraint). */
  async update(policyId: string, changes: PolicyChanges): Promise<ActivityOutcome<{ policyId: string }>> {
    if (changes.name !== undefined) assertName(changes.name);
    const condition = changedExpression(changes.condition, 'condition');
    const consensus = changedExpression(changes.consensus, 'consensus');
    const time = changedExpression(changes.time, 'time');
    return this.client.submit('update_policy', {
      policyId,
      ...(changes.name === undefined ? {} : { policyName: changes.name }),
      ...(changes.effect === undefined ? {} : { policyEffect: changes.effect }),
      ...(condition === undefined ? {} : { policyCondition: condition }),
      ...(consensus === undefined ? {} : { policyConsensus: consensus }),
      ...(time === undefined ? {} : { time }),
      ...(changes.notes === undefined ? {} : { policyNotes: changes.notes }),
    });
  }

  async delete(policyId: string): Promise<ActivityOutcome<{ policyId: string }>> {
    return this.client.submit('delete_policy', { policyId });
  }
}

function assertName(name: string): void {
  if (name.trim() === '') throw new QkError('REQUEST_INVALID', 'policy name must not be blank', { field: 'name' });
}

/** The expression unchanged when it checks; POLICY_PARSE_ERROR naming the field and position otherwise. */
function checked(text: string | undefined, kind: PolicyExpressionKind): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const result = checkPolicyExpression(text, kind);
  if (!result.ok) {
    throw new QkError('POLICY_PARSE_ERROR', `${kind}: ${result.error.message}`, { ...result.error.details, field: kind });
  }
  return text;
}

/** For an update: undefined when the field is not changing, '' to clear it, else the checked expression. */
function changedExpression(text: string | undefined, kind: PolicyExpressionKind): string | undefined {
  if (text === undefined) return undefined;
  return checked(text, kind) ?? '';
}
