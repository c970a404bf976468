/**
 * Users (docs/service.md#users-credentials-and-tags): create_users, create_api_only_users, get_user, list_users,
 * update_user, update_user_name, update_user_email, update_user_phone_number, delete_users, and the `checkNewUsers` /
 * `createUsers` steps shared with create_sub_organization and signup_v2.
 */
import type { z } from 'zod';
import { apiKeyWithCurve } from '../../../shared/api/activity-versions';
import { apiKeyParamsV2, type apiKeyParamsV1, type userParamsV4 } from '../../../shared/api/params';
import type { VerificationTokenClaims } from '../../../shared/crypto/tokens';
import { QkError } from '../../../shared/errors';
import { isEmailAddress, MAX_EMAIL_LENGTH } from '../../../shared/text';
import type { ActivityContext, Family } from '../../activities/context';
import { userView } from '../../activities/views';
import type { OidcVerifier } from '../../auth/oidc';
import { checkVerificationTokenIn, normalizeContact } from '../../proxy/otp';
import type { Repositories } from '../../store';
import { addAuthenticators, addOauthProviders, checkAuthenticators, checkOauthProviders, type PlannedAuthenticator } from '../credentials';
import { addApiKeys, checkApiKeys, type PlannedKey } from './api-keys';
import { MAX_USERS_PER_ORGANIZATION, requireDistinct, requireUser } from './common';

/** A new user as create_users and create_sub_organization take it (root users carry no tags). */
export type NewUserParams = Omit<z.output<typeof userParamsV4>, 'userTags'> & { userTags?: string[] };

export interface CheckedUser {
  params: NewUserParams;
  apiKeys: PlannedKey[];
  authenticators: PlannedAuthenticator[];
  /** Which field of the request each user came from, for errors raised while storing it. */
  field: string;
}

const E164 = /^\+[1-9]\d{1,14}$/;

/** Name, email and phone as given, or a REQUEST_INVALID naming the field. */
export function checkUserFields(
  fields: { userName?: string | undefined; userEmail?: string | undefined; userPhoneNumber?: string | undefined },
  prefix: string,
): void {
  const invalid = (field: string, message: string) =>
    new QkError('REQUEST_INVALID', `${prefix}${field}: ${message}`, { issues: [{ path: `${prefix}${field}`, message }] });
  if (fields.userName !== undefined && fields.userName.trim() === '') throw invalid('userName', 'must not be empty');
  if (fields.userEmail !== undefined && fields.userEmail.length > MAX_EMAIL_LENGTH) {
    throw invalid('userEmail', `must be at most ${MAX_EMAIL_LENGTH} characters, got ${fields.userEmail.length}`);
  }
  if (fields.userEmail !== undefined && !isEmailAddress(fields.userEmail)) {
    throw invalid('userEmail', `"${fields.userEmail}" is not an email address`);
  }
  if (fields.userPhoneNumber !== undefined && !E164.test(fields.userPhoneNumber)) {
    throw invalid('userPhoneNumber', `"${fields.userPhoneNumber}" is not in E.164 format (e.g. +13214567890)`);
  }
}

export function requireTags(store: Repositories, organizationId: string | undefined, tagIds: readonly string[], field: string): void {
  tagIds.forEach((tagId, index) => {
    // An organization the activity is about to create has no tags yet.
    const tag = organizationId === undefined ? undefined : store.userTags.get(organizationId, tagId);
    if (tag === undefined) {
      throw new QkError('NOT_FOUND', `${field}[${index}]: no user tag ${tagId} in organization ${organizationId}`, { tagId });
    }
    if (tagIds.indexOf(tagId) !== index) throw new QkError('REQUEST_INVALID', `${field}: tag ${tagId} appears twice`);
  });
}

/**
 * Checks users about to be created in `organizationId` (undefined: an organization the same activity is
 * about to create): fields, tags, credentials, the user limit, and keys unique across the request.
 */
