/**
 * Where the policies stand, by the service's rules: an explicit DENY wins, then an ALLOW whose consensus holds, then
 * an ALLOW short of consensus waits, with the fewest more approvers it needs and whether the viewer is one of them.
 */
import { describe, expect, it } from 'vitest';
import { policyStanding, type StandingInput } from '../../src/main/signing/policy-standing';
import type { Policy, Tag, User } from '../../src/shared/api';

const at = { seconds: '1700000000', nanos: '0' };
const user = (userId: string, userTags: string[] = []): User => ({
  userId,
  userName: userId,
  authenticators: [],
  apiKeys: [
    {
      apiKeyId: `${userId}-key`,
      apiKeyName: 'key',
      credential: { publicKey: `02${userId.padEnd(64, '0')}`, type: 'CREDENTIAL_TYPE_API_KEY_P256' },
      createdAt: at,
      updatedAt: at,
    },
  ],
  userTags,
  oauthProviders: [],
  createdAt: at,
  updatedAt: at,
  mfaPolicies: [],
});
const policy = (policyName: string, effect: Policy['effect'], condition: string, consensus = '', time = ''): Policy => ({
  policyId: `id-${policyName}`,
  policyName,
  effect,
  condition,
  consensus,
  time,
  notes: '',
  createdAt: at,
  updatedAt: at,
});
const tags: Tag[] = [{ tagId: 'tag-ops', tagName: 'ops', tagType: 'TAG_TYPE_USER', createdAt: at, updatedAt: at }];
const users = [user('root'), user('alice', ['tag-ops']), user('bob', ['tag-ops']), user('carol')];
const TRANSFER_VALUE = 5n * 10n ** 18n;

function standing(overrides: Partial<StandingInput>) {
  return policyStanding({
    activityType: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
    params: { signWith: '0xabc', unsignedTransaction: '02', type: 'TRANSACTION_TYPE_ETHEREUM' },
    resources: { eth: { tx: { to: '0xRecipient', value: TRANSFER_VALUE, chain_id: 1n } } },
    policies: [],
    users,
    tags,
    approverIds: ['alice'],
    viewerId: 'bob',
    rootQuorum: { threshold: 1, userIds: ['root'] },
    nowMs: Date.UTC(2026, 0, 5, 12),
    ...overrides,
  });
}

const twoOps = policy(
  'two ops',
  'EFFECT_ALLOW',
  'eth.tx.value > 1000000000000000000',
  "approvers.filter(user, user.tags.contains('tag-ops')).count() >= 2",
);

