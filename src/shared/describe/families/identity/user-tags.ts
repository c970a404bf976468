/** User tags. */
import type { Describer, Describers } from '../../draft';
import { plain, refs, text, texts } from '../../pieces';
import { counted } from '../../words';

const createUserTag: Describer = (fields, draft) => {
  const tagName = text(fields, 'userTagName') ?? 'unnamed tag';
  draft.title = 'Create a user tag';
  draft.change('Tag', [], [plain(tagName)]);
  for (const userId of texts(fields, 'userIds')) {
    const before = draft.beforeFrom(draft.names.findUser(userId))?.userTags.map((tagId) => draft.names.tag(tagId));
    draft.change(`${draft.names.user(userId).text}: tags`, before, [...(before ?? []), plain(tagName)]);
  }
  draft.summary = tagName;
};

const deleteUserTags: Describer = (fields, draft) => {
  const tagIds = texts(fields, 'userTagIds');
  draft.title = `Delete ${counted(tagIds.length, 'user tag')}`;
  for (const tagId of tagIds) draft.deletions.push({ what: draft.names.tag(tagId), kind: 'user tag' });
  for (const user of draft.lookup.users ?? []) {
    if (!user.userTags.some((tagId) => tagIds.includes(tagId))) continue;
    draft.change(
      `${user.userName}: tags`,
      user.userTags.map((tagId) => draft.names.tag(tagId)),
      user.userTags.filter((tagId) => !tagIds.includes(tagId)).map((tagId) => draft.names.tag(tagId)),
    );
  }
  draft.fact('Note', plain('policies that name these tags stop matching anyone'));
  draft.summary = tagIds.map((tagId) => draft.names.tag(tagId).text).join(', ');
};

const updateUserTag: Describer = (fields, draft) => {
  const tagId = text(fields, 'userTagId') ?? '';
  draft.title = 'Change a user tag';
  const name = text(fields, 'newUserTagName');
  if (name !== undefined) draft.change('Name', [draft.names.tag(tagId)], [plain(name)]);
  draft.fact('Users added', ...refs(texts(fields, 'addUserIds'), (userId) => draft.names.user(userId)));
  draft.fact('Users removed', ...refs(texts(fields, 'removeUserIds'), (userId) => draft.names.user(userId)));
  draft.summary = draft.names.tag(tagId).text;
};

export const userTagDescribers = {
  ACTIVITY_TYPE_CREATE_USER_TAG: createUserTag,
  ACTIVITY_TYPE_UPDATE_USER_TAG: updateUserTag,
  ACTIVITY_TYPE_DELETE_USER_TAGS: deleteUserTags,
} satisfies Describers;
