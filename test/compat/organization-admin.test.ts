/**
 * Organization administration through Turnkey's `@turnkey/http` client unchanged: organization features (root quorum
 * only) and invitations. Each operation succeeds for the root user, is refused for a user no policy lets act, and
 * refuses bad input with a 400 that records nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readOutbox, type InvitationMessage } from '../../src/service/proxy/outbox';
import { recordedRows } from '../service/signing/recorded';
import { startTestService, type TestService } from '../support/service';
import { clientRefusal } from '../support/client-refusal';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

/** gRPC codes Turnkey answers with: 3 is a 400, 5 a 404, 7 a 403. */
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;

/** A policy that would let `userId` do anything a policy can allow. */
async function allowEverything(userId: string) {
  await t.client().createPolicy({
    ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
    parameters: {
      policyName: 'anything',
      effect: 'EFFECT_ALLOW',
      condition: 'true',
      consensus: `approvers.any(user, user.id == '${userId}')`,
      notes: '',
    },
  });
}

describe('organization features', () => {
  const organization = () => t.client().getOrganization({ organizationId: t.info.organizationId });

  it('set_organization_feature sets or replaces a feature and returns them all; get_organization shows them', async () => {
    const webhook = await t.client().setOrganizationFeature({
      ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'),
      parameters: { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example/a' },
    });
    expect(webhook.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(webhook.activity.result.setOrganizationFeatureResult?.features).toEqual([
      { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example/a' },
    ]);

    const emailAuth = await t.client().setOrganizationFeature({
      ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'),
      parameters: { name: 'FEATURE_NAME_EMAIL_AUTH', value: '' },
    });
    const replaced = await t.client().setOrganizationFeature({
      ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'),
      parameters: { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example/b' },
    });
    const expected = [{ name: 'FEATURE_NAME_EMAIL_AUTH' }, { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example/b' }];
    expect(emailAuth.activity.result.setOrganizationFeatureResult?.features).toEqual([
      expected[0],
      { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example/a' },
    ]);
    expect(replaced.activity.result.setOrganizationFeatureResult?.features).toEqual(expected);
    expect((await organization()).organizationData.features).toEqual(expected);
    expect((await t.client().getOrganizationConfigs({ organizationId: t.info.organizationId })).configs.features).toEqual(expected);
  });

  it('remove_organization_feature removes one; removing a feature that is not set is a 404 that records nothing', async () => {
    for (const name of ['FEATURE_NAME_EMAIL_AUTH', 'FEATURE_NAME_SMS_AUTH'] as const) {
      await t.client().setOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'), parameters: { name, value: '' } });
    }
    const removed = await t
      .client()
      .removeOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_EMAIL_AUTH' } });
    expect(removed.activity.result.removeOrganizationFeatureResult?.features).toEqual([{ name: 'FEATURE_NAME_SMS_AUTH' }]);
    expect((await organization()).organizationData.features).toEqual([{ name: 'FEATURE_NAME_SMS_AUTH' }]);

    const before = recordedRows(t);
    const absent = await clientRefusal(
      t.client().removeOrganizationFeature({
        ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE'),
        parameters: { name: 'FEATURE_NAME_EMAIL_AUTH' },
      }),
    );
    expect([absent.code, absent.message]).toEqual([NOT_FOUND, expect.stringContaining('has no feature FEATURE_NAME_EMAIL_AUTH to remove')]);
    expect(recordedRows(t)).toBe(before);
  });

  it('a non-root user cannot change features, not even with a policy that allows everything', async () => {
    const bob = await t.addUser({ name: 'bob' });
    const setAsBob = () =>
      t.client(bob.key).setOrganizationFeature({
        ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'),
        parameters: { name: 'FEATURE_NAME_WEBHOOK', value: 'https://evil.example' },
      });
    expect((await clientRefusal(setAsBob())).code).toBe(PERMISSION_DENIED);
    await allowEverything(bob.userId);
    expect((await clientRefusal(setAsBob())).code).toBe(PERMISSION_DENIED);

    await t.client().setOrganizationFeature({
      ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'),
      parameters: { name: 'FEATURE_NAME_SMS_AUTH', value: '' },
    });
    const removeAsBob = await clientRefusal(
      t
        .client(bob.key)
        .removeOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_SMS_AUTH' } }),
    );
    expect(removeAsBob.code).toBe(PERMISSION_DENIED);
    expect((await organization()).organizationData.features).toEqual([{ name: 'FEATURE_NAME_SMS_AUTH' }]);
  });

  it('refuses a feature name outside the enum or a missing value: a 400, nothing recorded', async () => {
    const before = recordedRows(t);
    const unknownName = await clientRefusal(
      t.client().setOrganizationFeature({
        ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'),
        parameters: { name: 'FEATURE_NAME_TELEPORT' as 'FEATURE_NAME_WEBHOOK', value: '' },
      }),
    );
    expect([unknownName.code, unknownName.message]).toEqual([INVALID_ARGUMENT, expect.stringContaining('parameters.name')]);
    const noValue = await clientRefusal(
      t.client().setOrganizationFeature({
        ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'),
        parameters: { name: 'FEATURE_NAME_WEBHOOK' } as { name: 'FEATURE_NAME_WEBHOOK'; value: string },
      }),
    );
    expect([noValue.code, noValue.message]).toEqual([INVALID_ARGUMENT, expect.stringContaining('parameters.value')]);
    const removeUnknown = await clientRefusal(
      t.client().removeOrganizationFeature({
        ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE'),
        parameters: { name: 'FEATURE_NAME_TELEPORT' as 'FEATURE_NAME_WEBHOOK' },
      }),
    );
    expect(removeUnknown.code).toBe(INVALID_ARGUMENT);
    expect(recordedRows(t)).toBe(before);
    expect((await organization()).organizationData.features).toEqual([]);
  });
});

describe('invitations', () => {
  const invitationsOf = async () => (await t.client().getOrganization({ organizationId: t.info.organizationId })).organizationData.invitations;
  const invitationEmails = () =>
    readOutbox(t.outbox).filter((message): message is InvitationMessage => 'purpose' in message && message.purpose === 'INVITATION');
  const invite = (receiverUserEmail: string, receiverUserTags: string[] = [], senderUserId = t.info.rootUserId) => ({
    receiverUserName: receiverUserEmail.split('@')[0]!,
    receiverUserEmail,
    receiverUserTags,
    accessType: 'ACCESS_TYPE_WEB' as const,
    senderUserId,
  });
  const createInvitations = (invitations: ReturnType<typeof invite>[], key = t.rootKey) =>
    t.client(key).createInvitations({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_INVITATIONS'), parameters: { invitations } });

  it('create_invitations records and emails each invitation; get_organization lists them; delete_invitation withdraws one', async () => {
    const tag = await t
      .client()
      .createUserTag({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_USER_TAG'), parameters: { userTagName: 'operators', userIds: [] } });
    const tagId = tag.activity.result.createUserTagResult!.userTagId;
    const created = await createInvitations([invite('Alice@Example.com', [tagId]), invite('carol@example.com')]);
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const [aliceId, carolId] = created.activity.result.createInvitationsResult!.invitationIds;
    expect(aliceId).not.toBe(carolId);

    const listed = await invitationsOf();
    expect(listed).toEqual([
      expect.objectContaining({
        invitationId: aliceId,
        receiverUserName: 'Alice',
        receiverEmail: 'alice@example.com',
        receiverUserTags: [tagId],
        accessType: 'ACCESS_TYPE_WEB',
        status: 'INVITATION_STATUS_CREATED',
        senderUserId: t.info.rootUserId,
      }),
      expect.objectContaining({ invitationId: carolId, receiverEmail: 'carol@example.com', receiverUserTags: [] }),
    ]);
    expect(invitationEmails().map((message) => [message.contact, message.invitationId, message.organizationId, message.senderUserId])).toEqual([
      ['alice@example.com', aliceId, t.info.organizationId, t.info.rootUserId],
      ['carol@example.com', carolId, t.info.organizationId, t.info.rootUserId],
    ]);

    const deleted = await t
      .client()
      .deleteInvitation({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_INVITATION'), parameters: { invitationId: aliceId! } });
    expect(deleted.activity.result.deleteInvitationResult).toEqual({ invitationId: aliceId });
    expect((await invitationsOf())?.map((invitation) => invitation.invitationId)).toEqual([carolId]);

    // Withdrawn, the address may be invited again; a pending one may not.
    await createInvitations([invite('alice@example.com')]);
    const pending = await clientRefusal(createInvitations([invite('CAROL@example.com')]));
    expect([pending.code, pending.message]).toEqual([6, expect.stringContaining('carol@example.com is already invited')]);
  });

  it('a non-root user needs a policy to invite or withdraw an invitation', async () => {
    const bob = await t.addUser({ name: 'bob' });
    expect((await clientRefusal(createInvitations([invite('dave@example.com', [], bob.userId)], bob.key))).code).toBe(PERMISSION_DENIED);
    const created = await createInvitations([invite('erin@example.com')]);
    const invitationId = created.activity.result.createInvitationsResult!.invitationIds[0]!;
    const withdrawAsBob = () =>
      t.client(bob.key).deleteInvitation({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_INVITATION'), parameters: { invitationId } });
    expect((await clientRefusal(withdrawAsBob())).code).toBe(PERMISSION_DENIED);
    expect((await invitationsOf())?.map((invitation) => invitation.receiverEmail)).toEqual(['erin@example.com']);
    expect(invitationEmails().map((message) => message.contact)).toEqual(['erin@example.com']);

    await t.client().createPolicy({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
      parameters: {
        policyName: 'bob manages invitations',
        effect: 'EFFECT_ALLOW',
        condition: "activity.resource == 'INVITATION'",
        consensus: `approvers.any(user, user.id == '${bob.userId}')`,
        notes: '',
      },
    });
    expect((await createInvitations([invite('dave@example.com', [], bob.userId)], bob.key)).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await withdrawAsBob()).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await invitationsOf())?.map((invitation) => invitation.receiverEmail)).toEqual(['dave@example.com']);
  });

  it('refuses bad invitations and unknown ids: 400s and 404s that record and email nothing', async () => {
    const before = recordedRows(t);
    const cases: [ReturnType<typeof invite>[], number, string][] = [
      [[], INVALID_ARGUMENT, 'parameters.invitations: must list at least one invitation'],
      [[invite('not-an-address')], INVALID_ARGUMENT, 'parameters.invitations[0].receiverUserEmail: "not-an-address" is not an email address'],
      [
        [{ ...invite('frank@example.com'), receiverUserName: ' ' }],
        INVALID_ARGUMENT,
        'parameters.invitations[0].receiverUserName: must not be empty',
      ],
      [
        [{ ...invite('frank@example.com'), accessType: 'ACCESS_TYPE_SOMETIMES' as 'ACCESS_TYPE_WEB' }],
        INVALID_ARGUMENT,
        'parameters.invitations[0].accessType',
      ],
      [[invite('frank@example.com'), invite('Frank@example.com')], INVALID_ARGUMENT, 'frank@example.com is invited twice in this request'],
      [[invite('frank@example.com', ['00000000-0000-4000-8000-000000000000'])], NOT_FOUND, 'receiverUserTags[0]: no user tag'],
      [[invite('frank@example.com', [], '00000000-0000-4000-8000-000000000000')], NOT_FOUND, 'senderUserId: no user'],
    ];
    for (const [invitations, code, message] of cases) {
      const refused = await clientRefusal(createInvitations(invitations));
      expect([refused.code, refused.message]).toEqual([code, expect.stringContaining(message)]);
    }
    const unknown = await clientRefusal(
      t.client().deleteInvitation({
        ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_INVITATION'),
        parameters: { invitationId: '00000000-0000-4000-8000-000000000000' },
      }),
    );
    expect([unknown.code, unknown.message]).toEqual([NOT_FOUND, expect.stringContaining('no invitation 00000000-0000-4000-8000-000000000000')]);
    const noId = await clientRefusal(
      t.client().deleteInvitation({ ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_INVITATION'), parameters: {} as { invitationId: string } }),
    );
    expect([noId.code, noId.message]).toEqual([INVALID_ARGUMENT, expect.stringContaining('parameters.invitationId')]);
    expect(recordedRows(t)).toBe(before);
    expect(invitationEmails()).toEqual([]);
    expect(await invitationsOf()).toEqual([]);
  });
});