describe('policyStanding', () => {
  it('waits on a matched ALLOW, names the tag still needed, and knows whose vote counts', () => {
    const result = standing({ policies: [twoOps] });
    expect(result.outcome).toBe('NEEDS_CONSENSUS');
    expect(result.matchedPolicies).toEqual([{ policyId: 'id-two ops', policyName: 'two ops', effect: 'EFFECT_ALLOW', outcome: 'NEEDS_CONSENSUS' }]);
    expect(result.consensusNeeds).toBe('needs 1 more approver tagged ops (policy "two ops")');
    expect(result.viewerCanApprove).toBe(true);
    expect(standing({ policies: [twoOps], viewerId: 'carol' }).viewerCanApprove).toBe(false);
    // Why it waits: the consensus's comparison is false, it counted one ops approver, and the tag reads by name.
    expect(result.why).toEqual([
      {
        policyId: 'id-two ops',
        policyName: 'two ops',
        field: 'consensus',
        outcome: 'false',
        parts: [
          {
            pieces: [
              { text: 'approvers.filter(user, user.tags.contains(' },
              { text: "'tag-ops'", name: 'ops', kind: 'tag' },
              { text: ')).count() >= 2' },
            ],
            line: 1,
            column: 1,
            outcome: 'false',
            reads: [{ expression: 'approvers.filter(user, user.tags.contains(«tag ops»)).count()', value: '1' }],
          },
        ],
      },
    ]);
    expect(standing({ policies: [twoOps], viewerId: 'alice' }).viewerCanApprove).toBe(false);
    expect(standing({ policies: [twoOps], viewerId: 'root' }).viewerCanApprove).toBe(true);
  });

  it('counts more approvers when none has voted, and names users when they share no named tag', () => {
    expect(standing({ policies: [twoOps], approverIds: [] }).consensusNeeds).toBe('needs 2 more approvers tagged ops (policy "two ops")');
    const named = policy('alice and carol', 'EFFECT_ALLOW', 'true', "approvers.any(user, user.id == 'carol')");
    expect(standing({ policies: [named] }).consensusNeeds).toBe('needs 1 more approver from carol (policy "alice and carol")');
  });

  it('counts the passkeys of approvers as credentials, not only their API keys', () => {
    const passkeyHolder: User = {
      ...user('dana'),
      authenticators: [
        {
          authenticatorId: 'dana-passkey',
          authenticatorName: 'laptop',
          credentialId: 'cred',
          model: 'platform',
          aaguid: '00000000-0000-0000-0000-000000000000',
          attestationType: 'none',
          transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL'],
          credential: { publicKey: `02${'d'.repeat(64)}`, type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' },
          createdAt: at,
          updatedAt: at,
        },
      ],
    };
    const byPasskey = policy('a passkey', 'EFFECT_ALLOW', 'true', "credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')");
    const result = standing({ policies: [byPasskey], users: [...users, passkeyHolder], approverIds: ['dana'] });
    expect(result.outcome).toBe('ALLOW');
    expect(standing({ policies: [byPasskey], users: [...users, passkeyHolder], approverIds: ['alice'] }).consensusNeeds).toBe(
      'needs 1 more approver from dana (policy "a passkey")',
    );
  });

  it('names a tag only when the consensus selects approvers by it, not when its id merely appears in the text', () => {
    const byId = policy(
      'bob, not an alias',
      'EFFECT_ALLOW',
      'true',
      "approvers.any(user, user.id == 'bob') && !approvers.any(user, user.alias == 'tag-ops')",
    );
    expect(standing({ policies: [byId] }).consensusNeeds).toBe('needs 1 more approver from bob (policy "bob, not an alias")');
  });

  it('allows once the consensus holds, and an explicit DENY wins over it', () => {
    const allowed = standing({ policies: [twoOps], approverIds: ['alice', 'bob'] });
    expect([allowed.outcome, allowed.decidedBy, allowed.consensusNeeds]).toEqual(['ALLOW', 'policy', undefined]);
    const deny = policy('no mainnet', 'EFFECT_DENY', 'eth.tx.chain_id == 1');
    const denied = standing({ policies: [twoOps, deny], approverIds: ['alice', 'bob'] });
    expect([denied.outcome, denied.decidedBy]).toEqual(['DENY', 'policy']);
    expect(denied.evaluations.map((evaluation) => evaluation.verdict)).toEqual(['allow', 'deny']);
    expect(denied.why.map(({ policyName, field, outcome, parts }) => [policyName, field, outcome, parts[0]?.reads])).toEqual([
      ['no mainnet', 'condition', 'true', [{ expression: 'eth.tx.chain_id', value: '1' }]],
    ]);
    expect(allowed.why).toEqual([]);
  });

  it('a DENY whose consensus does not hold, a policy outside its time window or another condition does not apply', () => {
    const result = standing({
      policies: [
        policy('deny unless two', 'EFFECT_DENY', 'true', 'approvers.count() >= 2'),
        policy('weekends only', 'EFFECT_ALLOW', 'true', '', "CronSpan('0 0 * * 6', '48h', 'UTC')"),
        policy('testnet only', 'EFFECT_ALLOW', 'eth.tx.chain_id == 11155111'),
      ],
    });
    expect(result.outcome).toBe('NO_POLICY');
    expect(result.evaluations.map((evaluation) => evaluation.verdict)).toEqual(['not applicable', 'inactive', 'not applicable']);
    expect(result.consensusNeeds).toBe('no policy allows it: needs 1 more root quorum approval');
    // Denied for want of an ALLOW: each ALLOW says why it did not apply; the DENY that did not deny is left out.
    expect(result.why.map(({ policyName, field, outcome, parts }) => [policyName, field, outcome, parts.map((part) => part.reads)])).toEqual([
      ['weekends only', 'time', 'false', [[]]],
      ['testnet only', 'condition', 'false', [[{ expression: 'eth.tx.chain_id', value: '1' }]]],
    ]);
    expect(result.viewerCanApprove).toBe(false);
  });

  it('engine errors at the last click: a policy reading a chain the request lacks does not apply, said in words', () => {
    const readsSolana = policy('reads solana', 'EFFECT_ALLOW', 'solana.tx.transfers.count() > 0');
    const result = standing({ policies: [readsSolana] });
    expect(result.evaluations).toEqual([
      {
        policyId: 'id-reads solana',
        policyName: 'reads solana',
        effect: 'EFFECT_ALLOW',
        verdict: 'not applicable',
        reason: 'this request has no Solana transaction',
      },
    ]);
    // It plainly does not apply, so it is not listed as a failure.
    expect(result.failedPolicies).toEqual([]);
    expect(result.why).toMatchObject([
      {
        policyName: 'reads solana',
        field: 'condition',
        outcome: 'error',
        parts: [{ outcome: 'error', error: 'this request has no Solana transaction' }],
      },
    ]);
    expect(result.matchedPolicies).toEqual([]);
  });

  it('lists a policy whose condition fails for another reason, in words, and counts it as not applying', () => {
    const digits = '[0,1,2,3,4,5,6,7,8,9]';
    // Stored before the static bound refused it: its text no longer checks.
    const costly = policy('costly', 'EFFECT_DENY', `${digits}.all(a, ${digits}.all(b, ${digits}.all(c, ${digits}.all(d, ${digits}.all(e, true)))))`);
    const outOfRange = policy('far byte', 'EFFECT_DENY', "eth.tx.to[200] == 'a'");
    const mistyped = policy('mistyped', 'EFFECT_DENY', 'activity.params.type == 1');
    const result = standing({ policies: [costly, outOfRange, mistyped] });
    expect(result.failedPolicies).toEqual([
      { policyId: 'id-costly', policyName: 'costly', reason: 'its condition is too costly to evaluate' },
      { policyId: 'id-far byte', policyName: 'far byte', reason: 'its condition reads past the end of a list or text of this request' },
      { policyId: 'id-mistyped', policyName: 'mistyped', reason: 'its condition reads a value of another kind than it expects in this request' },
    ]);
    expect(result.evaluations.map((evaluation) => evaluation.verdict)).toEqual(['not applicable', 'not applicable', 'not applicable']);
    expect(result.outcome).toBe('NO_POLICY');
  });

  it('the root quorum decides once it is reached, whatever the policies say', () => {
    const result = standing({ policies: [twoOps], approverIds: ['root'] });
    expect([result.outcome, result.decidedBy, result.viewerCanApprove]).toEqual(['ALLOW', 'root quorum', false]);
  });
});

describe('who may still vote, from the same evaluation as the verdict', () => {
  // The case: a 250,000 USDC transfer, and a policy for USDC transfers up to 1,000 that Bea's vote would count
  // toward. Read against the activity alone its condition cannot be ruled out; read with the decoded call it is false.
  const USDC = '0xA0b86991c6218b36c1D19D4a2e9Eb0cE3606eB48';
  const upTo1000 = policy(
    'USDC transfers up to 1,000',
    'EFFECT_ALLOW',
    `eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] <= 1000000000`,
    "approvers.any(user, user.tags.contains('tag-ops'))",
  );
  const transfer = (amount: bigint) => ({
    eth: { tx: { to: USDC, value: 0n, chain_id: 1n, function_name: 'transfer', contract_call_args: { amount } } },
  });

  it('never names a policy whose condition does not hold as one a vote counts toward', () => {
    const large = standing({
      policies: [upTo1000],
      resources: transfer(250_000_000_000n),
      approverIds: ['root'],
      rootQuorum: { threshold: 2, userIds: ['root', 'carol'] },
    });
    expect(large.outcome).toBe('NO_POLICY');
    expect(large.stillToVote).toEqual([{ userId: 'carol', userName: 'carol', reasons: ['root quorum member'] }]);
    expect(JSON.stringify(large.stillToVote)).not.toContain('USDC transfers up to 1,000');
  });

  it('names it, with the approvers it counts, when the condition holds', () => {
    const small = standing({
      policies: [upTo1000],
      resources: transfer(500_000_000n),
      approverIds: ['root'],
      rootQuorum: { threshold: 2, userIds: ['root', 'carol'] },
    });
    expect(small.outcome).toBe('NEEDS_CONSENSUS');
    const reasons = Object.fromEntries(small.stillToVote.map((voter) => [voter.userId, voter.reasons]));
    expect(reasons['alice']).toEqual(["counts toward policy USDC transfers up to 1,000's consensus (a user tagged ops)"]);
    expect(reasons['carol']).toEqual(['root quorum member']);
    expect(reasons['bob']).toHaveLength(1);
  });

  it('lists nobody once the request is decided', () => {
    expect(standing({ policies: [upTo1000], resources: transfer(500_000_000n), approverIds: ['alice'] }).stillToVote).toEqual([]);
  });
});
