import { describe, expect, it } from 'vitest';
import { lintPolicy, type LintContext, type LintPolicy } from '../../../src/shared/policy/lint';
import { anyOfUsersTemplate, anyWithTagTemplate, userMayExportWalletTemplate } from '../../../src/renderer/src/policy/templates';
import {
  aboveNeedsTwoTemplate,
  allowlistBelowTemplate,
  contractFunctionTemplate,
  denyChainTemplate,
} from '../../../src/renderer/src/policy/signing-templates';
import type { PolicyDraft } from '../../../src/renderer/src/policy/draft';

const ROOT = { id: 'u-root', name: 'Root', tags: [] };
const ANA = { id: 'u-ana', name: 'Ana', tags: ['tag-ops'] };
const BEA = { id: 'u-bea', name: 'Bea', tags: ['tag-ops'] };
const TOKEN = '0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7';

/** The operator's organization of the issue: a 2-of-2 root quorum (Root, Ana), Bea an operator, an ERC-20's ABI uploaded. */
const context: LintContext = {
  rootQuorum: { userIds: [ROOT.id, ANA.id], threshold: 2 },
  users: [ROOT, ANA, BEA],
  policies: [],
  interfaces: [{ chain: 'ethereum', label: 'USDC', arguments: ['to', 'amount', 'from', 'spender'], accounts: [] }],
};

function policy(fields: Partial<LintPolicy>): LintPolicy {
  return { name: 'p', effect: 'EFFECT_ALLOW', condition: '', consensus: '', time: '', ...fields };
}
const fromDraft = (draft: PolicyDraft): LintPolicy => ({ ...draft, policyId: undefined });
const rules = (found: ReturnType<typeof lintPolicy>) => found.map((finding) => finding.rule);
const SIGN = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'";

describe('weak-allow: an allow for every activity weaker than the root quorum', () => {
  it('fires on "any 1 of Root, Bea" with an empty condition under a 2-of-2 root quorum, on the consensus', () => {
    const draft = fromDraft(anyOfUsersTemplate([ROOT, BEA], 1));
    const [finding, ...rest] = lintPolicy(draft, context);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      rule: 'weak-allow',
      severity: 'warning',
      field: 'consensus',
      span: { offset: 0, line: 1, column: 1, length: draft.consensus.length },
    });
    expect(finding!.message).toBe(
      'With no condition, this allows every activity once Root alone approves, while the root quorum needs 2 of Root, Ana. Narrow the condition, or require at least 2 approvals.',
    );
  });

  it('fires on a condition that always holds and an empty consensus, naming no one', () => {
    const [finding] = lintPolicy(policy({ condition: 'true' }), context);
    expect(finding).toMatchObject({ rule: 'weak-allow', field: 'consensus', span: { offset: 0, length: 0 } });
    expect(finding!.message).toContain('allows every activity once whoever proposes it, with no other approval, while');
  });

  it('is silent when the consensus needs as many approvals as the root quorum, or the condition narrows it', () => {
    expect(lintPolicy(fromDraft(anyOfUsersTemplate([ROOT, BEA], 2)), context)).toEqual([]);
    expect(lintPolicy(fromDraft(anyOfUsersTemplate([ROOT, BEA], 1, SIGN)), context)).toEqual([]);
    expect(
      lintPolicy(policy({ consensus: 'approvers.any(user, user.id == root)'.replace('root', "'u-root'") }), {
        ...context,
        rootQuorum: { userIds: [ROOT.id], threshold: 1 },
      }),
    ).toEqual([]);
  });
});

