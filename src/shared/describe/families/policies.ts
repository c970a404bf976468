/** Policies: created, changed and deleted, with the warnings a policy that allows everything or a lifted deny deserve. */
import type { Describer, Describers, Draft, Fields } from '../draft';
import { EVERYTHING, plain, records, text, texts } from '../pieces';
import type { Ref } from '../types';
import { counted, effectInWords } from '../words';

/**
 * A new policy's fields as changes from nothing, and the warning when it allows every activity. With several
 * policies in one activity each label starts with its policy's name.
 */
function newPolicy(draft: Draft, policy: Fields, several: boolean): void {
  const name = text(policy, 'policyName') ?? 'unnamed policy';
  const effect = text(policy, 'effect') ?? '';
  const condition = text(policy, 'condition') ?? '';
  const consensus = text(policy, 'consensus') ?? '';
  const label = (field: string) => (several ? `${name}: ${field.toLowerCase()}` : field);
  draft.change(several ? `Policy ${name}` : 'Name', [], [plain(name)]);
  draft.change(label('Effect'), [], [plain(effectInWords(effect))]);
  draft.change(label('Condition'), [], [draft.policyExpression(condition, 'condition', 'every activity (no condition)')]);
  draft.change(label('Consensus'), [], [draft.policyExpression(consensus, 'consensus', 'no votes needed beyond the requester')]);
  const time = text(policy, 'time');
  if (time !== undefined && time !== '') draft.change(label('Active when'), [], [draft.policyExpression(time, 'time', 'always')]);
  const notes = text(policy, 'notes');
  if (notes !== undefined && notes !== '') draft.change(label('Notes'), [], [plain(notes)]);
  warnIfAllowsEverything(draft, name, effect, condition, consensus);
}

function warnIfAllowsEverything(draft: Draft, name: string, effect: string, condition: string, consensus: string): void {
  if (effect !== 'EFFECT_ALLOW' || !EVERYTHING.has(condition.trim())) return;
  draft.warn(
    EVERYTHING.has(consensus.trim())
      ? `Policy ${name} allows every activity to every user, with no approval from anyone else.`
      : `Policy ${name} allows every activity once its consensus is met; it has no condition limiting what.`,
  );
}

const createPolicy: Describer = (fields, draft) => {
  draft.title = 'Create a policy';
  newPolicy(draft, fields, false);
  draft.summary = `${text(fields, 'policyName') ?? 'Unnamed'}: ${effectInWords(text(fields, 'effect') ?? '')}`;
};

const createPolicies: Describer = (fields, draft) => {
  const policies = records(fields, 'policies');
  draft.title = `Create ${counted(policies.length, 'policy', 'policies')}`;
  for (const policy of policies) newPolicy(draft, policy, true);
  draft.summary = policies.map((policy) => text(policy, 'policyName') ?? 'unnamed').join(', ');
};

const UPDATABLE_POLICY_FIELDS: readonly [
  intentField: string,
  label: string,
  stored: 'policyName' | 'effect' | 'condition' | 'consensus' | 'notes' | 'time',
][] = [
  ['policyName', 'Name', 'policyName'],
  ['policyEffect', 'Effect', 'effect'],
  ['policyCondition', 'Condition', 'condition'],
  ['policyConsensus', 'Consensus', 'consensus'],
  ['policyNotes', 'Notes', 'notes'],
  ['time', 'Active when', 'time'],
];

const updatePolicy: Describer = (fields, draft) => {
  const policyId = text(fields, 'policyId') ?? '';
  const stored = draft.beforeFrom(draft.names.findPolicy(policyId));
  const name = draft.names.policy(policyId);
  draft.title = 'Change a policy';
  draft.fact('Policy', name);
  const shown = (field: (typeof UPDATABLE_POLICY_FIELDS)[number][2], value: string): Ref =>
    field === 'effect'
      ? plain(effectInWords(value))
      : field === 'policyName' || field === 'notes'
        ? plain(value === '' ? 'none' : value)
        : draft.policyExpression(value, field, 'none');
  for (const [intentField, label, storedField] of UPDATABLE_POLICY_FIELDS) {
    const after = text(fields, intentField);
    if (after === undefined) continue;
    const before = stored?.[storedField] ?? (stored === undefined ? undefined : '');
    if (before === after) continue;
    draft.change(label, before === undefined ? undefined : [shown(storedField, before)], [shown(storedField, after)]);
  }
  if (draft.changes.length === 0 && stored !== undefined) draft.fact('Changes', plain('none: every field given equals the stored policy'));
  const effect = text(fields, 'policyEffect') ?? stored?.effect ?? '';
  const condition = text(fields, 'policyCondition') ?? stored?.condition;
  const consensus = text(fields, 'policyConsensus') ?? stored?.consensus ?? '';
  if (condition !== undefined) warnIfAllowsEverything(draft, name.text, effect, condition, consensus);
  draft.summary = `${name.text}: ${draft.changes.map((change) => change.label.toLowerCase()).join(', ') || 'no change'}`;
};

const deletePolicy: Describer = (fields, draft) => {
  const policyId = text(fields, 'policyId') ?? '';
  const stored = draft.names.findPolicy(policyId);
  draft.title = 'Delete a policy';
  draft.deletions.push({ what: draft.names.policy(policyId), kind: 'policy' });
  if (stored !== undefined) {
    draft.fact('Its effect', plain(effectInWords(stored.effect)));
    draft.fact('Its condition', draft.policyExpression(stored.condition, 'condition', 'every activity (no condition)'));
    draft.fact('Its consensus', draft.policyExpression(stored.consensus, 'consensus', 'no votes needed beyond the requester'));
    if (stored.effect === 'EFFECT_DENY') draft.warn(`Deleting ${stored.policyName} lifts a deny: what it blocked may become allowed.`);
  }
  draft.summary = draft.names.policy(policyId).text;
};

const deletePolicies: Describer = (fields, draft) => {
  const policyIds = texts(fields, 'policyIds');
  draft.title = `Delete ${counted(policyIds.length, 'policy')}`;
  for (const policyId of policyIds) draft.deletions.push({ what: draft.names.policy(policyId), kind: 'policy' });
  for (const policyId of policyIds) {
    const stored = draft.names.findPolicy(policyId);
    if (stored?.effect === 'EFFECT_DENY') draft.warn(`Deleting ${stored.policyName} lifts a deny: what it blocked may become allowed.`);
  }
  draft.summary = policyIds.map((policyId) => draft.names.policy(policyId).text).join(', ');
};

export const policyDescribers = {
  ACTIVITY_TYPE_CREATE_POLICY_V3: createPolicy,
  ACTIVITY_TYPE_CREATE_POLICIES: createPolicies,
  ACTIVITY_TYPE_UPDATE_POLICY_V2: updatePolicy,
  ACTIVITY_TYPE_DELETE_POLICY: deletePolicy,
  ACTIVITY_TYPE_DELETE_POLICIES: deletePolicies,
} satisfies Describers;
