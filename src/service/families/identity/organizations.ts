/**
 * Organizations and sub-organizations (docs/service.md#organizations, docs/service.md#consensus): get_organization,
 * get_organization_configs, list_suborgs, create_sub_organization, delete_sub_organization, update_organization_name,
 * update_root_quorum, set_organization_feature, remove_organization_feature.
 */
import type { z } from 'zod';
import type { featureName } from '../../../shared/api/enums';
import { QkError } from '../../../shared/errors';
import type { Family, QueryContext } from '../../activities/context';
import { userView } from '../../activities/views';
import type { OidcVerifier } from '../../auth/oidc';
import type { ClientSignature } from '../../proxy/client-signature';
import type { Repositories } from '../../store';
import type { OrganizationFeature, SubOrganizationFilter } from '../../store/organizations';
import { pageSize } from '../activities';
import { invitationView } from '../invitations';
import { policyView } from '../policies';
import { privateKeyView } from '../private-keys';
import { refuseUnexportedDeletion } from '../unexported';
import { checkNewWallet, createWallet, walletView, type NewWalletParams, type WalletTarget } from '../wallets';
import { requireDistinct, requireUser } from './common';
import { userTagView } from './user-tags';
import { checkNewUsers, createUsers, type CheckedUser, type NewUserParams } from './users';
import { applyContactVerification, checkContactVerification, checkVerificationPresence, type ContactVerification } from './verification';

/**
 * The sign-in features a new sub-organization starts with, each unless its `disable*` flag is set
 * (inferred: Turnkey documents the flags, not the feature list they produce).
 */
const SUB_ORGANIZATION_FEATURES = [
  ['disableEmailRecovery', 'FEATURE_NAME_EMAIL_RECOVERY'],
  ['disableEmailAuth', 'FEATURE_NAME_EMAIL_AUTH'],
  ['disableSmsAuth', 'FEATURE_NAME_SMS_AUTH'],
  ['disableOtpEmailAuth', 'FEATURE_NAME_OTP_EMAIL_AUTH'],
] as const;

const SUB_ORGANIZATION_FILTERS = ['NAME', 'USERNAME', 'EMAIL', 'PHONE_NUMBER', 'PUBLIC_KEY'] as const;

/** v1Feature; features are only ever stored under names of the wire enum. */
function featureView(feature: OrganizationFeature) {
  return { name: feature.name as z.infer<typeof featureName>, ...(feature.value === undefined ? {} : { value: feature.value }) };
}

function quorumView(store: Repositories, organizationId: string) {
  const quorum = store.organizations.rootQuorum(organizationId);
  return { threshold: quorum.threshold, userIds: quorum.userIds };
}

function subOrganizationFilter(filterType: string | undefined, filterValue: string | undefined): SubOrganizationFilter {
  if (filterType === undefined || filterType === '') {
    if (filterValue !== undefined && filterValue !== '') {
      throw new QkError('REQUEST_INVALID', 'filterValue is given without filterType; name the field it matches', {
        issues: [{ path: 'filterType', message: 'required with filterValue' }],
      });
    }
    return { by: 'ALL' };
  }
  const by = SUB_ORGANIZATION_FILTERS.find((name) => name === filterType);
  if (by === undefined) {
    throw new QkError(
      'REQUEST_INVALID',
      `filterType ${filterType} is not supported by this service; use one of ${SUB_ORGANIZATION_FILTERS.join(', ')}`,
      { issues: [{ path: 'filterType', message: 'unsupported filter' }] },
    );
  }
  if (filterValue === undefined || filterValue === '') {
    throw new QkError('REQUEST_INVALID', `filterValue: required with filterType ${filterType}`, {
      issues: [{ path: 'filterValue', message: 'required with filterType' }],
    });
  }
  return { by, value: filterValue };
}