describe('unknown-interface-name: an argument the uploaded interfaces do not have', () => {
  it('fires on the amout typo at the key, suggesting amount, in an allow and in a deny', () => {
    const condition = `${SIGN} && eth.tx.contract_call_args['amout'] > 1000`;
    for (const effect of ['EFFECT_ALLOW', 'EFFECT_DENY'] as const) {
      const found = lintPolicy(policy({ effect, condition, consensus: "approvers.any(user, user.id == 'u-bea')" }), context);
      expect(found).toEqual([
        expect.objectContaining({
          rule: 'unknown-interface-name',
          severity: 'warning',
          field: 'condition',
          suggestion: 'amount',
          span: expect.objectContaining({ offset: condition.indexOf("'amout'"), length: 7 }),
        }),
      ]);
      expect(found[0]!.message).toBe(
        "No uploaded ABI has an argument named 'amout' (did you mean 'amount'?), so no decoded call has it: reading it is an evaluation error, and the policy does not apply.",
      );
    }
  });

  it('reads IDL arguments and accounts inside any(), and stays silent on names that exist or when nothing is uploaded', () => {
    const idl: LintContext = { ...context, interfaces: [{ chain: 'solana', label: 'swap', arguments: ['amountIn'], accounts: ['userSource'] }] };
    const condition =
      "solana.tx.instructions.any(i, i.parsed_instruction_data.program_call_args['amountIm'] > 5 && i.parsed_instruction_data.named_accounts['userSource'] != '')";
    expect(lintPolicy(policy({ condition, consensus: 'approvers.count() >= 2' }), idl)).toEqual([
      expect.objectContaining({ rule: 'unknown-interface-name', suggestion: 'amountIn' }),
    ]);
    expect(lintPolicy(policy({ condition: "eth.tx.contract_call_args['amount'] > 5", consensus: 'approvers.count() >= 2' }), context)).toEqual([]);
    expect(
      lintPolicy(policy({ condition: "eth.tx.contract_call_args['amout'] > 5", consensus: 'approvers.count() >= 2' }), {
        ...context,
        interfaces: [],
      }),
    ).toEqual([]);
  });
});

describe('address-literal: an address that is not one, or fails its checksum', () => {
  const lint = (condition: string) => lintPolicy(policy({ condition, consensus: 'approvers.count() >= 2' }), context);

  it('refuses (error) what is not an address at all, Ethereum or Solana', () => {
    expect(lint("eth.tx.to == '0x1234'")).toEqual([
      expect.objectContaining({ rule: 'address-literal', severity: 'error', span: expect.objectContaining({ offset: 13, length: 8 }) }),
    ]);
    expect(lint("solana.tx.transfers.any(t, t.to == 'not-base58-0OIl')")[0]).toMatchObject({ rule: 'address-literal', severity: 'error' });
  });

  it('warns on mixed case that fails EIP-55, in a list too, and names the checksummed reading', () => {
    const miscased = TOKEN.replace('F869', 'f869');
    const [finding] = lint(`eth.tx.to in ['${TOKEN}', '${miscased}']`);
    expect(finding).toMatchObject({ rule: 'address-literal', severity: 'warning', suggestion: TOKEN });
    expect(finding!.message).toContain('fails its EIP-55 checksum');
  });

  it('is silent on checksummed and single-case addresses (they compare by value) and on a real Solana address', () => {
    expect(lint(`eth.tx.to == '${TOKEN}' || eth.tx.to == '${TOKEN.toLowerCase()}'`)).toEqual([]);
    expect(lint("solana.tx.transfers.any(t, t.to == '11111111111111111111111111111111')")).toEqual([]);
  });
});

