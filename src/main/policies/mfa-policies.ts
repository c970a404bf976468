/**
 * Users' MFA policies, written through the profile's client: stamped and confirmed like every other write, the
 * confirmation reading the policy in words (its condition, its steps in order, whose it is). The condition is checked
 * with the shared policy language before anything is stamped, so a typo is reported with its position.
 */
import type { AuthenticationMethod } from '../../shared/api';
import { QkError } from '../../shared/errors';
import type { ChannelInput } from '../../shared/ipc/contract';
import { checkPolicyExpression } from '../../shared/policy';
import type { ActivityOutcome } from '../client/api-client';
import type { ProfileServices } from '../profiles/active-profile';

type MfaCreate = ChannelInput<'policies.mfaCreate'>;
type MfaUpdate = ChannelInput<'policies.mfaUpdate'>;
type MfaResult = ActivityOutcome<{ mfaPolicyId: string }>;

export async function createMfaPolicy({ client, organization }: ProfileServices, input: MfaCreate): Promise<MfaResult> {
  assertName(input.name);
  const condition = checkedCondition(input.condition);
  const snapshot = await organization.snapshot();
  const userId = input.userId ?? snapshot.viewer.userId;
  const user = snapshot.users.find((candidate) => candidate.userId === userId);
  if (user === undefined) throw new QkError('NOT_FOUND', `no user ${userId} in this organization`, { field: 'userId', userId });
  // After the user's last policy, so a new one never shadows those already there.
  const order = input.order ?? Math.max(-1, ...user.mfaPolicies.map((policy) => Number(policy.order))) + 1;
  return client.submit('create_mfa_policy', {
    userId,
    mfaPolicyName: input.name,
    condition,
    requiredAuthenticationMethods: input.steps.map(stepParams),
    order: String(order),
    ...(input.notes === undefined ? {} : { notes: input.notes }),
  });
}

export async function updateMfaPolicy({ client }: ProfileServices, { userId, mfaPolicyId, changes }: MfaUpdate): Promise<MfaResult> {
  if (changes.name !== undefined) assertName(changes.name);
  return client.submit('update_mfa_policy', {
    userId,
    mfaPolicyId,
    ...(changes.name === undefined ? {} : { mfaPolicyName: changes.name }),
    ...(changes.condition === undefined ? {} : { condition: checkedCondition(changes.condition) }),
    ...(changes.steps === undefined ? {} : { requiredAuthenticationMethods: changes.steps.map(stepParams) }),
    ...(changes.order === undefined ? {} : { order: String(changes.order) }),
    ...(changes.notes === undefined ? {} : { notes: changes.notes }),
  });
}

export async function deleteMfaPolicy({ client }: ProfileServices, userId: string, mfaPolicyId: string): Promise<MfaResult> {
  return client.submit('delete_mfa_policy', { userId, mfaPolicyId });
}

function stepParams(step: { any: AuthenticationMethod[] }): { any: AuthenticationMethod[] } {
  return { any: step.any.map((method) => (method.id === undefined ? { type: method.type } : { type: method.type, id: method.id })) };
}

function assertName(name: string): void {
  if (name.trim() === '') throw new QkError('REQUEST_INVALID', 'MFA policy name must not be blank', { field: 'name' });
}

/** An MFA policy always has a condition ("true" for every activity); one that does not parse names its position. */
function checkedCondition(text: string): string {
  if (text.trim() === '')
    throw new QkError('REQUEST_INVALID', 'MFA policy condition must not be blank; "true" matches every activity', { field: 'condition' });
  const result = checkPolicyExpression(text, 'condition');
  if (!result.ok) throw new QkError('POLICY_PARSE_ERROR', `condition: ${result.error.message}`, { ...result.error.details, field: 'condition' });
  return text;
}
