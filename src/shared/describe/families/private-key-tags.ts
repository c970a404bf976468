/** Private key tags. */
import type { Describer, Describers } from '../draft';
import { code, plain, refs, text, texts } from '../pieces';
import { counted } from '../words';

const deletePrivateKeyTags: Describer = (fields, draft) => {
  const tagIds = texts(fields, 'privateKeyTagIds');
  draft.title = `Delete ${counted(tagIds.length, 'private key tag')}`;
  for (const tagId of tagIds) draft.deletions.push({ what: code(tagId), kind: 'private key tag' });
};

const createPrivateKeyTag: Describer = (fields, draft) => {
  const name = text(fields, 'privateKeyTagName') ?? 'unnamed tag';
  draft.title = 'Create a private key tag';
  draft.change('Tag', [], [plain(name)]);
  draft.fact('Keys', ...refs(texts(fields, 'privateKeyIds'), (privateKeyId) => draft.names.privateKey(privateKeyId)));
  draft.summary = name;
};

const updatePrivateKeyTag: Describer = (fields, draft) => {
  draft.title = 'Change a private key tag';
  const name = text(fields, 'newPrivateKeyTagName');
  if (name !== undefined) draft.change('Name', undefined, [plain(name)]);
  draft.fact('Keys added', ...refs(texts(fields, 'addPrivateKeyIds'), (privateKeyId) => draft.names.privateKey(privateKeyId)));
  draft.fact('Keys removed', ...refs(texts(fields, 'removePrivateKeyIds'), (privateKeyId) => draft.names.privateKey(privateKeyId)));
};

export const privateKeyTagDescribers = {
  ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG: createPrivateKeyTag,
  ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG: updatePrivateKeyTag,
  ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS: deletePrivateKeyTags,
} satisfies Describers;
