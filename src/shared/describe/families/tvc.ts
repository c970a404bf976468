/** TVC apps. */
import type { Describer, Describers } from '../draft';
import { code, deleteById, plain, record, records, text } from '../pieces';

const createTvcApp: Describer = (fields, draft) => {
  const name = text(fields, 'name') ?? 'unnamed';
  draft.title = 'Create a TVC app';
  draft.change('App', [], [plain(name)]);
  draft.fact('Quorum public key', code(text(fields, 'quorumPublicKey') ?? ''));
  for (const [field, label] of [
    ['manifestSetParams', 'Manifest set'],
    ['shareSetParams', 'Share set'],
  ] as const) {
    const set = record(fields, field);
    if (set !== undefined)
      draft.change(
        label,
        [],
        [plain(text(set, 'name') ?? 'unnamed'), ...records(set, 'newOperators').map((operator) => plain(text(operator, 'name') ?? 'operator'))],
      );
  }
  if (fields['enableDebugModeDeployments'] === true)
    draft.warn('Debug-mode deployments are allowed: their secrets are not protected by the enclave.');
  draft.summary = name;
};

export const tvcDescribers = {
  ACTIVITY_TYPE_CREATE_TVC_APP: createTvcApp,
  ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS: deleteById('Delete a TVC app and its deployments', 'TVC app', 'appId'),
} satisfies Describers;
