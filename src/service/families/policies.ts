import type { PolicyEffect } from '../../shared/api/enums';
import { toTimestamp } from '../../shared/api/timestamps';
import { QkError } from '../../shared/errors';
import { checkPolicyExpression, type PolicyExpressionKind } from '../../shared/policy';
import type { ActivityContext, Family } from '../activities/context';
import { policyTimeStatus } from '../authorize';
import type { Repositories } from '../store';
import type { PolicyRecord } from '../store/policies';

/** Per-organization policy limit (docs/service.md#limits). */
export const MAX_POLICIES_PER_ORGANIZATION = 100;

export function policyView(policy: PolicyRecord) {
  return {
    policyId: policy.id,
    policyName: policy.name,
    effect: policy.effect,
    createdAt: toTimestamp(policy.createdAt),
    updatedAt: toTimestamp(policy.updatedAt),
    notes: policy.notes,
    consensus: policy.consensus,
    condition: policy.condition,
    // Optional on v1Policy (early access in Turnkey): absent for a policy that is always active.
    ...(policy.time === '' ? {} : { time: policy.time }),
  };
}

/** Rejects an expression that does not parse or type-check, naming the field and position. */
function checkExpression(text: string | undefined, kind: PolicyExpressionKind, field: string): string {
  // Absent or empty, it constrains nothing: no need to parse it (an update that leaves it as it is, on every request).
  if (text === undefined || text === '') return '';
  const checked = checkPolicyExpression(text, kind);
  if (!checked.ok) {
    throw new QkError('POLICY_PARSE_ERROR', `invalid policy ${kind}: ${field}: ${checked.error.message}`, {
      ...checked.error.details,
      field,
    });
  }
  return text ?? '';
}

interface PolicyFields {
  name: string;
  effect: PolicyEffect;
  condition: string;
  consensus: string;
  time: string;
  notes: string;
}

function requireUniqueName(store: Repositories, organizationId: string, name: string, exceptId?: string): void {
  const existing = store.policies.findByName(organizationId, name);
  if (existing !== undefined && existing.id !== exceptId) {
    throw new QkError('REQUEST_INVALID', `policy label must be unique: a policy named "${name}" already exists (${existing.id})`, {
      policyId: existing.id,
    });
  }
}

function insertPolicy(ctx: ActivityContext, fields: PolicyFields): string {
  requireUniqueName(ctx.store, ctx.organizationId, fields.name);
  if (ctx.store.policies.countByOrganization(ctx.organizationId) >= MAX_POLICIES_PER_ORGANIZATION) {
    throw new QkError('LIMIT_EXCEEDED', `an organization holds at most ${MAX_POLICIES_PER_ORGANIZATION} policies; delete one first`);
  }
  const id = ctx.newId();
  ctx.store.policies.insert({ id, organizationId: ctx.organizationId, ...fields, now: ctx.now });
  return id;
}

function requirePolicy(ctx: ActivityContext, policyId: string): PolicyRecord {
  const policy = ctx.store.policies.get(ctx.organizationId, policyId);
  if (policy === undefined) {
    throw new QkError('NOT_FOUND', `no policy ${policyId} in organization ${ctx.organizationId}`, { policyId });
  }
  return policy;
}

/** delete_policies names at least one policy of the organization, each once. */
function checkPolicyDeletions(store: Repositories, organizationId: string, policyIds: readonly string[]): void {
  if (policyIds.length === 0) {
    throw new QkError('REQUEST_INVALID', 'parameters.policyIds: name at least one policy', {
      issues: [{ path: 'parameters.policyIds', message: 'empty' }],
    });
  }
  policyIds.forEach((policyId, index) => {
    if (store.policies.get(organizationId, policyId) === undefined) {
      throw new QkError('NOT_FOUND', `parameters.policyIds[${index}]: no policy ${policyId} in organization ${organizationId}`, { policyId });
    }
    if (policyIds.indexOf(policyId) !== index) throw new QkError('REQUEST_INVALID', `parameters.policyIds: policy ${policyId} appears twice`);
  });
}