describe('deny-never-matches: a deny reading a chain its activities never carry', () => {
  const condition = "activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2' && solana.tx.transfers.any(t, t.amount > 5)";

  it('fires at the read, with what history says', () => {
    const found = lintPolicy(policy({ policyId: 'p-1', effect: 'EFFECT_DENY', condition }), {
      ...context,
      recordedDenials: { activitiesRead: 200, denied: 0 },
    });
    expect(found).toEqual([
      expect.objectContaining({
        rule: 'deny-never-matches',
        span: expect.objectContaining({ offset: condition.indexOf('solana.tx'), length: 'solana.tx'.length }),
      }),
    ]);
    expect(found[0]!.message).toBe(
      'This deny reads solana.tx, which ETH_SEND_TRANSACTION activities never carry: reading it is an error there, so the deny never matches and denies nothing. None of the 200 most recent recorded activities was denied by it.',
    );
  });

  it('fires for signing narrowed to Ethereum transactions by activity.params.type', () => {
    const narrowed = `${SIGN} && activity.params.type == 'TRANSACTION_TYPE_ETHEREUM' && solana.tx.transfers.count() > 0`;
    expect(rules(lintPolicy(policy({ effect: 'EFFECT_DENY', condition: narrowed }), context))).toEqual(['deny-never-matches']);
  });

  it('is silent on a read inside a predicate, which an empty list never evaluates (all() over none holds)', () => {
    const inPredicate = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET' && wallets.all(w, solana.tx.transfers.count() == 0)";
    expect(lintPolicy(policy({ effect: 'EFFECT_DENY', condition: inPredicate }), context)).toEqual([]);
  });

  it('is silent on a read after the operand of || that may decide, which then is never read', () => {
    const eitherWay = "activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2' && (eth.tx.value > 5 || solana.tx.transfers.count() > 0)";
    expect(lintPolicy(policy({ effect: 'EFFECT_DENY', condition: eitherWay }), context)).toEqual([]);
    // Under a `!` a true `||` is the one whose every operand is read.
    const negated = "activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2' && !(eth.tx.value > 5 || solana.tx.transfers.count() > 0)";
    expect(rules(lintPolicy(policy({ effect: 'EFFECT_DENY', condition: negated }), context))).toEqual(['deny-never-matches']);
  });

  it('is silent once history shows it denied something, and when the chain can occur', () => {
    expect(
      lintPolicy(policy({ policyId: 'p-1', effect: 'EFFECT_DENY', condition }), { ...context, recordedDenials: { activitiesRead: 200, denied: 1 } }),
    ).toEqual([]);
    expect(lintPolicy(policy({ effect: 'EFFECT_DENY', condition: `${SIGN} && solana.tx.transfers.count() > 0` }), context)).toEqual([]);
  });
});

describe('constant-expression: parts always true or always false', () => {
  const lint = (condition: string) =>
    lintPolicy(policy({ condition, consensus: 'approvers.count() >= 2' }), context).filter((finding) => finding.rule === 'constant-expression');

  it('fires on 1 == 1, x != x, a > 5 && a < 3, and a true inside a disjunction', () => {
    expect(lint(`${SIGN} && 1 == 1`)[0]!.message).toBe("'1 == 1' reads nothing from the request and is always true: this part constrains nothing.");
    expect(lint('eth.tx.value != eth.tx.value')[0]!.message).toBe(
      "'eth.tx.value != eth.tx.value' compares a value with itself and is always false: the whole condition never holds, so this policy never applies.",
    );
    const contradictory = `${SIGN} && eth.tx.value > 5 && eth.tx.value < 3`;
    expect(lint(contradictory)).toEqual([
      expect.objectContaining({
        span: expect.objectContaining({ offset: 0, length: contradictory.length }),
        message: "'eth.tx.value > 5' and 'eth.tx.value < 3' can never all hold: the whole condition never holds, so this policy never applies.",
      }),
    ]);
    expect(lint(`${SIGN} || true`)).toEqual([expect.objectContaining({ span: expect.objectContaining({ offset: SIGN.length + 4, length: 4 }) })]);
    expect(lint("activity.type == 'a' && activity.type == 'b'")).toHaveLength(1);
  });

  it('is silent on a bare true or false, on ranges that can hold, and on one address in two cases', () => {
    expect(lint('false')).toEqual([]);
    expect(lint(`eth.tx.to == '${TOKEN}' && eth.tx.to == '${TOKEN.toLowerCase()}'`)).toEqual([]);
    expect(lint(`eth.tx.to == '${TOKEN}' && eth.tx.to != '${TOKEN.toLowerCase()}'`)).toHaveLength(1);
    expect(lint(`${SIGN} && eth.tx.value >= 3 && eth.tx.value <= 3`)).toEqual([]);
  });
});

