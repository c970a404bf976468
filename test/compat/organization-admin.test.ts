/**
 * Organization administration through Turnkey's `@turnkey/http` client unchanged: organization features (root quorum
 * only) and invitations. Each operation succeeds for the root user, is refused for a user no policy lets act, and
 * refuses bad input with a 400 that records nothing.
 */
import { TurnkeyRequestError } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordedRows } from '../service/signing/recorded';
import { startTestService, type TestService } from '../support/service';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

async function refusal(call: Promise<unknown>): Promise<TurnkeyRequestError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TurnkeyRequestError);
  return error as TurnkeyRequestError;
}

/** gRPC codes Turnkey answers with: 3 is a 400, 5 a 404, 7 a 403. */
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;

/** A policy that would let `userId` do anything a policy can allow. */
async function allowEverything(userId: string) {
  await t.client().createPolicy({
    ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
    parameters: { policyName: 'anything', effect: 'EFFECT_ALLOW', condition: 'true', consensus: `approvers.any(user, user.id == '${userId}')`, notes: '' },
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
    expect(webhook.activity.result.setOrganizationFeatureResult?.features).toEqual([{ name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example/a' }]);

    const emailAuth = await t.client().setOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_EMAIL_AUTH', value: '' } });
    const replaced = await t.client().setOrganizationFeature({
      ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'),
      parameters: { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example/b' },
    });
    const expected = [{ name: 'FEATURE_NAME_EMAIL_AUTH' }, { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example/b' }];
    expect(emailAuth.activity.result.setOrganizationFeatureResult?.features).toEqual([expected[0], { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example/a' }]);
    expect(replaced.activity.result.setOrganizationFeatureResult?.features).toEqual(expected);
    expect((await organization()).organizationData.features).toEqual(expected);
    expect((await t.client().getOrganizationConfigs({ organizationId: t.info.organizationId })).configs.features).toEqual(expected);
  });

  it('remove_organization_feature removes one; removing a feature that is not set is a 404 that records nothing', async () => {
    for (const name of ['FEATURE_NAME_EMAIL_AUTH', 'FEATURE_NAME_SMS_AUTH'] as const) {
      await t.client().setOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'), parameters: { name, value: '' } });
    }
    const removed = await t.client().removeOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_EMAIL_AUTH' } });
    expect(removed.activity.result.removeOrganizationFeatureResult?.features).toEqual([{ name: 'FEATURE_NAME_SMS_AUTH' }]);
    expect((await organization()).organizationData.features).toEqual([{ name: 'FEATURE_NAME_SMS_AUTH' }]);

    const before = recordedRows(t);
    const absent = await refusal(t.client().removeOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_EMAIL_AUTH' } }));
    expect([absent.code, absent.message]).toEqual([NOT_FOUND, expect.stringContaining('has no feature FEATURE_NAME_EMAIL_AUTH to remove')]);
    expect(recordedRows(t)).toBe(before);
  });

  it('a non-root user cannot change features, not even with a policy that allows everything', async () => {
    const bob = await t.addUser({ name: 'bob' });
    const setAsBob = () => t.client(bob.key).setOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_WEBHOOK', value: 'https://evil.example' } });
    expect((await refusal(setAsBob())).code).toBe(PERMISSION_DENIED);
    await allowEverything(bob.userId);
    expect((await refusal(setAsBob())).code).toBe(PERMISSION_DENIED);

    await t.client().setOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_SMS_AUTH', value: '' } });
    const removeAsBob = await refusal(t.client(bob.key).removeOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_SMS_AUTH' } }));
    expect(removeAsBob.code).toBe(PERMISSION_DENIED);
    expect((await organization()).organizationData.features).toEqual([{ name: 'FEATURE_NAME_SMS_AUTH' }]);
  });

  it('refuses a feature name outside the enum or a missing value: a 400, nothing recorded', async () => {
    const before = recordedRows(t);
    const unknownName = await refusal(
      t.client().setOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_TELEPORT' as 'FEATURE_NAME_WEBHOOK', value: '' } }),
    );
    expect([unknownName.code, unknownName.message]).toEqual([INVALID_ARGUMENT, expect.stringContaining('parameters.name')]);
    const noValue = await refusal(
      t.client().setOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_WEBHOOK' } as { name: 'FEATURE_NAME_WEBHOOK'; value: string } }),
    );
    expect([noValue.code, noValue.message]).toEqual([INVALID_ARGUMENT, expect.stringContaining('parameters.value')]);
    const removeUnknown = await refusal(
      t.client().removeOrganizationFeature({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE'), parameters: { name: 'FEATURE_NAME_TELEPORT' as 'FEATURE_NAME_WEBHOOK' } }),
    );
    expect(removeUnknown.code).toBe(INVALID_ARGUMENT);
    expect(recordedRows(t)).toBe(before);
    expect((await organization()).organizationData.features).toEqual([]);
  });
});