export function checkNewUsers(
  store: Repositories,
  organizationId: string | undefined,
  users: readonly NewUserParams[],
  field: string,
): CheckedUser[] {
  if (users.length === 0) throw new QkError('REQUEST_INVALID', `${field}: give at least one user`);
  const existing = organizationId === undefined ? 0 : store.users.listByOrganization(organizationId).length;
  if (existing + users.length > MAX_USERS_PER_ORGANIZATION) {
    throw new QkError(
      'LIMIT_EXCEEDED',
      `an organization holds at most ${MAX_USERS_PER_ORGANIZATION} users (has ${existing}, adding ${users.length}); delete users first`,
      { limit: MAX_USERS_PER_ORGANIZATION },
    );
  }
  // Credentials must be unique across the whole request, not only per user.
  const seenKeys = new Map<string, string>();
  const seenCredentialIds = new Map<string, string>();
  const claimOnce = (seen: Map<string, string>, value: string, field: string, what: string) => {
    const earlier = seen.get(value);
    if (earlier !== undefined) throw new QkError('ALREADY_EXISTS', `${field}: ${what} ${value} is also given at ${earlier}`, { [what]: value });
    seen.set(value, field);
  };
  return users.map((params, index) => {
    const prefix = `${field}[${index}].`;
    checkUserFields(params, prefix);
    requireTags(store, organizationId, params.userTags ?? [], `${prefix}userTags`);
    const apiKeys = checkApiKeys(store, organizationId, undefined, params.apiKeys, `${prefix}apiKeys`);
    apiKeys.forEach((key, keyIndex) => claimOnce(seenKeys, key.publicKey, `${prefix}apiKeys[${keyIndex}].publicKey`, 'publicKey'));
    const authenticators = checkAuthenticators(store, organizationId, undefined, params.authenticators, `${prefix}authenticators`);
    authenticators.forEach(({ registration }, authenticatorIndex) =>
      claimOnce(
        seenCredentialIds,
        registration.credentialId,
        `${prefix}authenticators[${authenticatorIndex}].attestation.credentialId`,
        'credentialId',
      ),
    );
    checkOauthProviders(store, undefined, params.oauthProviders, `${prefix}oauthProviders`);
    return { params, apiKeys, authenticators, field: `${field}[${index}]` };
  });
}

/**
 * Inserts checked users with their tags and credentials, verifying OIDC tokens of OAuth providers on the way;
 * returns their ids in request order.
 */
export async function createUsers(
  target: { store: Repositories; organizationId: string; now: number; newId(): string },
  oidc: OidcVerifier,
  users: readonly CheckedUser[],
): Promise<string[]> {
  const { store, organizationId, now } = target;
  const userIds: string[] = [];
  for (const { params, apiKeys, authenticators, field } of users) {
    const userId = target.newId();
    store.users.insert({
      id: userId,
      organizationId,
      name: params.userName,
      ...(params.userEmail === undefined ? {} : { email: params.userEmail }),
      ...(params.userPhoneNumber === undefined ? {} : { phoneNumber: params.userPhoneNumber }),
      now,
    });
    for (const tagId of params.userTags ?? []) store.userTags.addMember(tagId, userId);
    const owner = { ...target, userId };
    addApiKeys(owner, apiKeys);
    addAuthenticators(owner, authenticators);
    await addOauthProviders(owner, oidc, params.oauthProviders, `${field}.oauthProviders`);
    userIds.push(userId);
  }
  return userIds;
}

interface UserUpdate {
  userId: string;
  userName?: string | undefined;
  userEmail?: string | undefined;
  userPhoneNumber?: string | undefined;
  userTagIds?: string[] | undefined;
}

function checkUpdate(store: Repositories, organizationId: string, params: UserUpdate): void {
  requireUser(store, organizationId, params.userId);
  checkUserFields(params, 'parameters.');
  requireTags(store, organizationId, params.userTagIds ?? [], 'parameters.userTagIds');
}

function applyUpdate(store: Repositories, organizationId: string, params: UserUpdate, now: number): { userId: string } {
  checkUpdate(store, organizationId, params);
  const user = requireUser(store, organizationId, params.userId);
  store.users.update({
    id: user.id,
    name: params.userName ?? user.name,
    email: params.userEmail ?? user.email,
    phoneNumber: params.userPhoneNumber ?? user.phoneNumber,
    now,
  });
  // The swagger asks for [] when the tags are not being changed, so only a non-empty list replaces them.
  if (params.userTagIds !== undefined && params.userTagIds.length > 0) store.userTags.setTagsOfUser(user.id, params.userTagIds);
  return { userId: user.id };
}

/**
 * A verification token given with a new email or phone number: issued by this service for the user's organization or
 * its parent (where the auth proxy runs), of the contact's type, for exactly this contact.
 */
function checkContactToken(
  store: Repositories,
  organizationId: string,
  token: string,
  contact: { otpType: 'OTP_TYPE_EMAIL' | 'OTP_TYPE_SMS'; value: string },
  now: number,
): VerificationTokenClaims {
  const claims = checkVerificationTokenIn(store, token, organizationId, now, 'parameters.verificationToken');
  if (claims.verification_type !== contact.otpType || claims.contact !== normalizeContact(contact.otpType, contact.value)) {
    throw new QkError('TOKEN_INVALID', `parameters.verificationToken verified ${claims.contact}, not ${contact.value}; verify the new contact first`);
  }
  return claims;
}

type ContactUpdate = { userId: string; verificationToken?: string | undefined } & (
  { otpType: 'OTP_TYPE_EMAIL'; userEmail: string } | { otpType: 'OTP_TYPE_SMS'; userPhoneNumber: string }
);

function checkContactUpdate(store: Repositories, organizationId: string, params: ContactUpdate, now: number | undefined) {
  const user = requireUser(store, organizationId, params.userId);
  checkUserFields(params, 'parameters.');
  const value = params.otpType === 'OTP_TYPE_EMAIL' ? params.userEmail : params.userPhoneNumber;
  // The token's expiry is judged when the activity runs.
  const token =
    params.verificationToken === undefined || now === undefined
      ? undefined
      : checkContactToken(store, organizationId, params.verificationToken, { otpType: params.otpType, value }, now);
  return { user, token };
}

