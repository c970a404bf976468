/**
 * Invitations (docs/service.md#users-credentials-and-tags): create_invitations records who is invited to the
 * organization, with which tags and access, and emails each invitation (to the outbox); get_organization lists them;
 * delete_invitation withdraws one.
 */
import type { z } from 'zod';
import type { accessType } from '../../shared/api/enums';
import { toTimestamp } from '../../shared/api/timestamps';
import { QkError } from '../../shared/errors';
import { isEmailAddress } from '../../shared/text';
import type { Family } from '../activities/context';
import { appendOutboxMessage } from '../proxy/outbox';
import type { Repositories } from '../store';
import type { InvitationRecord } from '../store/invitations';
import { requireTags } from './identity/users';

interface InvitationParams {
  receiverUserName: string;
  receiverUserEmail: string;
  receiverUserTags: string[];
  accessType: string;
  senderUserId: string;
}

/** `v1Invitation`; an invitation is listed until it is deleted, so its status is always "created". */
export function invitationView(invitation: InvitationRecord) {
  return {
    invitationId: invitation.id,
    receiverUserName: invitation.receiverUserName,
    receiverEmail: invitation.receiverEmail,
    receiverUserTags: invitation.receiverUserTags,
    accessType: invitation.accessType as z.infer<typeof accessType>,
    status: 'INVITATION_STATUS_CREATED' as const,
    createdAt: toTimestamp(invitation.createdAt),
    updatedAt: toTimestamp(invitation.updatedAt),
    senderUserId: invitation.senderUserId,
  };
}

function invalid(field: string, message: string): QkError {
  return new QkError('REQUEST_INVALID', `${field}: ${message}`, { issues: [{ path: field, message }] });
}

/**
 * Checks every invitation without writing and answers their receivers' addresses, lower-cased: each address is invited
 * once and belongs to no user of the organization yet (our choice: an invitation is how someone new joins).
 */
function checkInvitations(store: Repositories, organizationId: string, params: { invitations: InvitationParams[] }): string[] {
  if (params.invitations.length === 0) throw invalid('parameters.invitations', 'must list at least one invitation');
  const userEmails = new Set(
    store.users.listByOrganization(organizationId).flatMap((user) => (user.email === undefined ? [] : [user.email.toLowerCase()])),
  );
  return params.invitations.map((invitation, index) => {
    const field = `parameters.invitations[${index}]`;
    if (invitation.receiverUserName.trim() === '') throw invalid(`${field}.receiverUserName`, 'must not be empty');
    if (!isEmailAddress(invitation.receiverUserEmail))
      throw invalid(`${field}.receiverUserEmail`, `"${invitation.receiverUserEmail}" is not an email address`);
    const email = invitation.receiverUserEmail.toLowerCase();
    if (params.invitations.findIndex((other) => other.receiverUserEmail.toLowerCase() === email) !== index) {
      throw invalid(`${field}.receiverUserEmail`, `${email} is invited twice in this request`);
    }
    if (userEmails.has(email)) {
      throw new QkError('ALREADY_EXISTS', `${field}.receiverUserEmail: ${email} is already the email of a user of organization ${organizationId}`);
    }
    const pending = store.invitations.findByEmail(organizationId, email);
    if (pending !== undefined) {
      throw new QkError('ALREADY_EXISTS', `${field}.receiverUserEmail: ${email} is already invited (${pending.id}); delete that invitation first`, {
        invitationId: pending.id,
      });
    }
    requireTags(store, organizationId, invitation.receiverUserTags, `${field}.receiverUserTags`);
    const sender = store.users.get(invitation.senderUserId);
    if (sender === undefined || sender.organizationId !== organizationId) {
      throw new QkError('NOT_FOUND', `${field}.senderUserId: no user ${invitation.senderUserId} in organization ${organizationId}`, {
        userId: invitation.senderUserId,
      });
    }
    return email;
  });
}

function requireInvitation(store: Repositories, organizationId: string, invitationId: string): InvitationRecord {
  const invitation = store.invitations.get(organizationId, invitationId);
  if (invitation === undefined)
    throw new QkError('NOT_FOUND', `parameters.invitationId: no invitation ${invitationId} in organization ${organizationId}`, { invitationId });
  return invitation;
}

export function invitationsFamily(options: { outboxFile: string }): Family {
  return {
    activities: {
      create_invitations: {
        validate: (store, organizationId, params) => void checkInvitations(store, organizationId, params),
        execute(ctx, params) {
          const emails = checkInvitations(ctx.store, ctx.organizationId, params);
          const invitationIds = params.invitations.map((invitation, index) => {
            const id = ctx.newId();
            ctx.store.invitations.insert(
              {
                id,
                organizationId: ctx.organizationId,
                receiverUserName: invitation.receiverUserName,
                receiverEmail: emails[index]!,
                receiverUserTags: invitation.receiverUserTags,
                accessType: invitation.accessType,
                senderUserId: invitation.senderUserId,
              },
              ctx.now,
            );
            return id;
          });
          // Emailed once all are stored, before the activity commits: an email for an invitation that then fails to
          // be stored names an id that does not exist, which accepts nothing.
          invitationIds.forEach((invitationId, index) => {
            const invitation = params.invitations[index]!;
            appendOutboxMessage(options.outboxFile, {
              contact: emails[index]!,
              channel: 'email',
              purpose: 'INVITATION',
              invitationId,
              receiverUserName: invitation.receiverUserName,
              organizationId: ctx.organizationId,
              organizationName: ctx.organization.name,
              senderUserId: invitation.senderUserId,
              createdAt: new Date(ctx.now).toISOString(),
            });
          });
          return { invitationIds };
        },
      },
      delete_invitation: {
        validate: (store, organizationId, params) => void requireInvitation(store, organizationId, params.invitationId),
        execute(ctx, params) {
          requireInvitation(ctx.store, ctx.organizationId, params.invitationId);
          ctx.store.invitations.delete(ctx.organizationId, params.invitationId);
          return { invitationId: params.invitationId };
        },
      },
    },
  };
}
