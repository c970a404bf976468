/**
 * IP allowlists (docs/service.md#ip-allowlists): get_ip_allowlist, set_ip_allowlist, remove_ip_allowlist. An
 * organization has one list for all its credentials and may give an API key a list of its own, which replaces the
 * organization's for that key; the pipeline enforces them (auth/ip-allowlist.ts).
 */
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import { checkCidr } from '../auth/ip-allowlist';
import type { Repositories } from '../store';
import type { EvaluationErrorOutcome, IpAllowlistRecord, IpAllowlistRule } from '../store/ip-allowlists';

interface AllowlistChange {
  publicKey?: string | undefined;
  enabled?: boolean | undefined;
  rules?: { cidr: string; label?: string | undefined }[] | undefined;
  /** ALLOW or DENY (the request schema checks it). */
  onEvaluationError?: string | undefined;
}

/** `v1IpAllowlist`; with no list stored, an empty one (for the organization, switched off). */
function allowlistView(organizationId: string, publicKey: string | undefined, list: IpAllowlistRecord | undefined) {
  return {
    organizationId,
    rules: (list?.rules ?? []).map((rule) => ({
      cidr: rule.cidr,
      ...(rule.label === undefined ? {} : { label: rule.label }),
      createdAt: String(rule.createdAt),
    })),
    ...(publicKey === undefined ? { enabled: list?.enabled ?? false } : { publicKey }),
    ...(list === undefined ? {} : { onEvaluationError: list.onEvaluationError }),
  };
}

/** The public key as API keys are stored (lower-case hex), which must be an API key of the organization. */
function apiKeyOf(store: Repositories, organizationId: string, publicKey: string | undefined): string | undefined {
  if (publicKey === undefined) return undefined;
  const stored = publicKey.toLowerCase();
  if (!store.apiKeys.findByPublicKey(stored).some((key) => key.organizationId === organizationId)) {
    throw new QkError('NOT_FOUND', `parameters.publicKey: ${publicKey} is not an API key of organization ${organizationId}`, { publicKey });
  }
  return stored;
}

function invalid(field: string, message: string): QkError {
  return new QkError('REQUEST_INVALID', `${field}: ${message}`, { issues: [{ path: field, message }] });
}

/**
 * The list a set_ip_allowlist leaves: the members it gives replace the stored ones, the others are kept (a new
 * organization list starts enabled, every new list refuses on evaluation errors). A list must keep at least one rule
 * (our choice: an empty list would lock every request out; remove it or switch it off instead).
 */
function changedList(
  store: Repositories,
  organizationId: string,
  params: AllowlistChange,
  now: number,
): Omit<IpAllowlistRecord, 'createdAt' | 'updatedAt'> {
  const publicKey = apiKeyOf(store, organizationId, params.publicKey);
  if (publicKey !== undefined && params.enabled !== undefined) {
    throw invalid(
      'parameters.enabled',
      'only the organization-level allowlist can be switched on or off; omit it for an API key, whose list applies while it exists',
    );
  }
  const stored = store.ipAllowlists.get(organizationId, publicKey);
  if (stored === undefined && params.rules === undefined) throw invalid('parameters.rules', 'required for a new allowlist');
  let rules: IpAllowlistRule[] = stored?.rules ?? [];
  if (params.rules !== undefined) {
    if (params.rules.length === 0) {
      throw invalid(
        'parameters.rules',
        'must list at least one CIDR block; to lift the allowlist use remove_ip_allowlist (or enabled: false for the organization)',
      );
    }
    rules = params.rules.map((rule, index) => {
      checkCidr(rule.cidr, `parameters.rules[${index}].cidr`);
      if (params.rules!.findIndex((other) => other.cidr === rule.cidr) !== index)
        throw invalid(`parameters.rules[${index}].cidr`, `${rule.cidr} is listed twice`);
      const kept = stored?.rules.find((existing) => existing.cidr === rule.cidr);
      return { cidr: rule.cidr, label: rule.label, createdAt: kept?.createdAt ?? now };
    });
  }
  return {
    organizationId,
    publicKey,
    enabled: publicKey === undefined ? (params.enabled ?? stored?.enabled ?? true) : undefined,
    onEvaluationError: evaluationErrorOutcomeOf(params.onEvaluationError) ?? stored?.onEvaluationError ?? 'DENY',
    rules,
  };
}

function requireList(store: Repositories, organizationId: string, params: { publicKey?: string | undefined }): string | undefined {
  const publicKey = apiKeyOf(store, organizationId, params.publicKey);
  if (store.ipAllowlists.get(organizationId, publicKey) === undefined) {
    throw new QkError(
      'NOT_FOUND',
      `${publicKey === undefined ? `organization ${organizationId}` : `API key ${publicKey}`} has no IP allowlist to remove`,
    );
  }
  return publicKey;
}

export const ipAllowlistsFamily: Family = {
  queries: {
    get_ip_allowlist(ctx, request) {
      const publicKey = request.publicKey?.toLowerCase();
      return { allowlist: allowlistView(ctx.organizationId, publicKey, ctx.store.ipAllowlists.get(ctx.organizationId, publicKey)) };
    },
  },
  activities: {
    set_ip_allowlist: {
      // The time only stamps new rules; validation checks everything else.
      validate: (store, organizationId, params) => void changedList(store, organizationId, params, 0),
      execute(ctx, params) {
        ctx.store.ipAllowlists.put(changedList(ctx.store, ctx.organizationId, params, ctx.now), ctx.now);
        return {};
      },
    },
    remove_ip_allowlist: {
      validate: (store, organizationId, params) => void requireList(store, organizationId, params),
      execute(ctx, params) {
        ctx.store.ipAllowlists.delete(ctx.organizationId, requireList(ctx.store, ctx.organizationId, params));
        return {};
      },
    },
  },
};

/** The outcome a request names (its schema admits only ALLOW or DENY), as the store's type. */
function evaluationErrorOutcomeOf(value: string | undefined): EvaluationErrorOutcome | undefined {
  return value === 'ALLOW' || value === 'DENY' ? value : undefined;
}