function listSubOrganizations(
  ctx: QueryContext,
  request: {
    filterType?: string | undefined;
    filterValue?: string | undefined;
    paginationOptions?: { limit?: string | undefined; before?: string | undefined; after?: string | undefined } | undefined;
  },
) {
  const pagination = request.paginationOptions;
  return {
    organizationIds: ctx.store.organizations.listSubOrganizations({
      parentId: ctx.organizationId,
      filter: subOrganizationFilter(request.filterType, request.filterValue),
      limit: pageSize(pagination?.limit),
      ...(pagination?.after === undefined ? {} : { after: pagination.after }),
      ...(pagination?.before === undefined ? {} : { before: pagination.before }),
    }),
  };
}

type FeatureFlag = (typeof SUB_ORGANIZATION_FEATURES)[number][0];

/** create_sub_organization's parameters (signup_v2 builds the same from its request). */
export type SubOrganizationParams = {
  subOrganizationName: string;
  rootUsers: NewUserParams[];
  rootQuorumThreshold: number;
  wallet?: NewWalletParams | undefined;
  verificationToken?: string | undefined;
  clientSignature?: ClientSignature | undefined;
} & { [flag in FeatureFlag]?: boolean | undefined };

export interface CheckedSubOrganization {
  params: SubOrganizationParams;
  rootUsers: CheckedUser[];
  verification: ContactVerification | undefined;
  fieldPrefix: string;
}

/**
 * Checks a new sub-organization of `parentId` without writing: name, root users with their credentials, threshold,
 * wallet, and the verification token unless `now` is undefined (an activity's validation, which does not know the
 * time the activity will run at). `fieldPrefix` is "parameters." for the activity, "" for the proxy.
 */
export function checkSubOrganization(
  store: Repositories,
  parentId: string,
  params: SubOrganizationParams,
  now: number | undefined,
  fieldPrefix = 'parameters.',
): CheckedSubOrganization {
  if (store.organizations.get(parentId)?.parentId !== undefined) {
    throw new QkError(
      'LIMIT_EXCEEDED',
      `organization ${parentId} is a sub-organization; sub-organizations cannot create sub-organizations (their limit is 0)`,
      { organizationId: parentId },
    );
  }
  if (params.subOrganizationName.trim() === '') {
    throw new QkError('REQUEST_INVALID', `${fieldPrefix}subOrganizationName: must not be empty`, {
      issues: [{ path: `${fieldPrefix}subOrganizationName`, message: 'must not be empty' }],
    });
  }
  const rootUsers = checkNewUsers(store, undefined, params.rootUsers, `${fieldPrefix}rootUsers`);
  checkThreshold(params.rootQuorumThreshold, params.rootUsers.length, `${fieldPrefix}rootQuorumThreshold`);
  if (params.wallet !== undefined) checkNewWallet(store, undefined, params.wallet, `${fieldPrefix}wallet.`);
  checkVerificationPresence(params, fieldPrefix);
  const verification = now === undefined ? undefined : checkContactVerification(store, parentId, params, now, fieldPrefix);
  return { params, rootUsers, verification, fieldPrefix };
}

/**
 * Creates a checked sub-organization of `target.organizationId`: the organization, its root users with their
 * credentials, the root quorum, its sign-in features, the verified contact and the wallet.
 */
export async function createSubOrganization(target: WalletTarget, oidc: OidcVerifier, checked: CheckedSubOrganization) {
  const { params } = checked;
  const { store, now } = target;
  const subOrganizationId = target.newId();
  store.organizations.insert({
    id: subOrganizationId,
    parentId: target.organizationId,
    name: params.subOrganizationName,
    rootQuorumThreshold: params.rootQuorumThreshold,
    now,
  });
  const inSubOrganization = { ...target, organizationId: subOrganizationId };
  const rootUserIds = await createUsers(inSubOrganization, oidc, checked.rootUsers);
  store.organizations.setRootQuorum(subOrganizationId, { threshold: params.rootQuorumThreshold, userIds: rootUserIds }, now);
  for (const [flag, name] of SUB_ORGANIZATION_FEATURES) {
    if (params[flag] !== true) store.organizations.setFeature(subOrganizationId, { name, value: undefined });
  }
  if (checked.verification !== undefined) {
    const userId = rootUserIds[checked.verification.rootUserIndex]!;
    applyContactVerification(store, checked.verification, { organizationId: subOrganizationId, userId }, now);
  }
  const wallet = params.wallet === undefined ? undefined : await createWallet(inSubOrganization, params.wallet, `${checked.fieldPrefix}wallet.`);
  return { subOrganizationId, rootUserIds, ...(wallet === undefined ? {} : { wallet }) };
}