describe('shadowed-by-deny: an allow a deny makes unreachable', () => {
  const denySigning = {
    policyId: 'p-deny',
    name: 'No signing',
    effect: 'EFFECT_DENY' as const,
    condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
    consensus: '',
    time: '',
  };
  const allow = policy({ condition: `${SIGN} && eth.tx.value < 5`, consensus: 'approvers.count() >= 2' });

  it('fires on the allow, and on the deny naming the allow', () => {
    expect(lintPolicy(allow, { ...context, policies: [denySigning] })).toEqual([
      expect.objectContaining({
        rule: 'shadowed-by-deny',
        field: 'condition',
        message: "The deny policy 'No signing' denies every activity this policy can allow, whoever approves, so this policy never allows anything.",
      }),
    ]);
    const saved = { ...allow, policyId: 'p-allow', name: 'Small transfers' };
    expect(lintPolicy(denySigning, { ...context, policies: [saved] })[0]!.message).toBe(
      "This deny denies every activity the allow policy 'Small transfers' can allow, so it never allows anything.",
    );
  });

  it('is silent when the deny needs consensus, has a time window, more than activity tests, or covers other types', () => {
    for (const deny of [
      { ...denySigning, consensus: 'approvers.count() >= 1' },
      { ...denySigning, time: "time.now < Timestamp('2030-01-01T00:00:00Z')" },
      { ...denySigning, condition: `${denySigning.condition} && eth.tx.value > 10` },
      { ...denySigning, condition: "activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2'" },
    ]) {
      expect(lintPolicy(allow, { ...context, policies: [deny] })).toEqual([]);
    }
  });
});

describe('silent on what ships and what the tests use', () => {
  const OPERATORS = { id: 'tag-ops', name: 'operators' };

  it('the shipped templates', () => {
    const templates = [
      anyOfUsersTemplate([ROOT, ANA], 2),
      anyWithTagTemplate(OPERATORS, 2),
      userMayExportWalletTemplate({ id: BEA.id, name: 'Bea' }, { id: 'w-1', name: 'Treasury' }),
      allowlistBelowTemplate([TOKEN.toLowerCase()], '1.5', OPERATORS),
      aboveNeedsTwoTemplate('10', OPERATORS),
      contractFunctionTemplate(TOKEN, 'transfer', OPERATORS),
      denyChainTemplate('1'),
    ];
    for (const template of templates) expect(lintPolicy(fromDraft(template), { ...context, policies: [] }), template.name).toEqual([]);
  });

  it.each(FIXTURE_POLICIES)('$source: $policy.condition | $policy.consensus', ({ policy: fixture, threshold }) => {
    const quorum = { userIds: [ROOT.id, ANA.id].slice(0, threshold), threshold };
    expect(lintPolicy(fixture, { ...context, rootQuorum: quorum })).toEqual([]);
  });

  it('except the one that is the operator case itself (main-services/approvals-policies.test.ts): allow all, no approval, under 2 of 3', () => {
    const needsTwo = { name: 'needs two', effect: 'EFFECT_ALLOW' as const, condition: 'true', consensus: 'true', time: '' };
    expect(rules(lintPolicy(needsTwo, context))).toEqual(['weak-allow']);
  });
});

const BOB = '66666666-7777-4888-8999-aaaaaaaaaaaa';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const allow = (condition: string, consensus = '', time = '') => ({ name: 'fixture', effect: 'EFFECT_ALLOW' as const, condition, consensus, time });
const deny = (condition: string, consensus = '', time = '') => ({ name: 'fixture', effect: 'EFFECT_DENY' as const, condition, consensus, time });
const byBob = `approvers.any(user, user.id == '${BOB}')`;

/**
 * The policies the tests create (`grep -rn "condition\|consensus" test/`), each `${…}` filled with an id of the same
 * kind, under the root quorum threshold its test runs with. Expressions written to be refused (`activity.typ ==`,
 * `eth.tx.bogus_field`, a consensus reading `time`) are left out: they do not check, so the linter says nothing.
 */
