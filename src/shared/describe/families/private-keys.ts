/** Private keys: created and deleted. */
import type { Describer, Describers } from '../draft';
import { deleteSecrets, plain, records, text, texts } from '../pieces';
import { addressFormatInWords, counted, curveInWords } from '../words';

const createPrivateKeys: Describer = (fields, draft) => {
  const keys = records(fields, 'privateKeys');
  draft.title = `Create ${counted(keys.length, 'private key')}`;
  for (const key of keys) {
    const name = text(key, 'privateKeyName') ?? 'unnamed key';
    draft.change(
      `Private key ${name}`,
      [],
      [plain(`${curveInWords(text(key, 'curve') ?? '')}: ${texts(key, 'addressFormats').map(addressFormatInWords).join(', ') || 'no addresses'}`)],
    );
    const tags = texts(key, 'privateKeyTags').map((tagId) => draft.names.tag(tagId));
    if (tags.length > 0) draft.change(`${name}: tags`, [], tags);
  }
  draft.summary = keys.map((key) => text(key, 'privateKeyName') ?? 'unnamed').join(', ');
};

const deletePrivateKeys: Describer = (fields, draft) => {
  const keyIds = texts(fields, 'privateKeyIds');
  draft.title = `Delete ${counted(keyIds.length, 'private key')}`;
  deleteSecrets(
    draft,
    'private key',
    keyIds.map((keyId) => ({ ref: draft.names.privateKey(keyId), exported: draft.names.findPrivateKey(keyId)?.exported })),
    fields,
  );
  draft.summary = keyIds.map((keyId) => draft.names.privateKey(keyId).text).join(', ');
};

export const privateKeyDescribers = {
  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2: createPrivateKeys,
  ACTIVITY_TYPE_DELETE_PRIVATE_KEYS: deletePrivateKeys,
} satisfies Describers;
