/**
 * Lints a policy being edited against the organization as it stands (docs/service.md#policy-lint): main reads the
 * root quorum, the users, the saved policies and the uploaded interfaces' names, and, only when a deny looks as if it
 * can never match, what the recorded activities say about it.
 */
import type { SmartContractInterface } from '../../shared/api';
import { solanaIdlNames } from '../../shared/chains/solana';
import { lintPolicy, type LintContext, type LintFinding, type LintInterface, type LintPolicy } from '../../shared/policy/lint';
import type { ApiClient } from '../client/api-client';
import { contractInterfaceTypeOf } from '../signing/organization';
import { readRehearsalHistory } from './history';

/** How many of the newest recorded activities are read for a deny's history. */
export const LINT_HISTORY = 200;

export async function lintDraftPolicy(client: ApiClient, policy: LintPolicy): Promise<LintFinding[]> {
  const [policies, users, contracts, configs] = await Promise.all([
    client.query('list_policies', {}).then((answer) => answer.policies),
    client.query('list_users', {}).then((answer) => answer.users),
    client.query('list_smart_contract_interfaces', {}).then((answer) => answer.smartContractInterfaces),
    client.query('get_organization_configs', {}),
  ]);
  const context: LintContext = {
    rootQuorum: configs.configs.quorum ?? { userIds: [], threshold: 1 },
    users: users.map((user) => ({ id: user.userId, name: user.userName, tags: user.userTags })),
    policies: policies.map((saved) => ({
      policyId: saved.policyId,
      name: saved.policyName,
      effect: saved.effect,
      condition: saved.condition,
      consensus: saved.consensus,
      time: saved.time ?? '',
    })),
    interfaces: contracts.flatMap(interfaceNames),
  };
  const findings = lintPolicy(policy, context);
  if (!findings.some((finding) => finding.rule === 'deny-never-matches')) return findings;
  return lintPolicy(policy, { ...context, recordedDenials: await recordedDenials(client, policy.policyId) });
}

/** How many of the newest recorded activities the saved policy denied; a policy not saved yet denied none. */
async function recordedDenials(client: ApiClient, policyId: string | undefined): Promise<LintContext['recordedDenials']> {
  if (policyId === undefined) return { activitiesRead: 0, denied: 0 };
  const { activities, recordedEvaluations } = await readRehearsalHistory(client, { last: LINT_HISTORY });
  const denied = [...recordedEvaluations.values()].filter((evaluations) =>
    evaluations.some((evaluation) => evaluation.policyId === policyId && evaluation.outcome === 'OUTCOME_DENY_EXPLICIT'),
  ).length;
  return { activitiesRead: activities.length, denied };
}

/**
 * The names a decoded call can carry with this interface: an ABI function's inputs (by position when unnamed, as
 * decoding keys them), an IDL's instruction arguments and accounts. One that cannot be read offers none.
 */
export function interfaceNames(contract: SmartContractInterface): LintInterface[] {
  const label = contract.label;
  try {
    const definition: unknown = JSON.parse(contract.smartContractInterface);
    if (contractInterfaceTypeOf(contract) === 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA') {
      return [{ chain: 'solana', label, ...solanaIdlNames(contract.smartContractAddress, definition) }];
    }
    if (!Array.isArray(definition)) return [];
    const functions = definition.filter(
      (entry): entry is { inputs?: { name?: string }[] } => isRecord(entry) && (entry.type ?? 'function') === 'function',
    );
    const names = functions.flatMap((entry) =>
      (entry.inputs ?? []).map((input, index) => (input.name === undefined || input.name === '' ? String(index) : input.name)),
    );
    return [{ chain: 'ethereum', label, arguments: names, accounts: [] }];
  } catch {
    return [];
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
