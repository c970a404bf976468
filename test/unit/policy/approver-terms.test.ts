import { describe, expect, it } from 'vitest';
import {
  approverTerms,
  checkPolicyExpression,
  termsCountingApproval,
  type ApproverTerm,
  type KnownCredential,
  type PolicyUser,
} from '../../../src/shared/policy';

const ann: PolicyUser = { id: 'u-ann', tags: ['t-ops'], alias: 'Ann' };
const bo: PolicyUser = { id: 'u-bo', tags: [], alias: 'Bo' };
const cy: PolicyUser = { id: 'u-cy', tags: ['t-ops', 't-sec'], email: 'cy@example.com', alias: 'Cy' };

function termsOf(consensus: string): ApproverTerm[] {
  const checked = checkPolicyExpression(consensus, 'consensus');
  if (!checked.ok) throw checked.error;
  return approverTerms(checked.ast);
}

/** What the terms say, without the AST nodes. */
function summary(consensus: string) {
  return termsOf(consensus).map(({ method, direction, required, atLeast, selects }) => ({ method, direction, required, atLeast, selects }));
}

const P256 = 'CREDENTIAL_TYPE_API_KEY_P256';
const ED25519 = 'CREDENTIAL_TYPE_API_KEY_ED25519';
/** The credentials each user holds: Ann a P-256 and an Ed25519 key, Bo one Ed25519 key, Cy a key of unknown type. */
const credentialsOf: Record<string, KnownCredential[]> = {
  'u-ann': [
    { id: 'k-ann-1', user_id: 'u-ann', type: P256, public_key: '02aa' },
    { id: 'k-ann-2', user_id: 'u-ann', type: ED25519, public_key: 'bb' },
  ],
  'u-bo': [{ id: 'k-bo', user_id: 'u-bo', type: ED25519, public_key: 'cc' }],
  'u-cy': [{ id: 'k-cy', user_id: 'u-cy' }],
};

/** The ids of the users whose approval counts toward `consensus`, each holding the credentials given for them. */
function counted(consensus: string, users: readonly PolicyUser[] = [ann, bo, cy], credentials: Record<string, KnownCredential[]> = {}): string[] {
  const terms = termsOf(consensus);
  return users.filter((user) => termsCountingApproval(terms, user, credentials[user.id]).length > 0).map((user) => user.id);
}

describe('approverTerms', () => {
  it('reads the threshold and the selection of the common consensus shapes', () => {
    expect(summary("approvers.filter(user, user.tags.contains('t-ops')).count() >= 2")).toEqual([
      { method: 'count', direction: 'helps', required: true, atLeast: 2n, selects: { kind: 'tag', tagId: 't-ops' } },
    ]);
    expect(summary("approvers.any(user, user.id == 'u-cy')")).toEqual([
      { method: 'any', direction: 'helps', required: true, atLeast: 1n, selects: { kind: 'user', userId: 'u-cy' } },
    ]);
    expect(summary('approvers.count() > 2')).toEqual([
      { method: 'count', direction: 'helps', required: true, atLeast: 3n, selects: { kind: 'everyone' } },
    ]);
    expect(summary("2 <= approvers.filter(u, 't-sec' in u.tags).count")).toEqual([
      { method: 'count', direction: 'helps', required: true, atLeast: 2n, selects: { kind: 'tag', tagId: 't-sec' } },
    ]);
  });

  it('tracks negation and disjunction: which way a term pulls and whether the consensus needs it', () => {
    expect(summary("!approvers.any(u, u.id == 'u-bo') && approvers.count() >= 2")).toEqual([
      { method: 'any', direction: 'hurts', required: true, atLeast: undefined, selects: { kind: 'user', userId: 'u-bo' } },
      { method: 'count', direction: 'helps', required: true, atLeast: 2n, selects: { kind: 'everyone' } },
    ]);
    expect(summary("approvers.any(u, u.id == 'u-bo') || approvers.count() < 3").map(({ direction, required }) => [direction, required])).toEqual([
      ['helps', false],
      ['hurts', false],
    ]);
    expect(summary('!(approvers.count() >= 2 || approvers.count() == 5)').map(({ direction, required }) => [direction, required])).toEqual([
      ['hurts', true],
      ['either', true],
    ]);
  });

  it('leaves predicates it cannot put in words without a selection', () => {
    expect(summary("approvers.filter(u, u.tags.contains('t-ops')).any(u, u.id != 'u-ann')")[0]?.selects).toBeUndefined();
  });

  it('reads the credentials the approvals were made with like the approvers, selecting a user by user_id', () => {
    expect(summary("credentials.any(c, c.user_id == 'u-ann')")).toEqual([
      { method: 'any', direction: 'helps', required: true, atLeast: 1n, selects: { kind: 'user', userId: 'u-ann' } },
    ]);
    expect(summary(`credentials.filter(c, c.type == '${P256}').count() >= 2 && credentials.count >= 3`)).toEqual([
      { method: 'count', direction: 'helps', required: true, atLeast: 2n, selects: undefined },
      { method: 'count', direction: 'helps', required: true, atLeast: 3n, selects: { kind: 'everyone' } },
    ]);
    // A credential's own id names a key, not a user.
    expect(summary("credentials.any(c, c.id == 'u-ann')")[0]?.selects).toBeUndefined();
  });
});