const FIXTURE_POLICIES: { source: string; threshold: number; policy: LintPolicy }[] = [
  { source: 'fixtures/seeds/two-of-two.yaml', threshold: 2, policy: allow("activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'", byBob) },
  { source: 'support/valid-inputs.ts', threshold: 1, policy: allow('true', 'true') },
  { source: 'main-services/client.test.ts', threshold: 1, policy: allow('true', 'true') },
  { source: 'main-services/approvals-policies.test.ts', threshold: 2, policy: deny('true') },
  {
    source: 'main-services/approvals-policies.test.ts',
    threshold: 1,
    policy: allow('true', '', "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')"),
  },
  { source: 'main-services/approvals-policies.test.ts', threshold: 1, policy: allow('true', '', "time.now < Timestamp('2027-01-01T00:00:00Z')") },
  {
    source: 'main-services/approvals-policies.test.ts',
    threshold: 1,
    policy: allow("activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'", 'approvers.count() >= 2'),
  },
  { source: 'compat/organization-admin.test.ts', threshold: 1, policy: allow('true', byBob) },
  { source: 'compat/organization-admin.test.ts', threshold: 1, policy: allow("activity.resource == 'INVITATION'") },
  { source: 'compat/send-transaction.test.ts', threshold: 1, policy: allow("activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2'", byBob) },
  {
    source: 'compat/send-transaction.test.ts',
    threshold: 1,
    policy: deny("activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2' && eth.tx.to == '0x000000000000000000000000000000000000dEaD'"),
  },
  { source: 'compat/older-signers.test.ts', threshold: 1, policy: allow("activity.action == 'SIGN'", byBob) },
  { source: 'compat/older-signers.test.ts', threshold: 1, policy: deny('eth.tx.value > 1000000000000000000', byBob) },
  { source: 'compat/older-signers.test.ts', threshold: 1, policy: deny("activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS'", byBob) },
  { source: 'compat/everyday-operations.test.ts', threshold: 1, policy: allow("activity.action == 'UPDATE' && wallet.id == 'w-1'", byBob) },
  { source: 'compat/everyday-operations.test.ts', threshold: 1, policy: deny('false') },
  { source: 'compat/everyday-operations.test.ts', threshold: 1, policy: deny('false', '', "time.now >= Timestamp('2026-11-25T00:00:00Z')") },
  { source: 'compat/everyday-operations.test.ts', threshold: 1, policy: allow("private_key.tags.contains('tag-keys')") },
  { source: 'compat/everyday-operations.test.ts', threshold: 1, policy: allow("activity.type == 'ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION'") },
  { source: 'compat/everyday-operations.test.ts', threshold: 1, policy: allow("activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'", byBob) },
  { source: 'service/consensus.test.ts', threshold: 1, policy: allow("activity.resource == 'POLICY'", byBob) },
  { source: 'service/consensus.test.ts', threshold: 1, policy: deny("activity.action == 'DELETE'") },
  {
    source: 'service/consensus.test.ts',
    threshold: 1,
    policy: allow("activity.type == 'ACTIVITY_TYPE_UPDATE_USER_NAME' && user.tags.contains('tag-ops')", byBob),
  },
  {
    source: 'service/consensus.test.ts',
    threshold: 1,
    policy: allow("activity.resource == 'POLICY'", "approvers.filter(user, user.tags.contains('tag-ops')).count() >= 2"),
  },
  {
    source: 'service/consensus.test.ts',
    threshold: 1,
    policy: allow(
      "activity.type == 'ACTIVITY_TYPE_CREATE_POLICY_V3'",
      "approvers.any(u, u.id == 'u-ana') && credentials.filter(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR').any(c, c.credential_id == 'cred-1')",
    ),
  },
  {
    source: 'service/identity/own-credentials.test.ts',
    threshold: 1,
    policy: deny("activity.resource == 'CREDENTIAL' && activity.action == 'CREATE'"),
  },
  { source: 'service/older-versions.test.ts', threshold: 1, policy: allow("activity.type == 'ACTIVITY_TYPE_CREATE_API_KEYS'", 'true') },
  { source: 'service/policy-time.test.ts', threshold: 1, policy: allow("activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'", byBob) },
  { source: 'service/proxy/parent-oauth-login.test.ts', threshold: 1, policy: allow("activity.type == 'ACTIVITY_TYPE_OAUTH_LOGIN'", 'true') },
  { source: 'service/signing/policies.test.ts', threshold: 1, policy: allow(`eth.tx.to == '${TOKEN}'`, byBob) },
  { source: 'service/signing/policies.test.ts', threshold: 1, policy: deny("eth.tx.to == '0xabababababababababababababababababababab'") },
  {
    source: 'main/policy-standing.test.ts',
    threshold: 1,
    policy: allow('eth.tx.value > 1000000000000000000', "approvers.filter(user, user.tags.contains('tag-ops')).count() >= 2"),
  },
  { source: 'main/policy-standing.test.ts', threshold: 1, policy: allow('true', "approvers.any(user, user.id == 'carol')") },
  {
    source: 'main/policy-standing.test.ts',
    threshold: 1,
    policy: allow('true', "credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')"),
  },
  {
    source: 'main/policy-standing.test.ts',
    threshold: 1,
    policy: allow('true', "approvers.any(user, user.id == 'bob') && !approvers.any(user, user.alias == 'tag-ops')"),
  },
  { source: 'main/policy-standing.test.ts', threshold: 1, policy: deny('eth.tx.chain_id == 1') },
  { source: 'main/policy-standing.test.ts', threshold: 1, policy: deny('true', 'approvers.count() >= 2') },
  { source: 'main/policy-standing.test.ts', threshold: 1, policy: allow('true', '', "CronSpan('0 0 * * 6', '48h', 'UTC')") },
  { source: 'main/policy-standing.test.ts', threshold: 1, policy: allow('eth.tx.chain_id == 11155111') },
  { source: 'main/policy-standing.test.ts', threshold: 1, policy: allow('solana.tx.transfers.count() > 0') },
  { source: 'unit/policy/rehearsal.test.ts', threshold: 1, policy: allow("activity.action == 'SIGN' && eth.tx.value <= 1000", 'true') },
  {
    source: 'unit/policy/rehearsal.test.ts',
    threshold: 1,
    policy: allow("activity.resource == 'WALLET' && activity.action != 'SIGN'", "approvers.any(user, user.tags.contains('ops'))"),
  },
  { source: 'unit/policy/rehearsal.test.ts', threshold: 1, policy: allow("activity.resource == 'USER'", 'approvers.count() >= 2') },
  {
    source: 'unit/policy/rehearsal.test.ts',
    threshold: 1,
    policy: deny("activity.resource == 'PRIVATE_KEY' && activity.action == 'EXPORT'", 'true'),
  },
  {
    source: 'unit/policy/rehearsal.test.ts',
    threshold: 1,
    policy: allow("activity.action == 'SIGN' && eth.tx.value > 100", 'approvers.count() >= 2'),
  },
  { source: 'unit/policy/rehearsal.test.ts', threshold: 1, policy: deny("activity.resource == 'POLICY'", 'true') },
  {
    source: 'bench/policies.ts',
    threshold: 1,
    policy: allow("activity.action == 'SIGN' && eth.tx.value <= 1000 && eth.tx.chain_id == 1", "approvers.any(user, user.tags.contains('ops'))"),
  },
  {
    source: 'bench/policies.ts',
    threshold: 1,
    policy: allow("activity.resource in ['WALLET', 'POLICY', 'USER'] && activity.action != 'SIGN'", 'approvers.count() >= 1'),
  },
  { source: 'e2e/accessibility.spec.ts', threshold: 1, policy: allow("activity.resource == 'WALLET'", 'approvers.count() >= 1') },
  {
    source: 'e2e/confirmation.spec.ts',
    threshold: 1,
    policy: allow(
      `eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] <= 1000000000`,
      "approvers.any(user, user.tags.contains('tag-ops'))",
    ),
  },
];
