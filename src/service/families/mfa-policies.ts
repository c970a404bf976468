/**
 * MFA policies (docs/service.md#mfa-policies): per user, a condition in the policy language and ordered steps of
 * authentication methods. When a user's approval (a proposal is its proposer's first) is of an activity that one of
 * their MFA policies matches, the approval counts only once every step is met by a credential the user stamped an
 * approval of that activity with; the activity waits in ACTIVITY_STATUS_AUTHENTICATORS_NEEDED meanwhile.
 */
import { QkError } from '../../shared/errors';
import { checkPolicyExpression, MAX_DECISION_STEPS, policyFieldHolds, StepBudget } from '../../shared/policy';
import type { ActivityContext, AuthenticatorHooks, Family } from '../activities/context';
import { mfaPolicyView } from '../activities/views';
import { WEBAUTHN_CREDENTIAL_TYPE } from '../auth/credentials';
import { conditionContext, type ConditionRequest } from '../authorize';
import type { Repositories } from '../store';
import type { VoteRecord } from '../store/activities';
import type { AuthenticationMethod, MfaPolicyRecord, MfaRequirementRecord, RequiredStep } from '../store/mfa-policies';
import { ConnectionMemo, deepFrozen } from '../store/table-memo';
import type { UserRecord } from '../store/users';

/** MFA policies one user may hold (**our choice**: Turnkey documents no limit; as many as authenticators). */
export const MAX_MFA_POLICIES_PER_USER = 10;
/** Steps in one policy, and methods in one step (**our choice**). */
const MAX_STEPS = 6;
const MAX_METHODS_PER_STEP = 6;

const PASSKEY = 'AUTHENTICATION_TYPE_PASSKEY' as const;
const API_KEY = 'AUTHENTICATION_TYPE_API_KEY' as const;
const SESSION = 'AUTHENTICATION_TYPE_SESSION' as const;
const EMAIL_OTP = 'AUTHENTICATION_TYPE_EMAIL_OTP' as const;
const SMS_OTP = 'AUTHENTICATION_TYPE_SMS_OTP' as const;
const OAUTH = 'AUTHENTICATION_TYPE_OAUTH' as const;

/** Credentials a login issues: their stamps present a session, never the method the login itself used. */
const SESSION_CREDENTIAL_TYPES = new Set([
  'CREDENTIAL_TYPE_LOGIN',
  'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256',
  'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256',
  'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256',
  'CREDENTIAL_TYPE_OAUTH_KEY_P256',
  'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256',
]);

/** The method an approval's stamp presents: a passkey, an API key or a session (with its profile). */
function presentedMethod(store: Repositories, approval: VoteRecord): AuthenticationMethod {
  if (approval.credentialType === WEBAUTHN_CREDENTIAL_TYPE) return { type: PASSKEY, id: approval.credentialId };
  if (!SESSION_CREDENTIAL_TYPES.has(approval.credentialType)) return { type: API_KEY, id: approval.credentialId };
  const profileId = store.apiKeys.get(approval.credentialId)?.sessionProfileId;
  return profileId === undefined ? { type: SESSION } : { type: SESSION, id: profileId };
}

function meets(presented: AuthenticationMethod, required: AuthenticationMethod): boolean {
  return presented.type === required.type && (required.id === undefined || required.id === presented.id);
}

function stepMet(step: RequiredStep, presented: readonly AuthenticationMethod[]): boolean {
  return step.any.some((required) => presented.some((method) => meets(method, required)));
}

function allStepsMet(steps: readonly RequiredStep[], presented: readonly AuthenticationMethod[]): boolean {
  return steps.every((step) => stepMet(step, presented));
}

function methodInWords(method: AuthenticationMethod): string {
  return method.id === undefined ? method.type : `${method.type} ${method.id}`;
}

/** Per connection: each user's MFA policies, read once while the table is unchanged instead of for every approval. */
const policiesByUser = new ConnectionMemo<readonly MfaPolicyRecord[]>(['mfa_policies']);

