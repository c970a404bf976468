/** IP allowlists of the organization and of single API keys. */
import type { Describer, Describers } from '../draft';
import { code, plain, records, text } from '../pieces';

const setIpAllowlist: Describer = (fields, draft) => {
  const publicKey = text(fields, 'publicKey');
  draft.title = publicKey === undefined ? 'Set the organization’s IP allowlist' : 'Set an API key’s IP allowlist';
  if (publicKey !== undefined) draft.fact('API key', code(publicKey));
  const rules = records(fields, 'rules');
  if (rules.length > 0) {
    draft.change(
      'Allowed addresses',
      undefined,
      rules.map((rule) =>
        plain(text(rule, 'label') === undefined ? (text(rule, 'cidr') ?? '') : `${text(rule, 'cidr') ?? ''} (${text(rule, 'label')})`),
      ),
    );
  }
  const enabled = fields['enabled'];
  if (typeof enabled === 'boolean') draft.change('Enforced', undefined, [plain(enabled ? 'yes' : 'no')]);
  const onError = text(fields, 'onEvaluationError');
  if (onError !== undefined) draft.fact('When an address cannot be checked', plain(onError === 'ALLOW' ? 'allow' : 'refuse'));
  if (publicKey === undefined && enabled !== false)
    draft.warn('Requests from addresses outside the allowlist will be refused, including this app’s if it is not inside it.');
};

const removeIpAllowlist: Describer = (fields, draft) => {
  const publicKey = text(fields, 'publicKey');
  draft.title = publicKey === undefined ? 'Remove the organization’s IP allowlist' : 'Remove an API key’s IP allowlist';
  draft.deletions.push({ what: code(publicKey ?? 'organization'), kind: 'IP allowlist' });
};

export const ipAllowlistDescribers = {
  ACTIVITY_TYPE_SET_IP_ALLOWLIST: setIpAllowlist,
  ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST: removeIpAllowlist,
} satisfies Describers;
