/**
 * MFA policies in words for the Policies screen: the steps in order, each step's methods, named credentials by their
 * names, and the user the policy belongs to; the condition read as a policy's is.
 */
import { describe, expect, it } from 'vitest';
import type { AuthenticationMethod, User } from '../../src/shared/api';
import { mfaPoliciesInWords } from '../../src/main/policies/mfa-policy-words';
import { policyNamesOf } from '../../src/main/policies/policy-words';
import { apiUser } from '../support/api-users';

const PASSKEY = { type: 'AUTHENTICATION_TYPE_PASSKEY' } as const;
const API_KEY = { type: 'AUTHENTICATION_TYPE_API_KEY' } as const;

function userWith(steps: AuthenticationMethod[][], order = '0', userName = 'Bea'): User {
  return apiUser({
    userId: 'user-bea',
    userName,
    oauthProviders: [{ id: 'oauth-1', name: 'Google' }],
    passkeys: [{ id: 'auth-1', name: 'YubiKey' }],
    apiKeys: [{ id: 'key-1', name: 'desk', publicKey: '02' }],
    mfaPolicies: [{ id: 'mfa-1', name: 'Signing', steps, order }],
  });
}

const lookupOf = (users: User[]) => policyNamesOf({ users, tags: [], wallets: [], privateKeys: [], policies: [] }, []);

describe('an MFA policy in words', () => {
  const cases: { name: string; steps: AuthenticationMethod[][]; requirement: string }[] = [
    { name: 'a passkey, then an API key', steps: [[PASSKEY], [API_KEY]], requirement: 'need, in order: a passkey, then an API key — for Bea' },
    { name: 'one step met by either', steps: [[PASSKEY, API_KEY]], requirement: 'need, in order: a passkey or an API key — for Bea' },
    {
      name: 'named credentials by their names',
      steps: [[{ ...API_KEY, id: 'key-1' }], [{ ...PASSKEY, id: 'auth-1' }], [{ type: 'AUTHENTICATION_TYPE_OAUTH', id: 'oauth-1' }]],
      requirement: 'need, in order: the API key "desk", then the passkey "YubiKey", then the OAuth sign-in "Google" — for Bea',
    },
    {
      name: 'a credential the user no longer has, by its id',
      steps: [[{ ...PASSKEY, id: 'gone' }]],
      requirement: 'need, in order: the passkey "gone" — for Bea',
    },
    {
      name: 'codes and sessions',
      steps: [[{ type: 'AUTHENTICATION_TYPE_EMAIL_OTP' }, { type: 'AUTHENTICATION_TYPE_SMS_OTP' }], [{ type: 'AUTHENTICATION_TYPE_SESSION' }]],
      requirement: 'need, in order: an email code or an SMS code, then a session — for Bea',
    },
  ];
  it.each(cases)('$name', ({ steps, requirement }) => {
    const user = userWith(steps);
    const [policy] = mfaPoliciesInWords([user], lookupOf([user]));
    expect(policy).toMatchObject({ mfaPolicyName: 'Signing', userName: 'Bea', order: 0, requirement });
    expect(policy!.conditionReading.map((piece) => piece.text).join('')).toBe("activity.action == 'SIGN'");
  });

  it('lists each user’s policies in the order the service evaluates them, a hidden character in a name shown escaped', () => {
    const bea = userWith([[PASSKEY]], '2');
    bea.mfaPolicies.push({ ...bea.mfaPolicies[0]!, mfaPolicyId: 'mfa-0', mfaPolicyName: 'Everything', condition: 'true', order: '1' });
    const eve = { ...userWith([[API_KEY]], '0', 'Eve\u202E'), userId: 'user-eve' };
    const read = mfaPoliciesInWords([bea, eve], lookupOf([bea, eve]));
    expect(read.map((policy) => [policy.userName, policy.mfaPolicyId, policy.order])).toEqual([
      ['Bea', 'mfa-0', 1],
      ['Bea', 'mfa-1', 2],
      ['Eve\\u202E', 'mfa-1', 0],
    ]);
    expect(read[2]!.requirement).toBe('need, in order: an API key — for Eve\\u202E');
  });
});