describe('termsCountingApproval', () => {
  it('counts users a comprehension predicate holds for, by tag, id or any other field', () => {
    expect(counted("approvers.filter(user, user.tags.contains('t-ops')).count() >= 2")).toEqual(['u-ann', 'u-cy']);
    expect(counted("approvers.any(user, user.alias == 'Bo')")).toEqual(['u-bo']);
    expect(counted("approvers.filter(u, u.tags.contains('t-ops')).any(u, 't-sec' in u.tags)")).toEqual(['u-cy']);
  });

  it('counts everyone when the consensus counts approvers unconditionally', () => {
    expect(counted('approvers.count() >= 2')).toEqual(['u-ann', 'u-bo', 'u-cy']);
  });

  it('leaves out the user a != names, and a literal that names no user', () => {
    expect(counted("approvers.any(user, user.id != 'u-bo')")).toEqual(['u-ann', 'u-cy']);
    expect(counted("approvers.any(user, user.id == 'ops export')")).toEqual([]);
  });

  it('leaves out users whose approval would make a required term fail, and those a negated term names', () => {
    expect(counted("approvers.all(u, u.tags.contains('t-ops')) && approvers.count() >= 2")).toEqual(['u-ann', 'u-cy']);
    expect(counted("!approvers.any(u, u.id == 'u-bo') && approvers.count() >= 2")).toEqual(['u-ann', 'u-cy']);
    // Under || the failing side need not hold: Bo still counts toward the count.
    expect(counted("approvers.all(u, u.tags.contains('t-ops')) || approvers.count() >= 3")).toEqual(['u-ann', 'u-bo', 'u-cy']);
    // A count that must stay small does not rule anyone out by itself.
    expect(counted("approvers.any(u, u.tags.contains('t-sec')) && approvers.count() <= 3")).toEqual(['u-cy']);
    expect(counted("approvers.filter(u, u.tags.contains('t-ops')).count() == 0")).toEqual([]);
  });

  it('says nothing for a user whose record lacks the field a predicate reads', () => {
    expect(counted("approvers.any(u, u.email == 'cy@example.com')")).toEqual(['u-cy']);
    expect(termsCountingApproval(termsOf("approvers.any(u, u.email == 'x@example.com')"), bo)).toEqual([]);
  });

  it('counts a user toward a credentials term when one of their credentials satisfies its predicates', () => {
    expect(counted("credentials.any(c, c.user_id == 'u-bo')", [ann, bo, cy], credentialsOf)).toEqual(['u-bo']);
    expect(counted(`credentials.filter(c, c.type == '${ED25519}').count() >= 2`, [ann, bo, cy], credentialsOf)).toEqual(['u-ann', 'u-bo']);
    expect(counted(`credentials.any(c, c.type == '${P256}')`, [ann, bo, cy], credentialsOf)).toEqual(['u-ann']);
    expect(counted("credentials.any(c, c.public_key == 'cc')", [ann, bo, cy], credentialsOf)).toEqual(['u-bo']);
    // Ann may approve with her P-256 key, which keeps the required `all` true; Bo holds none, and of Cy's key the
    // type is not known, so the `all` says nothing for him and the count stands.
    expect(counted(`credentials.all(c, c.type == '${P256}') && approvers.count() >= 2`, [ann, bo, cy], credentialsOf)).toEqual(['u-ann', 'u-cy']);
    expect(counted('credentials.count() >= 2', [ann, bo, cy], credentialsOf)).toEqual(['u-ann', 'u-bo', 'u-cy']);
  });

  it('says nothing for a credential field that is not known, and reads a user without known credentials by owner only', () => {
    // Cy's key has no known type: neither a test of its type nor of its absence counts him.
    expect(counted(`credentials.any(c, c.type == '${P256}') || credentials.any(c, c.type != '${P256}')`, [cy], credentialsOf)).toEqual([]);
    expect(counted("credentials.any(c, c.user_id == 'u-cy')", [cy], credentialsOf)).toEqual(['u-cy']);
    expect(counted("credentials.any(c, c.user_id == 'u-ann')")).toEqual(['u-ann']);
    expect(counted(`credentials.any(c, c.type == '${P256}')`)).toEqual([]);
    expect(counted("credentials.any(c, c.id == 'k-ann-1')")).toEqual([]);
  });

  it('returns the terms the approval counts toward', () => {
    const terms = termsOf("approvers.any(u, u.id == 'u-cy') && approvers.filter(u, u.tags.contains('t-ops')).count() >= 2");
    expect(termsCountingApproval(terms, cy)).toEqual(terms);
    expect(termsCountingApproval(terms, ann)).toEqual([terms[1]]);
    expect(termsCountingApproval(terms, bo)).toEqual([]);
  });
});
