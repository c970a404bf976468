/**
 * MFA policies in words, for the Policies screen (docs/service.md#mfa-policies): each user's policies in the order the
 * service evaluates them, the condition read as a policy's is (ids named, amounts in units), and the steps an activity
 * it matches waits for: "need, in order: a passkey, then the API key "desk" — for Bea". Read from the profile's one
 * read of its organization, whose users carry their MFA policies: no request of its own.
 */
import type { AuthenticationMethod, User } from '../../shared/api';
import type { OrganizationLookup } from '../../shared/describe';
import { readPolicyExpression } from '../../shared/describe/policy-reading';
import type { MfaPolicyView } from '../../shared/ipc/channels/policies';
import { quotedText, visibleText } from '../../shared/visible-text';

/** Every user's MFA policies, user by user as the organization lists them, each user's in evaluation order. */
export function mfaPoliciesInWords(users: readonly User[], lookup: OrganizationLookup): MfaPolicyView[] {
  return users.flatMap((user) =>
    [...user.mfaPolicies]
      .sort((a, b) => Number(a.order) - Number(b.order))
      .map((policy) => ({
        mfaPolicyId: policy.mfaPolicyId,
        mfaPolicyName: visibleText(policy.mfaPolicyName),
        userId: user.userId,
        userName: visibleText(user.userName),
        order: Number(policy.order),
        condition: policy.condition,
        conditionReading: readPolicyExpression(policy.condition, 'condition', lookup),
        requirement: `need, in order: ${policy.requiredAuthenticationMethods
          .map((step) => step.any.map((method) => methodInWords(method, user)).join(' or '))
          .join(', then ')} — for ${visibleText(user.userName || user.userId)}`,
        steps: policy.requiredAuthenticationMethods.map((step) => ({
          any: step.any.map(({ type, id }) => (id === undefined ? { type } : { type, id })),
        })),
        ...(policy.notes === undefined || policy.notes === '' ? {} : { notes: visibleText(policy.notes) }),
      })),
  );
}

const KINDS: Record<AuthenticationMethod['type'], string> = {
  AUTHENTICATION_TYPE_PASSKEY: 'passkey',
  AUTHENTICATION_TYPE_API_KEY: 'API key',
  AUTHENTICATION_TYPE_SESSION: 'session',
  AUTHENTICATION_TYPE_EMAIL_OTP: 'email code',
  AUTHENTICATION_TYPE_SMS_OTP: 'SMS code',
  AUTHENTICATION_TYPE_OAUTH: 'OAuth sign-in',
};

/** "a passkey", "the API key "desk"", "an email code": a named credential by its name where the user has it. */
function methodInWords(method: AuthenticationMethod, user: User): string {
  const kind = KINDS[method.type];
  if (method.id === undefined) return `${/^[aeiouAEIOS]/.test(kind) ? 'an' : 'a'} ${kind}`;
  const name =
    method.type === 'AUTHENTICATION_TYPE_API_KEY'
      ? user.apiKeys.find((key) => key.apiKeyId === method.id)?.apiKeyName
      : method.type === 'AUTHENTICATION_TYPE_PASSKEY'
        ? user.authenticators.find((authenticator) => authenticator.authenticatorId === method.id)?.authenticatorName
        : method.type === 'AUTHENTICATION_TYPE_OAUTH'
          ? user.oauthProviders.find((provider) => provider.providerId === method.id)?.providerName
          : undefined;
  return `the ${kind} ${quotedText(name ?? method.id)}`;
}
