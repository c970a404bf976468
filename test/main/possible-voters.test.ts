import { describe, expect, it } from 'vitest';
import { possibleVoters } from '../../src/main/approvals/possible-voters';
import type { OrganizationLookup } from '../../src/shared/describe';

const user = (userId: string, userName: string, userTags: string[] = []) => ({
  userId,
  userName,
  userTags,
  apiKeys: [],
  authenticators: [],
  oauthProviders: [],
});
const policy = (policyName: string, condition: string, consensus: string, effect = 'EFFECT_ALLOW') => ({
  policyId: policyName,
  policyName,
  effect,
  condition,
  consensus,
  notes: '',
});
const lookup: OrganizationLookup = {
  users: [user('u-root', 'Root'), user('u-ann', 'Ann'), user('u-bo', 'Bo', ['t-ops']), user('u-cy', 'Cy')],
  tags: [{ tagId: 't-ops', tagName: 'Ops' }],
  rootQuorum: { userIds: ['u-root', 'u-ann'], threshold: 2 },
  policies: [
    policy('ops export', "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'", "approvers.any(user, user.tags.contains('t-ops'))"),
    policy('cy signs', "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'", "approvers.any(user, user.id == 'u-cy')"),
    policy('deny cy', 'true', "approvers.any(user, user.id == 'u-cy')", 'EFFECT_DENY'),
  ],
};
const applicable = (names: readonly string[]) => (lookup.policies ?? []).filter((entry) => names.includes(entry.policyName));

