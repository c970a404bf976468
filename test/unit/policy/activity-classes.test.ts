import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { activityOperations, olderActivityVersions } from '../../../src/shared/api';
import { QkError } from '../../../src/shared/errors';
import {
  CLASSIFIED_ACTIVITY_TYPES,
  activityClassOf,
  activityKindOf,
  activityParamsOf,
  evaluatePolicyExpression,
  policyActivityOf,
} from '../../../src/shared/policy';

const swagger = JSON.parse(readFileSync(new URL('../api/fixtures/turnkey-public-api.swagger.json', import.meta.url), 'utf8')) as {
  definitions: { v1ActivityType: { enum: string[] } };
};
const swaggerTypes = new Set(swagger.definitions.v1ActivityType.enum);

describe('activity classes', () => {
  it('classifies only activity types the swagger defines', () => {
    expect(CLASSIFIED_ACTIVITY_TYPES.filter((type) => !swaggerTypes.has(type))).toEqual([]);
  });

  it.each([
    ['ACTIVITY_TYPE_SIGN_TRANSACTION_V2', 'SIGN_TRANSACTION', 'PRIVATE_KEY', 'SIGN'],
    ['ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', 'CREATE_SUB_ORGANIZATION', 'ORGANIZATION', 'CREATE'],
    ['ACTIVITY_TYPE_CREATE_POLICY_V3', 'CREATE_POLICY', 'POLICY', 'CREATE'],
    ['ACTIVITY_TYPE_UPDATE_POLICY_V2', 'UPDATE_POLICY', 'POLICY', 'UPDATE'],
    ['ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT', 'EXPORT_WALLET_ACCOUNT', 'WALLET', 'EXPORT'],
    ['ACTIVITY_TYPE_INIT_IMPORT_WALLET', 'INIT_IMPORT_WALLET', 'WALLET', 'IMPORT'],
    ['ACTIVITY_TYPE_CREATE_USERS_V4', 'CREATE_USERS', 'USER', 'CREATE'],
    ['ACTIVITY_TYPE_DELETE_API_KEYS', 'DELETE_API_KEYS', 'CREDENTIAL', 'DELETE'],
    ['ACTIVITY_TYPE_OTP_LOGIN_V2', 'OTP_LOGIN', 'AUTH', 'CREATE'],
    ['ACTIVITY_TYPE_VERIFY_OTP_V2', 'VERIFY_OTP', 'OTP', 'VERIFY'],
    ['ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS', 'DELETE_TVC_APP_AND_DEPLOYMENTS', 'TVC_APP', 'DELETE'],
    ['ACTIVITY_TYPE_CREATE_SESSION_PROFILE', 'CREATE_SESSION_PROFILE', 'SESSION_PROFILE', 'CREATE'],
  ])('%s', (type, kind, resource, action) => {
    expect(activityClassOf(type)).toEqual({ type, kind, resource, action });
  });

  it('classifies every older version the service still accepts as its current version', () => {
    for (const version of olderActivityVersions) {
      const current = activityOperations[version.operation].activityType;
      expect(activityClassOf(version.activityType)).toMatchObject({
        resource: activityClassOf(current).resource,
        action: activityClassOf(current).action,
      });
    }
  });

  it('leaves votes and root quorum changes outside the resource table', () => {
    for (const type of ['ACTIVITY_TYPE_APPROVE_ACTIVITY', 'ACTIVITY_TYPE_REJECT_ACTIVITY', 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM']) {
      expect(activityClassOf(type)).toMatchObject({ resource: null, action: null });
      expect(policyActivityOf(type, {})).not.toHaveProperty('resource');
    }
  });

  it('strips only the prefix and a trailing revision from the kind', () => {
    expect(activityKindOf('ACTIVITY_TYPE_ETH_UNDELEGATE_7702')).toBe('ETH_UNDELEGATE_7702');
    expect(activityKindOf('ACTIVITY_TYPE_INIT_OTP_AUTH_V3')).toBe('INIT_OTP_AUTH');
  });

  it('refuses a type it does not implement, with a typed error', () => {
    expect(() => activityClassOf('ACTIVITY_TYPE_EARN_DEPOSIT')).toThrow(QkError);
    expect(() => activityClassOf('ACTIVITY_TYPE_EARN_DEPOSIT')).toThrow(/ACTIVITY_TYPE_EARN_DEPOSIT/);
  });
});

describe('activity params', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['ACTIVITY_TYPE_EXPORT_WALLET', { walletId: 'w', targetPublicKey: '04ab' }, { target_public_key: '04ab' }],
    ['ACTIVITY_TYPE_EXPORT_PRIVATE_KEY', { privateKeyId: 'k', targetPublicKey: '04cd' }, { target_public_key: '04cd' }],
    ['ACTIVITY_TYPE_DELETE_USERS', { userIds: ['a', 'b'] }, { user_ids: ['a', 'b'] }],
    ['ACTIVITY_TYPE_CREATE_API_KEYS_V2', { userId: 'u', apiKeys: [{ apiKeyName: 'k' }] }, { user_id: 'u' }],
    ['ACTIVITY_TYPE_DELETE_API_KEYS', { userId: 'u', apiKeyIds: ['k1'] }, { user_id: 'u', api_key_ids: ['k1'] }],
    ['ACTIVITY_TYPE_OAUTH_LOGIN', { oidcToken: 't', publicKey: 'p', sessionProfileId: 'sp' }, { session_profile_id: 'sp' }],
    ['ACTIVITY_TYPE_OTP_LOGIN_V2', { verificationToken: 't', publicKey: 'p' }, {}],
    ['ACTIVITY_TYPE_INIT_OTP_AUTH_V3', { otpType: 'OTP_TYPE_EMAIL', contact: 'a@b', appName: 'x', otpLength: 6 }, { otp_length: 6n }],
    ['ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', { signWith: 'a', payload: 'p', encoding: 'E', hashFunction: 'H' }, { hash_function: 'H', encoding: 'E' }],
    [
      'ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE',
      { signWith: 'sp1', lightningReceive: { threshold: 2, operatorRecipients: [{ operatorId: 'o', encryptionPublicKey: '02' }] } },
      { sign_with: 'sp1', lightning_receive: { threshold: 2n, operator_recipients: [{ operator_id: 'o', encryption_public_key: '02' }] } },
    ],
    ['ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'w', accounts: [] }, {}],
  ])('%s', (type, intent, params) => {
    expect(activityParamsOf(type, intent)).toEqual(params);
  });

  it('refuses intent values that policies cannot represent', () => {
    expect(() => activityParamsOf('ACTIVITY_TYPE_INIT_OTP_AUTH_V3', { otpLength: 6.5 })).toThrow(/intent field otpLength holds a number \(6.5\)/);
  });

  it('feeds conditions end to end', () => {
    const activity = policyActivityOf('ACTIVITY_TYPE_DELETE_API_KEYS', { userId: 'u-1', apiKeyIds: ['k-1', 'k-2'] });
    const allows = (text: string) => evaluatePolicyExpression(text, 'condition', { activity });
    expect(allows("activity.resource == 'CREDENTIAL' && activity.action == 'DELETE' && activity.params.user_id == 'u-1'")).toEqual({
      ok: true,
      value: true,
    });
    expect(allows("activity.params.api_key_ids.contains('k-3')")).toEqual({ ok: true, value: false });
    expect(allows("activity.params.target_public_key == 'x'")).toMatchObject({ ok: false, error: { details: { reason: 'MissingField' } } });
  });
});
