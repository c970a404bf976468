/** Users: created, changed and deleted, with what their quorum membership and credentials mean. */
import type { Describer, Describers, Draft, Fields } from '../../draft';
import { plain, records, refs, text, texts } from '../../pieces';
import { counted } from '../../words';

function newUser(draft: Draft, user: Fields): void {
  const name = text(user, 'userName') ?? 'unnamed user';
  const apiKeys = records(user, 'apiKeys').map((key) => plain(text(key, 'apiKeyName') ?? 'unnamed API key'));
  const authenticators = records(user, 'authenticators').map((item) => plain(text(item, 'authenticatorName') ?? 'unnamed authenticator'));
  const providers = records(user, 'oauthProviders').map((item) => plain(text(item, 'providerName') ?? 'unnamed OAuth provider'));
  const tags = refs(texts(user, 'userTags'), (tagId) => draft.names.tag(tagId));
  draft.change(`User ${name}`, [], [plain(name)]);
  if (tags.length > 0) draft.change(`${name}: tags`, [], tags);
  if (apiKeys.length > 0) draft.change(`${name}: API keys`, [], apiKeys);
  if (authenticators.length > 0) draft.change(`${name}: authenticators`, [], authenticators);
  if (providers.length > 0) draft.change(`${name}: OAuth providers`, [], providers);
  const email = text(user, 'userEmail');
  if (email !== undefined && email !== '') draft.fact(`${name}: email`, plain(email));
  if (apiKeys.length + authenticators.length + providers.length === 0) {
    draft.warn(`${name} gets no credential: they cannot sign in or approve until one is added.`);
  }
}

const createUsers: Describer = (fields, draft) => {
  const users = records(fields, 'users');
  draft.title = `Create ${counted(users.length, 'user')}`;
  for (const user of users) newUser(draft, user);
  draft.summary = users.map((user) => text(user, 'userName') ?? 'unnamed').join(', ');
};

const updateUser: Describer = (fields, draft) => {
  const userId = text(fields, 'userId') ?? '';
  const user = draft.beforeFrom(draft.names.findUser(userId));
  draft.title = 'Change a user';
  draft.fact('User', draft.names.user(userId));
  const name = text(fields, 'userName');
  if (name !== undefined && name !== user?.userName) draft.change('Name', user === undefined ? undefined : [plain(user.userName)], [plain(name)]);
  const email = text(fields, 'userEmail');
  if (email !== undefined) draft.change('Email', undefined, [plain(email === '' ? 'none' : email)]);
  const phone = text(fields, 'userPhoneNumber');
  if (phone !== undefined) draft.change('Phone number', undefined, [plain(phone === '' ? 'none' : phone)]);
  if (Array.isArray(fields['userTagIds'])) {
    draft.change(
      'Tags',
      user?.userTags.map((tagId) => draft.names.tag(tagId)),
      texts(fields, 'userTagIds').map((tagId) => draft.names.tag(tagId)),
    );
  }
  draft.summary = draft.names.user(userId).text;
};

const updateUserName: Describer = (fields, draft) => {
  const userId = text(fields, 'userId') ?? '';
  const user = draft.beforeFrom(draft.names.findUser(userId));
  draft.title = 'Rename a user';
  draft.change('Name', user === undefined ? undefined : [plain(user.userName)], [plain(text(fields, 'userName') ?? '')]);
  draft.summary = user === undefined ? `to ${text(fields, 'userName') ?? ''}` : `${user.userName} → ${text(fields, 'userName') ?? ''}`;
};

const deleteUsers: Describer = (fields, draft) => {
  const userIds = texts(fields, 'userIds');
  draft.title = `Delete ${counted(userIds.length, 'user')}`;
  for (const userId of userIds) draft.deletions.push({ what: draft.names.user(userId), kind: 'user' });
  const quorum = draft.beforeFrom(draft.lookup.rootQuorum);
  if (quorum !== undefined) {
    const leaving = userIds.filter((userId) => quorum.userIds.includes(userId));
    const remaining = quorum.userIds.length - leaving.length;
    for (const userId of leaving) draft.warn(`${draft.names.user(userId).text} is a root quorum member: the quorum loses a member.`);
    if (leaving.length > 0 && remaining < quorum.threshold) {
      draft.warn(`The root quorum needs ${quorum.threshold} approvals but would keep only ${remaining} members: it could approve nothing more.`);
    }
  }
  draft.summary = userIds.map((userId) => draft.names.user(userId).text).join(', ');
};

const updateContact =
  (label: string, field: string): Describer =>
  (fields, draft) => {
    const userId = text(fields, 'userId') ?? '';
    draft.title = `Change a user's ${label.toLowerCase()}`;
    draft.change(label, undefined, [plain(text(fields, field) ?? '')]);
    if (text(fields, 'verificationToken') !== undefined) draft.fact('Verified', plain('yes, by a one-time code'));
    draft.summary = draft.names.user(userId).text;
  };

const createApiOnlyUsers: Describer = (fields, draft) => {
  const users = records(fields, 'apiOnlyUsers');
  draft.title = `Create ${counted(users.length, 'API-only user')}`;
  for (const user of users) draft.change('User', [], [plain(text(user, 'userName') ?? 'unnamed')]);
};

export const userDescribers = {
  ACTIVITY_TYPE_CREATE_USERS_V4: createUsers,
  ACTIVITY_TYPE_CREATE_API_ONLY_USERS: createApiOnlyUsers,
  ACTIVITY_TYPE_UPDATE_USER: updateUser,
  ACTIVITY_TYPE_UPDATE_USER_NAME: updateUserName,
  ACTIVITY_TYPE_UPDATE_USER_EMAIL: updateContact('Email', 'userEmail'),
  ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER: updateContact('Phone number', 'userPhoneNumber'),
  ACTIVITY_TYPE_DELETE_USERS: deleteUsers,
} satisfies Describers;