function mfaPoliciesOf(store: Repositories, userId: string): readonly MfaPolicyRecord[] {
  return policiesByUser.read(store, userId, () => deepFrozen(store.mfaPolicies.listByUser(userId)));
}

/**
 * The user's first MFA policy, in order, whose condition holds for the activity; only one is ever enforced. A condition
 * that cannot be evaluated (a keyword the activity lacks, its step budget spent) is enforced (**our choice**: a request
 * must not skip MFA by being one its condition cannot read). The user's policies share one decision's step budget.
 */
function enforcedPolicy(store: Repositories, request: ConditionRequest, userId: string): MfaPolicyRecord | undefined {
  const policies = mfaPoliciesOf(store, userId);
  if (policies.length === 0) return undefined;
  const context = conditionContext(request);
  const budget = new StepBudget(MAX_DECISION_STEPS);
  return policies.find((policy) => policyFieldHolds(policy.condition, 'condition', context, budget) !== false);
}

const authenticatorHooks: AuthenticatorHooks = {
  recordRequirement(store, request, approval) {
    const policy = enforcedPolicy(store, request, approval.userId);
    if (policy === undefined) return false;
    const presentedMethods = [presentedMethod(store, approval)];
    const satisfied = allStepsMet(policy.requiredMethods, presentedMethods);
    store.mfaPolicies.putRequirement({
      activityId: approval.activityId,
      userId: approval.userId,
      mfaPolicyId: policy.id,
      requiredMethods: policy.requiredMethods,
      presentedMethods,
      satisfied,
      now: approval.createdAt,
    });
    return !satisfied;
  },
  present(store, approval) {
    const requirement = store.mfaPolicies.requirement(approval.activityId, approval.userId);
    if (requirement === undefined || requirement.satisfied) return;
    const method = presentedMethod(store, approval);
    const open = requirement.requiredMethods.filter((step) => !stepMet(step, requirement.presentedMethods));
    if (!open.some((step) => stepMet(step, [method]))) {
      const needed = open.map((step) => step.any.map(methodInWords).join(' or ')).join('; and ');
      throw new QkError(
        'AUTHENTICATOR_NOT_ACCEPTED',
        `this approval is stamped with ${methodInWords(method)}, which meets no step still open of MFA policy ${requirement.mfaPolicyId} for user ${approval.userId} on activity ${approval.activityId}; approve it again stamped with: ${needed}`,
        { activityId: approval.activityId, userId: approval.userId, mfaPolicyId: requirement.mfaPolicyId, presented: method, open },
      );
    }
    const presentedMethods = [...requirement.presentedMethods, method];
    store.mfaPolicies.putRequirement({
      ...requirement,
      presentedMethods,
      satisfied: allStepsMet(requirement.requiredMethods, presentedMethods),
      now: approval.createdAt,
    });
  },
  awaited(store, activityId) {
    return new Set(
      store.mfaPolicies
        .requirementsOf(activityId)
        .filter((requirement) => !requirement.satisfied)
        .map((requirement) => requirement.userId),
    );
  },
};

/** v1MfaStatus: the methods presented that meet a step, and the steps as the requirement was raised. */
function mfaStatusView(requirement: MfaRequirementRecord) {
  return {
    mfaPolicyId: requirement.mfaPolicyId,
    userId: requirement.userId,
    satisfied: requirement.satisfied,
    satisfiedMethods: requirement.presentedMethods.filter((method) => requirement.requiredMethods.some((step) => stepMet(step, [method]))),
    requiredMethods: requirement.requiredMethods,
  };
}

function userOf(store: Repositories, organizationId: string, userId: string): UserRecord {
  const user = store.users.get(userId);
  if (user === undefined || user.organizationId !== organizationId) {
    throw new QkError('NOT_FOUND', `no user ${userId} in organization ${organizationId}`, { userId, organizationId });
  }
  return user;
}