function fieldsOf(
  params: {
    policyName: string;
    effect: PolicyEffect;
    condition?: string | undefined;
    consensus?: string | undefined;
    notes: string;
    time?: string | undefined;
  },
  prefix: string,
): PolicyFields {
  return {
    name: params.policyName,
    effect: params.effect,
    condition: checkExpression(params.condition, 'condition', `${prefix}condition`),
    consensus: checkExpression(params.consensus, 'consensus', `${prefix}consensus`),
    time: checkExpression(params.time, 'time', `${prefix}time`),
    notes: params.notes,
  };
}

export const policiesFamily: Family = {
  queries: {
    get_active_policies(ctx) {
      return {
        statuses: ctx.store.policies.listByOrganization(ctx.organizationId).map((policy) => ({
          organizationId: ctx.organizationId,
          policyId: policy.id,
          ...policyTimeStatus(policy, ctx.now),
          ...(policy.time.trim() === '' ? {} : { timeExpr: policy.time }),
        })),
        evaluatedAtMs: String(ctx.now),
      };
    },
    get_policy(ctx, request) {
      const policy = ctx.store.policies.get(ctx.organizationId, request.policyId);
      if (policy === undefined) {
        throw new QkError('NOT_FOUND', `no policy ${request.policyId} in organization ${ctx.organizationId}`, {
          policyId: request.policyId,
        });
      }
      return { policy: policyView(policy) };
    },
    list_policies(ctx) {
      return { policies: ctx.store.policies.listByOrganization(ctx.organizationId).map(policyView) };
    },
  },
  activities: {
    create_policy: {
      validate(store, organizationId, params) {
        requireUniqueName(store, organizationId, fieldsOf(params, 'parameters.').name);
      },
      execute: (ctx, params) => ({ policyId: insertPolicy(ctx, fieldsOf(params, 'parameters.')) }),
    },
    create_policies: {
      validate(store, organizationId, params) {
        const names = new Set<string>();
        params.policies.forEach((policy, index) => {
          const { name } = fieldsOf(policy, `parameters.policies[${index}].`);
          if (names.has(name)) {
            throw new QkError('REQUEST_INVALID', `parameters.policies[${index}].policyName: policy label must be unique; "${name}" appears twice`);
          }
          names.add(name);
          requireUniqueName(store, organizationId, name);
        });
      },
      execute(ctx, params) {
        const all = params.policies.map((policy, index) => fieldsOf(policy, `parameters.policies[${index}].`));
        return { policyIds: all.map((fields) => insertPolicy(ctx, fields)) };
      },
    },
    update_policy: {
      validate(_store, _organizationId, params) {
        checkExpression(params.policyCondition, 'condition', 'parameters.policyCondition');
        checkExpression(params.policyConsensus, 'consensus', 'parameters.policyConsensus');
        checkExpression(params.time, 'time', 'parameters.time');
      },
      execute(ctx, params) {
        const policy = requirePolicy(ctx, params.policyId);
        const name = params.policyName ?? policy.name;
        if (name !== policy.name) requireUniqueName(ctx.store, ctx.organizationId, name, policy.id);
        ctx.store.policies.update(
          {
            ...policy,
            name,
            effect: params.policyEffect ?? policy.effect,
            condition:
              params.policyCondition === undefined
                ? policy.condition
                : checkExpression(params.policyCondition, 'condition', 'parameters.policyCondition'),
            consensus:
              params.policyConsensus === undefined
                ? policy.consensus
                : checkExpression(params.policyConsensus, 'consensus', 'parameters.policyConsensus'),
            time: params.time === undefined ? policy.time : checkExpression(params.time, 'time', 'parameters.time'),
            notes: params.policyNotes ?? policy.notes,
            now: ctx.now,
          },
          policy,
        );
        return { policyId: policy.id };
      },
    },
    delete_policies: {
      validate(store, organizationId, params) {
        checkPolicyDeletions(store, organizationId, params.policyIds);
      },
      execute(ctx, params) {
        checkPolicyDeletions(ctx.store, ctx.organizationId, params.policyIds);
        for (const policyId of params.policyIds) ctx.store.policies.delete(ctx.organizationId, policyId);
        return { policyIds: params.policyIds };
      },
    },
    delete_policy: {
      execute(ctx, params) {
        requirePolicy(ctx, params.policyId);
        ctx.store.policies.delete(ctx.organizationId, params.policyId);
        return { policyId: params.policyId };
      },
    },
  },
};