function checkThreshold(threshold: number, members: number, field: string): void {
  if (threshold < 1) {
    throw new QkError('REQUEST_INVALID', `quorum threshold must be non-zero integer: ${field} is ${threshold}`, {
      issues: [{ path: field, message: 'must be at least 1' }],
    });
  }
  if (threshold > members) {
    throw new QkError('REQUEST_INVALID', `${field} ${threshold} exceeds the ${members} quorum member(s); it can be at most ${members}`, {
      issues: [{ path: field, message: `must be at most ${members}` }],
    });
  }
}

function checkRootQuorum(store: Repositories, organizationId: string, params: { threshold: number; userIds: string[] }): void {
  requireDistinct(params.userIds, 'parameters.userIds');
  for (const userId of params.userIds) {
    try {
      requireUser(store, organizationId, userId);
    } catch {
      throw new QkError('REQUEST_INVALID', `quorum users missing: ${userId} is not a user of organization ${organizationId}`, { userId });
    }
  }
  checkThreshold(params.threshold, params.userIds.length, 'parameters.threshold');
}

function checkDeletable(store: Repositories, organizationId: string, deleteWithoutExport: boolean): void {
  const organization = store.organizations.get(organizationId);
  if (organization?.parentId === undefined) {
    throw new QkError('FAILED_PRECONDITION', `organization ${organizationId} is not a sub-organization; only sub-organizations can be deleted`, {
      organizationId,
    });
  }
  refuseUnexportedDeletion(
    unexportedKeyMaterial(store, organizationId),
    deleteWithoutExport,
    (names) => `sub-organization ${organizationId} holds ${names}, never exported`,
    { organizationId },
  );
}

/** Wallets and private keys of the organization that were never exported, named for the error message. */
function unexportedKeyMaterial(store: Repositories, organizationId: string): string[] {
  return [
    ...store.wallets
      .listByOrganization(organizationId)
      .filter((w) => !w.exported)
      .map((w) => `wallet ${w.id}`),
    ...store.privateKeys
      .listByOrganization(organizationId)
      .filter((k) => !k.exported)
      .map((k) => `private key ${k.id}`),
  ];
}

function checkOrganizationName(name: string): void {
  if (name.trim() === '') {
    throw new QkError('REQUEST_INVALID', 'parameters.organizationName: must not be empty', {
      issues: [{ path: 'parameters.organizationName', message: 'must not be empty' }],
    });
  }
}

function requireFeature(store: Repositories, organizationId: string, name: string): void {
  if (!store.organizations.features(organizationId).some((feature) => feature.name === name)) {
    throw new QkError('NOT_FOUND', `organization ${organizationId} has no feature ${name} to remove`, {
      issues: [{ path: 'parameters.name', message: 'feature not set' }],
    });
  }
}