function policyOf(store: Repositories, organizationId: string, userId: string, mfaPolicyId: string): MfaPolicyRecord {
  const policy = store.mfaPolicies.get(organizationId, userId, mfaPolicyId);
  if (policy === undefined) {
    throw new QkError('NOT_FOUND', `no MFA policy ${mfaPolicyId} of user ${userId} in organization ${organizationId}`, { mfaPolicyId, userId });
  }
  return policy;
}

function checkCondition(condition: string): string {
  const checked = checkPolicyExpression(condition, 'condition');
  if (!checked.ok) {
    throw new QkError('POLICY_PARSE_ERROR', `invalid MFA policy condition: parameters.condition: ${checked.error.message}`, {
      ...checked.error.details,
      field: 'condition',
    });
  }
  return condition;
}

/** `order` is an int64 on the wire; 0 or more here, and at most 2^53 - 1 so it sorts exactly. */
function checkOrder(order: string): number {
  const value = Number(order);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new QkError(
      'REQUEST_INVALID',
      `parameters.order: ${order} is not an order from 0 to ${Number.MAX_SAFE_INTEGER}; lower orders are evaluated first`,
      {
        issues: [{ path: 'parameters.order', message: 'out of range' }],
      },
    );
  }
  return value;
}

/** Whether `user` holds, or can obtain, a credential that presents `method` (Turnkey's satisfiability table). */
function canPresent(store: Repositories, user: UserRecord, method: AuthenticationMethod): boolean {
  switch (method.type) {
    case PASSKEY:
      return store.authenticators.listByUser(user.id).some((passkey) => method.id === undefined || passkey.id === method.id);
    case API_KEY:
      return store.apiKeys
        .listByUser(user.id)
        .some(
          (key) =>
            !SESSION_CREDENTIAL_TYPES.has(key.credentialType) &&
            key.expirationSeconds === undefined &&
            (method.id === undefined || key.id === method.id),
        );
    case SESSION:
      return method.id === undefined || store.sessionProfiles.get(method.id) !== undefined;
    case EMAIL_OTP:
      return user.email !== undefined;
    case SMS_OTP:
      return user.phoneNumber !== undefined;
    case OAUTH:
      return store.oauthProviders.listByUser(user.id).some((provider) => method.id === undefined || provider.id === method.id);
    default:
      return false;
  }
}

/** The steps as stored: each non-empty and one the user can meet today, OTPs without ids (they have none). */
function checkSteps(store: Repositories, user: UserRecord, policyName: string, steps: readonly RequiredStep[]): RequiredStep[] {
  if (steps.length === 0 || steps.length > MAX_STEPS) {
    throw new QkError(
      'REQUEST_INVALID',
      `parameters.requiredAuthenticationMethods: give 1 to ${MAX_STEPS} steps, each met by any one of its methods`,
      {
        issues: [{ path: 'parameters.requiredAuthenticationMethods', message: `${steps.length} steps` }],
      },
    );
  }
  return steps.map((step, index) => {
    const path = `parameters.requiredAuthenticationMethods[${index}].any`;
    if (step.any.length === 0 || step.any.length > MAX_METHODS_PER_STEP) {
      throw new QkError('REQUEST_INVALID', `${path}: give 1 to ${MAX_METHODS_PER_STEP} methods`, {
        issues: [{ path, message: `${step.any.length} methods` }],
      });
    }
    for (const method of step.any) {
      if (method.id !== undefined && (method.type === EMAIL_OTP || method.type === SMS_OTP)) {
        throw new QkError('REQUEST_INVALID', `${path}: ${method.type} has no id to name; leave id out`, {
          issues: [{ path, message: 'id on an OTP method' }],
        });
      }
    }
    if (!step.any.some((method) => canPresent(store, user, method))) {
      throw new QkError(
        'REQUEST_INVALID',
        `user (${user.id}) cannot satisfy mfa policy requirement: mfa policy '${policyName}' requires one of [${step.any.map(methodInWords).join(', ')}] but the user has no such credential; add it first`,
        { userId: user.id, issues: [{ path, message: 'no matching credential' }] },
      );
    }
    return { any: step.any.map((method) => (method.id === undefined ? { type: method.type } : { type: method.type, id: method.id })) };
  });
}

