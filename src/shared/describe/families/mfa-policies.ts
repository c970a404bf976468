/** MFA policies: the authenticators a user's matching activities wait for, created, changed and deleted. */
import type { Describer, Describers, Draft, Fields } from '../draft';
import { code, plain, records, text } from '../pieces';
import type { Ref } from '../types';
import { possessive } from '../words';

/** `AUTHENTICATION_TYPE_EMAIL_OTP` → `email OTP`, and the credential a method names, when it names one. */
function methodInWords(method: Fields): string {
  const type = (text(method, 'type') ?? '').replace(/^AUTHENTICATION_TYPE_/, '');
  const words: Record<string, string> = {
    EMAIL_OTP: 'email OTP',
    SMS_OTP: 'SMS OTP',
    PASSKEY: 'passkey',
    API_KEY: 'API key',
    OAUTH: 'OAuth',
    SESSION: 'session',
  };
  const id = text(method, 'id');
  return `${words[type] ?? type}${id === undefined ? '' : ` ${id}`}`;
}

/** One line per step: its methods joined by "or", since any one of them meets it. */
function stepsInWords(steps: readonly Fields[]): Ref[] {
  return steps.map((step, index) => plain(`${index + 1}. ${records(step, 'any').map(methodInWords).join(' or ')}`));
}

/** `order` is an int64: a decimal string on the wire, a number from some clients. */
function orderOf(fields: Fields): string | undefined {
  const order = fields['order'];
  return typeof order === 'string' || typeof order === 'number' ? String(order) : undefined;
}

function warnIfEveryActivity(draft: Draft, condition: string, userRef: Ref): void {
  if (condition.trim() === 'true') draft.warn(`Every activity of ${userRef.text} will wait for these authenticators, also deleting this MFA policy.`);
}

const createMfaPolicy: Describer = (fields, draft) => {
  const userId = text(fields, 'userId') ?? '';
  const user = draft.names.user(userId);
  const condition = text(fields, 'condition') ?? '';
  draft.title = 'Require authenticators (MFA)';
  draft.fact('User', user);
  draft.change('Name', [], [plain(text(fields, 'mfaPolicyName') ?? 'unnamed')]);
  draft.change('When', [], [draft.policyExpression(condition, 'condition', 'every activity')]);
  draft.change('Authenticators, every step', [], stepsInWords(records(fields, 'requiredAuthenticationMethods')));
  draft.change('Order', [], [plain(orderOf(fields) ?? 'none')]);
  warnIfEveryActivity(draft, condition, user);
  draft.summary = `${user.text}: ${text(fields, 'mfaPolicyName') ?? 'unnamed'}`;
};

const updateMfaPolicy: Describer = (fields, draft) => {
  const userId = text(fields, 'userId') ?? '';
  const user = draft.names.user(userId);
  draft.title = 'Change an MFA policy';
  draft.fact('User', user);
  draft.fact('MFA policy', code(text(fields, 'mfaPolicyId') ?? ''));
  const name = text(fields, 'mfaPolicyName');
  if (name !== undefined) draft.change('Name', undefined, [plain(name)]);
  const condition = text(fields, 'condition');
  if (condition !== undefined) draft.change('When', undefined, [draft.policyExpression(condition, 'condition', 'every activity')]);
  const steps = fields['requiredAuthenticationMethods'];
  if (Array.isArray(steps)) draft.change('Authenticators, every step', undefined, stepsInWords(records(fields, 'requiredAuthenticationMethods')));
  const order = orderOf(fields);
  if (order !== undefined) draft.change('Order', undefined, [plain(order)]);
  if (condition !== undefined) warnIfEveryActivity(draft, condition, user);
  draft.summary = `${user.text}: ${draft.changes.map((change) => change.label.toLowerCase()).join(', ') || 'no change'}`;
};

const deleteMfaPolicy: Describer = (fields, draft) => {
  const userId = text(fields, 'userId') ?? '';
  const user = draft.names.user(userId);
  draft.title = 'Delete an MFA policy';
  draft.fact('User', user);
  draft.deletions.push({ what: code(text(fields, 'mfaPolicyId') ?? ''), kind: 'MFA policy' });
  draft.warn(`${possessive(user.text)} activities this policy matched will no longer wait for its authenticators.`);
  draft.summary = user.text;
};

export const mfaPolicyDescribers = {
  ACTIVITY_TYPE_CREATE_MFA_POLICY: createMfaPolicy,
  ACTIVITY_TYPE_UPDATE_MFA_POLICY: updateMfaPolicy,
  ACTIVITY_TYPE_DELETE_MFA_POLICY: deleteMfaPolicy,
} satisfies Describers;