describe('possibleVoters', () => {
  it('lists root quorum members and users whose approval counts toward the consensus of an applicable allow policy', () => {
    expect(possibleVoters(applicable(['ops export']), new Set(['u-root']), lookup)).toEqual([
      { userId: 'u-ann', userName: 'Ann', reasons: ['root quorum member'] },
      { userId: 'u-bo', userName: 'Bo', reasons: ["counts toward policy ops export's consensus (a user tagged Ops)"] },
    ]);
  });

  it('leaves out those who voted, and deny policies', () => {
    expect(possibleVoters(applicable(['ops export']), new Set(['u-root', 'u-ann', 'u-bo']), lookup)).toEqual([]);
    expect(possibleVoters(applicable(['deny cy']), new Set(), lookup).map((entry) => entry.userId)).toEqual(['u-root', 'u-ann']);
  });

  /** Who may still vote, besides the root quorum, under one allow policy for every activity. */
  const votersUnder = (consensus: string, users = lookup.users ?? []) =>
    Object.fromEntries(
      possibleVoters([policy('p', 'true', consensus)], new Set(), { ...lookup, users, rootQuorum: undefined }).map((entry) => [
        entry.userId,
        entry.reasons,
      ]),
    );
  const ops = [user('u-ann', 'Ann', ['t-ops']), user('u-bo', 'Bo', ['t-ops']), user('u-cy', 'Cy')];

  it('counts users a tag predicate selects, with the number the consensus asks for', () => {
    expect(votersUnder("approvers.filter(user, user.tags.contains('t-ops')).count() >= 2", ops)).toEqual({
      'u-ann': ["counts toward policy p's consensus (2 users tagged Ops)"],
      'u-bo': ["counts toward policy p's consensus (2 users tagged Ops)"],
    });
  });

  it('writes the possessive of a policy name ending in s with the apostrophe alone', () => {
    const named = possibleVoters([policy('operators', 'true', "approvers.filter(user, user.tags.contains('t-ops')).count() >= 2")], new Set(), {
      ...lookup,
      users: ops,
      rootQuorum: undefined,
    });
    expect(named.map((entry) => entry.reasons)).toEqual([
      ["counts toward policy operators' consensus (2 users tagged Ops)"],
      ["counts toward policy operators' consensus (2 users tagged Ops)"],
    ]);
  });

  it('counts everyone when the consensus counts approvers unconditionally', () => {
    expect(votersUnder('approvers.count() >= 2')).toEqual({
      'u-root': ["counts toward policy p's consensus (any 2 users)"],
      'u-ann': ["counts toward policy p's consensus (any 2 users)"],
      'u-bo': ["counts toward policy p's consensus (any 2 users)"],
      'u-cy': ["counts toward policy p's consensus (any 2 users)"],
    });
  });

  it('leaves out the user a != names, and names those a predicate on another field selects', () => {
    expect(Object.keys(votersUnder("approvers.any(user, user.id != 'u-cy')"))).toEqual(['u-root', 'u-ann', 'u-bo']);
    expect(votersUnder("approvers.any(user, user.alias == 'Cy')")).toEqual({ 'u-cy': ['counts toward policy p'] });
    expect(votersUnder("approvers.any(user, user.id == 'u-cy')")).toEqual({ 'u-cy': ["counts toward policy p's consensus (Cy, named by id)"] });
  });

  it('reads the email a user record holds, and leaves out users without one', () => {
    const withEmail = [{ ...user('u-ann', 'Ann'), userEmail: 'ann@example.com' }, user('u-bo', 'Bo')];
    expect(votersUnder("approvers.any(user, user.email == 'ann@example.com')", withEmail)).toEqual({ 'u-ann': ['counts toward policy p'] });
    expect(votersUnder("approvers.any(user, user.email != 'ann@example.com')", withEmail)).toEqual({});
  });

  it('lists the user a credentials comprehension names by user_id', () => {
    expect(votersUnder("credentials.any(c, c.user_id == 'u-cy')")).toEqual({ 'u-cy': ["counts toward policy p's consensus (Cy, named by id)"] });
    expect(Object.keys(votersUnder("credentials.all(c, c.user_id != 'u-cy') && credentials.count() >= 2"))).toEqual(['u-root', 'u-ann', 'u-bo']);
  });

  const withKeys = [
    {
      ...user('u-ann', 'Ann'),
      apiKeys: [{ apiKeyId: 'k-ann', apiKeyName: 'laptop', credentialType: 'CREDENTIAL_TYPE_API_KEY_P256', publicKey: '02aa' }],
    },
    {
      ...user('u-bo', 'Bo'),
      apiKeys: [{ apiKeyId: 'k-bo', apiKeyName: 'ci', credentialType: 'CREDENTIAL_TYPE_API_KEY_ED25519', publicKey: 'bb' }],
      authenticators: [
        { authenticatorId: 'a-bo', authenticatorName: 'yubikey', credentialType: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR', publicKey: '04cc' },
      ],
    },
    // The lookup names Cy's key but not its type.
    { ...user('u-cy', 'Cy'), apiKeys: [{ apiKeyId: 'k-cy', apiKeyName: 'old key' }] },
  ];

  it("lists users holding a credential of the type a consensus counts, when the lookup knows the keys' types", () => {
    expect(votersUnder("credentials.filter(c, c.type == 'CREDENTIAL_TYPE_API_KEY_P256').count() >= 2", withKeys)).toEqual({
      'u-ann': ['counts toward policy p'],
    });
    expect(Object.keys(votersUnder("credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", withKeys))).toEqual(['u-bo']);
    expect(Object.keys(votersUnder("credentials.any(c, c.public_key == 'bb')", withKeys))).toEqual(['u-bo']);
  });

  it('says nothing for a credential field the lookup does not know', () => {
    expect(votersUnder("credentials.any(c, c.type != 'CREDENTIAL_TYPE_API_KEY_P256')", [withKeys[2]!])).toEqual({});
    // A user the lookup lists without credentials is read by owner only.
    expect(votersUnder("credentials.any(c, c.type == 'CREDENTIAL_TYPE_API_KEY_P256')", [user('u-dee', 'Dee')])).toEqual({});
  });

  it('does not take a literal that names no user, such as a policy name, for a voter', () => {
    expect(votersUnder("approvers.any(user, user.id == 'ops export') || approvers.any(user, user.tags.contains('cy signs'))")).toEqual({});
    // The old textual reading took any literal equal to an id: here 'u-cy' is an alias nobody has.
    expect(votersUnder("approvers.any(user, user.alias == 'u-cy')")).toEqual({});
  });

  it('leaves out everyone but the root quorum when the consensus does not parse', () => {
    expect(votersUnder("approvers.any(user, user.id == 'u-cy'")).toEqual({});
  });
});
