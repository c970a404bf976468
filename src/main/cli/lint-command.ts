/**
 * `policies lint --draft FILE [--json]`: the policy linter's findings (docs/service.md#policy-lint) on each policy of a
 * draft file, the same file `policies rehearse` reads. Exit 1 when a finding is an error, as saving would be refused.
 */
import type { ApiClient } from '../client/api-client';
import { parseDraft } from '../policies/history';
import { lintDraftPolicy } from '../policies/lint';
import { FILE_LIMITS, readBoundedText } from '../storage/bounded-file';
import { UsageError } from './usage-error';

export async function lintCommand(
  client: () => Promise<ApiClient>,
  args: { draft: string | undefined; json: boolean | undefined },
): Promise<{ text: string; errors: number }> {
  if (args.draft === undefined || args.draft === '')
    throw new UsageError('--draft FILE is required (a JSON array of policies as get_policies returns them)');
  const entries = parseDraft(await readBoundedText(args.draft, FILE_LIMITS.requestBody), undefined);
  const api = await client();
  const linted = [];
  for (const entry of entries) {
    if ('deleted' in entry) continue;
    const { policyId, policyName, effect, condition, consensus, time } = entry;
    const findings = await lintDraftPolicy(api, { policyId, name: policyName, effect, condition, consensus, time: time ?? '' });
    linted.push({ policyName, findings });
  }
  const errors = linted.flatMap(({ findings }) => findings).filter((finding) => finding.severity === 'error').length;
  if (args.json === true) return { text: `${JSON.stringify(linted, null, 2)}\n`, errors };
  const lines = linted.flatMap(({ policyName, findings }) => [
    `${policyName}: ${findings.length === 0 ? 'no findings' : `${findings.length} finding${findings.length === 1 ? '' : 's'}`}`,
    ...findings.map(({ field, span, severity, rule, message }) => `  ${field} ${span.line}:${span.column} ${severity} (${rule}): ${message}`),
  ]);
  return { text: `${lines.join('\n')}\n`, errors };
}