export function organizationsFamily(options: { oidc: OidcVerifier }): Family {
  return {
    queries: {
      get_organization(ctx) {
        const { store, organizationId } = ctx;
        return {
          organizationData: {
            organizationId,
            name: ctx.organization.name,
            users: store.users.listByOrganization(organizationId).map((user) => userView(store, user)),
            policies: store.policies.listByOrganization(organizationId).map(policyView),
            invitations: store.invitations.listByOrganization(organizationId).map(invitationView),
            tags: store.userTags.listByOrganization(organizationId).map(userTagView),
            rootQuorum: quorumView(store, organizationId),
            features: store.organizations.features(organizationId).map(featureView),
            wallets: store.wallets.listByOrganization(organizationId).map(walletView),
            privateKeys: store.privateKeys.listByOrganization(organizationId).map(privateKeyView),
          },
        };
      },
      get_organization_configs: (ctx) => ({
        configs: {
          features: ctx.store.organizations.features(ctx.organizationId).map(featureView),
          quorum: quorumView(ctx.store, ctx.organizationId),
        },
      }),
      list_suborgs: listSubOrganizations,
    },
    activities: {
      create_sub_organization: {
        validate(store, organizationId, params) {
          checkSubOrganization(store, organizationId, params, undefined);
        },
        execute: (ctx, params) => createSubOrganization(ctx, options.oidc, checkSubOrganization(ctx.store, ctx.organizationId, params, ctx.now)),
      },
      delete_sub_organization: {
        validate(store, organizationId, params) {
          checkDeletable(store, organizationId, params.deleteWithoutExport === true);
        },
        execute(ctx, params) {
          const { store, organizationId } = ctx;
          checkDeletable(store, organizationId, params.deleteWithoutExport === true);
          // Users take their credentials, tags and quorum membership with them; sealed key material is
          // erased; the activity log stays.
          for (const wallet of store.wallets.listByOrganization(organizationId)) {
            store.wallets.delete(organizationId, wallet.id);
            ctx.enclave.forgetWallet(wallet.id);
          }
          for (const key of store.privateKeys.listByOrganization(organizationId)) {
            store.privateKeys.delete(organizationId, key.id);
            ctx.enclave.forgetPrivateKey(key.id);
          }
          store.secrets.deleteByOrganization(organizationId);
          store.oauth2Credentials.deleteByOrganization(organizationId);
          store.fiatOnRampCredentials.deleteByOrganization(organizationId);
          for (const user of store.users.listByOrganization(organizationId)) store.users.delete(user.id);
          for (const tag of store.userTags.listByOrganization(organizationId)) store.userTags.delete(tag.id);
          for (const policy of store.policies.listByOrganization(organizationId)) store.policies.delete(organizationId, policy.id);
          for (const invitation of store.invitations.listByOrganization(organizationId)) store.invitations.delete(organizationId, invitation.id);
          store.organizations.markDeleted(organizationId, ctx.now);
          return { subOrganizationUuid: organizationId };
        },
      },
      update_organization_name: {
        validate(_store, _organizationId, params) {
          checkOrganizationName(params.organizationName);
        },
        execute(ctx, params) {
          checkOrganizationName(params.organizationName);
          ctx.store.organizations.rename(ctx.organizationId, params.organizationName, ctx.now);
          return { organizationId: ctx.organizationId, organizationName: params.organizationName };
        },
      },
      set_organization_feature: {
        execute(ctx, params) {
          // An empty value is no value: the feature is on, with nothing to configure.
          ctx.store.organizations.setFeature(ctx.organizationId, { name: params.name, value: params.value === '' ? undefined : params.value });
          return { features: ctx.store.organizations.features(ctx.organizationId).map(featureView) };
        },
      },
      remove_organization_feature: {
        validate: (store, organizationId, params) => requireFeature(store, organizationId, params.name),
        execute(ctx, params) {
          requireFeature(ctx.store, ctx.organizationId, params.name);
          ctx.store.organizations.removeFeature(ctx.organizationId, params.name);
          return { features: ctx.store.organizations.features(ctx.organizationId).map(featureView) };
        },
      },
      update_root_quorum: {
        validate: checkRootQuorum,
        execute(ctx, params) {
          checkRootQuorum(ctx.store, ctx.organizationId, params);
          ctx.store.organizations.setRootQuorum(ctx.organizationId, { threshold: params.threshold, userIds: params.userIds }, ctx.now);
          return {};
        },
      },
    },
  };
}