/** Sets the user's email or phone number; with a verification token the new contact is recorded as verified. */
function applyContactUpdate(ctx: ActivityContext, params: ContactUpdate): { userId: string } {
  const { user, token } = checkContactUpdate(ctx.store, ctx.organizationId, params, ctx.now);
  ctx.store.users.update({
    id: user.id,
    name: user.name,
    email: params.otpType === 'OTP_TYPE_EMAIL' ? params.userEmail : user.email,
    phoneNumber: params.otpType === 'OTP_TYPE_SMS' ? params.userPhoneNumber : user.phoneNumber,
    now: ctx.now,
  });
  if (token !== undefined) {
    if (!ctx.store.verifications.consumeToken(token.id, 'USAGE_TYPE_UPDATE_CONTACT', ctx.now)) {
      throw new QkError('TOKEN_INVALID', `verification token ${token.id} was already used; verify the contact again`);
    }
    ctx.store.verifications.markContactVerified({
      userId: user.id,
      organizationId: ctx.organizationId,
      otpType: token.verification_type,
      contact: token.contact,
      now: ctx.now,
    });
  }
  return { userId: user.id };
}

/** create_api_only_users: users with API keys only (keys of this shape are P-256), tags allowed. */
function apiOnlyUsers(params: {
  apiOnlyUsers: { userName: string; userEmail?: string | undefined; userTags: string[]; apiKeys: z.output<typeof apiKeyParamsV1>[] }[];
}): NewUserParams[] {
  return params.apiOnlyUsers.map((user) => ({
    userName: user.userName,
    ...(user.userEmail === undefined ? {} : { userEmail: user.userEmail }),
    userTags: user.userTags,
    apiKeys: user.apiKeys.map((key) => apiKeyParamsV2.parse(apiKeyWithCurve(key))),
    authenticators: [],
    oauthProviders: [],
  }));
}

function checkDeletion(store: Repositories, organizationId: string, params: { userIds: string[] }): void {
  requireDistinct(params.userIds, 'parameters.userIds');
  const quorum = store.organizations.rootQuorum(organizationId);
  for (const userId of params.userIds) {
    requireUser(store, organizationId, userId);
    if (quorum.userIds.includes(userId)) {
      throw new QkError(
        'REQUEST_INVALID',
        `quorum users missing: user ${userId} is a member of the root quorum; remove them with update_root_quorum before deleting them`,
        { userId },
      );
    }
  }
}

export function usersFamily(options: { oidc: OidcVerifier }): Family {
  return {
    queries: {
      get_user: (ctx, request) => ({ user: userView(ctx.store, requireUser(ctx.store, ctx.organizationId, request.userId)) }),
      list_users: (ctx) => ({ users: ctx.store.users.listByOrganization(ctx.organizationId).map((user) => userView(ctx.store, user)) }),
    },
    activities: {
      create_users: {
        validate(store, organizationId, params) {
          checkNewUsers(store, organizationId, params.users, 'parameters.users');
        },
        async execute(ctx, params) {
          return { userIds: await createUsers(ctx, options.oidc, checkNewUsers(ctx.store, ctx.organizationId, params.users, 'parameters.users')) };
        },
      },
      update_user: {
        validate: checkUpdate,
        execute: (ctx, params) => applyUpdate(ctx.store, ctx.organizationId, params, ctx.now),
      },
      update_user_name: {
        validate: checkUpdate,
        execute: (ctx, params) => applyUpdate(ctx.store, ctx.organizationId, params, ctx.now),
      },
      update_user_email: {
        validate: (store, organizationId, params) =>
          void checkContactUpdate(store, organizationId, { ...params, otpType: 'OTP_TYPE_EMAIL' }, undefined),
        execute: (ctx, params) => applyContactUpdate(ctx, { ...params, otpType: 'OTP_TYPE_EMAIL' }),
      },
      update_user_phone_number: {
        validate: (store, organizationId, params) =>
          void checkContactUpdate(store, organizationId, { ...params, otpType: 'OTP_TYPE_SMS' }, undefined),
        execute: (ctx, params) => applyContactUpdate(ctx, { ...params, otpType: 'OTP_TYPE_SMS' }),
      },
      create_api_only_users: {
        validate(store, organizationId, params) {
          checkNewUsers(store, organizationId, apiOnlyUsers(params), 'parameters.apiOnlyUsers');
        },
        async execute(ctx, params) {
          return {
            userIds: await createUsers(
              ctx,
              options.oidc,
              checkNewUsers(ctx.store, ctx.organizationId, apiOnlyUsers(params), 'parameters.apiOnlyUsers'),
            ),
          };
        },
      },
      delete_users: {
        validate: checkDeletion,
        execute(ctx, params) {
          checkDeletion(ctx.store, ctx.organizationId, params);
          for (const userId of params.userIds) ctx.store.users.delete(userId);
          return { userIds: params.userIds };
        },
      },
    },
  };
}
