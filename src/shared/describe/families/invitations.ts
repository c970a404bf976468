/** Invitations to the organization. */
import type { Describer, Describers } from '../draft';
import { deleteById, plain, records, refs, text, texts } from '../pieces';
import { counted, enumInWords } from '../words';

const createInvitations: Describer = (fields, draft) => {
  const invitations = records(fields, 'invitations');
  draft.title = `Invite ${counted(invitations.length, 'person', 'people')} to the organization`;
  for (const invitation of invitations) {
    const name = text(invitation, 'receiverUserName') ?? 'unnamed';
    const email = text(invitation, 'receiverUserEmail');
    draft.change('Invitation', [], [plain(email === undefined ? name : `${name} <${email}>`)]);
    const access = text(invitation, 'accessType');
    if (access !== undefined) draft.fact(`${name}: access`, plain(enumInWords(access, 'ACCESS_TYPE_')));
    draft.fact(`${name}: tags`, ...refs(texts(invitation, 'receiverUserTags'), (tagId) => draft.names.tag(tagId)));
    const sender = text(invitation, 'senderUserId');
    if (sender !== undefined) draft.fact(`${name}: invited by`, draft.names.user(sender));
  }
};

export const invitationDescribers = {
  ACTIVITY_TYPE_CREATE_INVITATIONS: createInvitations,
  ACTIVITY_TYPE_DELETE_INVITATION: deleteById('Withdraw an invitation', 'invitation', 'invitationId'),
} satisfies Describers;