function requireRoomFor(ctx: ActivityContext, userId: string): void {
  if (ctx.store.mfaPolicies.countByUser(userId) >= MAX_MFA_POLICIES_PER_USER) {
    throw new QkError('LIMIT_EXCEEDED', `user ${userId} holds at most ${MAX_MFA_POLICIES_PER_USER} MFA policies; delete one first`, { userId });
  }
}

export const mfaPoliciesFamily: Family = {
  hooks: { authenticators: authenticatorHooks },
  queries: {
    get_mfa_policies(ctx, request) {
      const user = userOf(ctx.store, ctx.organizationId, request.userId);
      return { mfaPolicies: ctx.store.mfaPolicies.listByUser(user.id).map(mfaPolicyView) };
    },
    get_mfa_policy: (ctx, request) => ({ mfaPolicy: mfaPolicyView(policyOf(ctx.store, ctx.organizationId, request.userId, request.mfaPolicyId)) }),
    get_mfa_status(ctx, request) {
      if (ctx.store.activities.get(ctx.organizationId, request.activityId) === undefined) {
        throw new QkError('ACTIVITY_NOT_FOUND', `no activity ${request.activityId} in organization ${ctx.organizationId}`, {
          activityId: request.activityId,
        });
      }
      const requirements = ctx.store.mfaPolicies.requirementsOf(request.activityId);
      return {
        mfaStatuses: requirements.filter((requirement) => request.userId === undefined || requirement.userId === request.userId).map(mfaStatusView),
      };
    },
  },
  activities: {
    create_mfa_policy: {
      validate(store, organizationId, params) {
        checkCondition(params.condition);
        checkOrder(params.order);
        checkSteps(store, userOf(store, organizationId, params.userId), params.mfaPolicyName, params.requiredAuthenticationMethods);
      },
      execute(ctx, params) {
        const user = userOf(ctx.store, ctx.organizationId, params.userId);
        requireRoomFor(ctx, user.id);
        const id = ctx.newId();
        ctx.store.mfaPolicies.insert({
          id,
          organizationId: ctx.organizationId,
          userId: user.id,
          name: params.mfaPolicyName,
          condition: checkCondition(params.condition),
          requiredMethods: checkSteps(ctx.store, user, params.mfaPolicyName, params.requiredAuthenticationMethods),
          order: checkOrder(params.order),
          notes: params.notes,
          now: ctx.now,
        });
        return { mfaPolicyId: id };
      },
    },
    update_mfa_policy: {
      validate(store, organizationId, params) {
        if (params.condition !== undefined) checkCondition(params.condition);
        if (params.order !== undefined) checkOrder(params.order);
      },
      execute(ctx, params) {
        const user = userOf(ctx.store, ctx.organizationId, params.userId);
        const stored = policyOf(ctx.store, ctx.organizationId, user.id, params.mfaPolicyId);
        const name = params.mfaPolicyName ?? stored.name;
        ctx.store.mfaPolicies.update({
          id: stored.id,
          organizationId: ctx.organizationId,
          userId: user.id,
          name,
          condition: params.condition === undefined ? stored.condition : checkCondition(params.condition),
          requiredMethods:
            params.requiredAuthenticationMethods === undefined
              ? stored.requiredMethods
              : checkSteps(ctx.store, user, name, params.requiredAuthenticationMethods),
          order: params.order === undefined ? stored.order : checkOrder(params.order),
          notes: params.notes ?? stored.notes,
          now: ctx.now,
        });
        return { mfaPolicyId: stored.id };
      },
    },
    delete_mfa_policy: {
      execute(ctx, params) {
        const policy = policyOf(ctx.store, ctx.organizationId, params.userId, params.mfaPolicyId);
        ctx.store.mfaPolicies.delete(ctx.organizationId, policy.userId, policy.id);
        return { mfaPolicyId: policy.id };
      },
    },
  },
};
