import { describe, expect, it } from 'vitest';
import { checkPolicyExpression, evaluatePolicyExpression } from '../../../src/shared/policy';
import {
  anotherApproverTemplate,
  anyOfUsersTemplate,
  anyWithTagTemplate,
  userMayExportWalletTemplate,
} from '../../../src/renderer/src/policy/templates';

const approver = (id: string, tags: string[] = []) => ({ id, tags, email: '', alias: '' });

describe('policy templates chosen by name', () => {
  it('put ids in the expressions and names in the policy name and notes', () => {
    const draft = anyOfUsersTemplate(
      [
        { id: "u-'1", name: 'Ann' },
        { id: 'u-2', name: 'Bo' },
      ],
      2,
    );
    expect(draft.name).toBe('Any 2 of Ann, Bo');
    expect(draft.notes).toBe(
      'Allows what the condition selects once 2 of these users approve: Ann, Bo. ' +
        'The proposer’s own approval counts: one of them who proposes it is one of those approvals already.',
    );
    expect(draft.consensus).toBe("approvers.filter(user, user.id == 'u-\\'1' || user.id == 'u-2').count() >= 2");
    expect(checkPolicyExpression(draft.consensus, 'consensus').ok).toBe(true);
  });

  it('a tag template counts approvers carrying the tag id', () => {
    const draft = anyWithTagTemplate({ id: 'tag-ops', name: 'operators' }, 2);
    expect(draft.notes).toContain('tagged operators');
    const evaluate = (approvers: ReturnType<typeof approver>[]) => evaluatePolicyExpression(draft.consensus, 'consensus', { approvers });
    expect(evaluate([approver('a', ['tag-ops']), approver('b')])).toEqual({ ok: true, value: false });
    expect(evaluate([approver('a', ['tag-ops']), approver('b', ['tag-ops'])])).toEqual({ ok: true, value: true });
  });

  it('one approver other than the proposer: two approvals, the proposer’s and another user’s', () => {
    const draft = anotherApproverTemplate("activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'");
    expect(draft).toMatchObject({ name: 'One approver other than the proposer', effect: 'EFFECT_ALLOW', consensus: 'approvers.count() >= 2' });
    const evaluate = (approvers: ReturnType<typeof approver>[]) => evaluatePolicyExpression(draft.consensus, 'consensus', { approvers });
    expect(evaluate([approver('proposer')])).toEqual({ ok: true, value: false });
    expect(evaluate([approver('proposer'), approver('other')])).toEqual({ ok: true, value: true });
  });

  it('lets one user export one wallet, by name for people', () => {
    const draft = userMayExportWalletTemplate({ id: 'u-1', name: 'Ann' }, { id: 'w-1', name: 'treasury' });
    expect(draft.name).toBe('Ann may export treasury');
    expect(checkPolicyExpression(draft.condition, 'condition').ok).toBe(true);
    expect(checkPolicyExpression(draft.consensus, 'consensus').ok).toBe(true);
  });
});
