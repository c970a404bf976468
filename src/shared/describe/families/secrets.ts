/** Secrets: preparing targets to import them, importing them (sealed in the enclave), and exporting them. */
import type { Describer, Describers, Fields } from '../draft';
import { code, exportTarget, plain, records, text } from '../pieces';
import { counted } from '../words';

/** `name = value` of each static property, which policies can read for the life of the secret. */
function staticProperties(fields: Fields) {
  return records(fields, 'staticProperties').map((property) => code(`${text(property, 'key') ?? ''} = ${text(property, 'value') ?? ''}`));
}

const initImportSecrets: Describer = (fields, draft) => {
  const count = typeof fields.numSecrets === 'number' ? fields.numSecrets : 0;
  draft.title = 'Prepare to import secrets';
  draft.fact('What happens', plain(`the service makes ${counted(count, 'one-time key')} that secrets will be encrypted to`));
  draft.summary = counted(count, 'secret');
};

const importSecrets: Describer = (fields, draft) => {
  const secrets = records(fields, 'secrets');
  draft.title = 'Import secrets';
  draft.change(
    'Secrets',
    [],
    secrets.map((secret) => plain(text(secret, 'name') ?? 'unnamed secret')),
  );
  secrets.forEach((secret, index) => {
    const properties = staticProperties(secret);
    if (properties.length > 0) draft.fact(`Secret ${index + 1} properties`, ...properties);
  });
  draft.summary = counted(secrets.length, 'secret');
};

const exportSecrets: Describer = (fields, draft) => {
  const secrets = records(fields, 'secrets');
  const targets = [...new Set(secrets.map((secret) => text(secret, 'targetPublicKey') ?? ''))];
  draft.title = 'Export secrets';
  draft.exports = {
    what: secrets.map((secret) => code(text(secret, 'secretId') ?? '')),
    target: exportTarget(draft, targets[0] ?? ''),
  };
  if (targets.length > 1) draft.warn(`The secrets are sealed to ${targets.length} different keys; only the first is shown.`);
  draft.summary = `${counted(secrets.length, 'secret')} to ${draft.exports.target.localKeyName ?? 'an unknown key'}`;
};

export const secretDescribers = {
  ACTIVITY_TYPE_INIT_IMPORT_SECRETS: initImportSecrets,
  ACTIVITY_TYPE_IMPORT_SECRETS: importSecrets,
  ACTIVITY_TYPE_EXPORT_SECRETS: exportSecrets,
} satisfies Describers;
