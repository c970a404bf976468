/** The organization itself: its root quorum, name, features and sub-organizations. */
import type { Describer, Describers } from '../../draft';
import { account, code, number, plain, record, records, text, texts } from '../../pieces';
import { counted, enumInWords } from '../../words';

const updateRootQuorum: Describer = (fields, draft) => {
  const userIds = texts(fields, 'userIds');
  const threshold = number(fields, 'threshold');
  const before = draft.beforeFrom(draft.lookup.rootQuorum);
  draft.title = 'Change the root quorum';
  draft.change(
    'Members',
    before?.userIds.map((userId) => draft.names.user(userId)),
    userIds.map((userId) => draft.names.user(userId)),
  );
  draft.change('Approvals needed', before === undefined ? undefined : [plain(`${before.threshold} of ${before.userIds.length}`)], [
    plain(threshold === undefined ? 'not stated' : `${threshold} of ${userIds.length}`),
  ]);
  if (userIds.length === 1) {
    draft.warn(
      `The root quorum drops to one member: ${draft.names.user(userIds[0]!).text} alone can approve anything, including changing the quorum again.`,
    );
  } else if (threshold === 1 && userIds.length > 1) {
    draft.warn('Any one quorum member alone can approve anything, including changing the quorum again.');
  }
  if (threshold !== undefined && threshold > userIds.length) {
    draft.warn(`It asks for ${threshold} approvals from ${counted(userIds.length, 'member')}: the service refuses a quorum that can never be met.`);
  }
  const leaving = before?.userIds.filter((userId) => !userIds.includes(userId)) ?? [];
  if (leaving.length > 0) draft.fact('Leaving the quorum', ...leaving.map((userId) => draft.names.user(userId)));
  draft.summary = `${userIds.map((userId) => draft.names.user(userId).text).join(', ')}; ${threshold ?? '?'} of ${userIds.length}`;
};

const createSubOrganization: Describer = (fields, draft) => {
  const name = text(fields, 'subOrganizationName') ?? 'unnamed';
  const rootUsers = records(fields, 'rootUsers');
  draft.title = 'Create a sub-organization';
  draft.change('Sub-organization', [], [plain(name)]);
  draft.change(
    'Its root users',
    [],
    rootUsers.map((user) => plain(text(user, 'userName') ?? 'unnamed user')),
  );
  const threshold = number(fields, 'rootQuorumThreshold');
  if (threshold !== undefined) draft.change('Its approvals needed', [], [plain(`${threshold} of ${rootUsers.length}`)]);
  const wallet = record(fields, 'wallet');
  if (wallet !== undefined)
    draft.change('Its wallet', [], [plain(text(wallet, 'walletName') ?? 'unnamed'), ...records(wallet, 'accounts').map(account)]);
  draft.summary = name;
};

const deleteSubOrganization: Describer = (fields, draft) => {
  draft.title = 'Delete this sub-organization';
  draft.deletions.push({ what: plain(draft.lookup.organizationName ?? 'this organization'), kind: 'organization' });
  draft.warn('Everything in the organization is destroyed: its users, policies, wallets and private keys.');
  draft.warn(
    fields['deleteWithoutExport'] === true
      ? 'The request asks to delete even wallets and keys that were never exported: their funds are lost for good.'
      : 'The service refuses if any wallet or key in it was never exported, as this request does not ask to delete anyway.',
  );
};

const updateOrganizationName: Describer = (fields, draft) => {
  draft.title = 'Rename the organization';
  draft.change('Name', undefined, [plain(text(fields, 'organizationName') ?? '')]);
};

const setOrganizationFeature: Describer = (fields, draft) => {
  const name = text(fields, 'name') ?? 'not stated';
  const value = text(fields, 'value');
  draft.title = 'Turn on an organization feature';
  draft.change(enumInWords(name, 'FEATURE_NAME_'), undefined, [plain(value === undefined || value === '' ? 'on' : `on: ${value}`)]);
  draft.summary = enumInWords(name, 'FEATURE_NAME_');
};

const removeOrganizationFeature: Describer = (fields, draft) => {
  const name = text(fields, 'name') ?? 'not stated';
  draft.title = 'Turn off an organization feature';
  draft.deletions.push({ what: code(name), kind: 'organization feature' });
};

export const organizationDescribers = {
  ACTIVITY_TYPE_UPDATE_ROOT_QUORUM: updateRootQuorum,
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8: createSubOrganization,
  ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION: deleteSubOrganization,
  ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME: updateOrganizationName,
  ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE: setOrganizationFeature,
  ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE: removeOrganizationFeature,
} satisfies Describers;
