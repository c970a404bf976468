/**
 * `policies rehearse --draft FILE [--last N | --since DATE] [--json]`: the draft's effect on the recorded history
 * (docs/service.md#policy-rehearsal). Prints what the replay does not reproduce first, then the changed outcomes, each
 * named and worded ("needed 2 approvals, would now need 1"), never by id.
 */
import type { ApiClient } from '../client/api-client';
import { parseDraft, rehearsePolicies, type HistoryWindow } from '../policies/history';
import type { RehearsalReport } from '../policies/rehearsal';
import { FILE_LIMITS, readBoundedText } from '../storage/bounded-file';
import { UsageError } from './usage-error';

export interface RehearseArguments {
  draft: string | undefined;
  last: string | undefined;
  since: string | undefined;
  json: boolean | undefined;
}

export async function rehearseCommand(client: () => Promise<ApiClient>, args: RehearseArguments): Promise<string> {
  if (args.draft === undefined || args.draft === '')
    throw new UsageError('--draft FILE is required (a JSON array of policies as get_policies returns them)');
  const window = historyWindow(args);
  const text = await readBoundedText(args.draft, FILE_LIMITS.requestBody);
  // Unknown policy ids are checked against the organization's policies once they are read.
  const draft = parseDraft(text, undefined);
  const report = await rehearsePolicies(await client(), draft, window);
  return args.json === true ? `${JSON.stringify(report, null, 2)}\n` : reportText(report);
}

function historyWindow({ last, since }: RehearseArguments): HistoryWindow {
  if (last !== undefined && since !== undefined) throw new UsageError('give at most one of --last and --since');
  if (last !== undefined) {
    if (!/^[1-9][0-9]{0,5}$/.test(last)) throw new UsageError(`--last must be a whole number from 1 to 999999, got ${last}`);
    return { last: Number(last) };
  }
  if (since !== undefined) {
    const sinceMs = Date.parse(since);
    if (Number.isNaN(sinceMs)) throw new UsageError(`--since must be a date such as 2026-11-01 or 2026-11-01T09:00:00Z, got ${since}`);
    return { sinceMs };
  }
  return {};
}

export function reportText(report: RehearsalReport): string {
  const lines = [`Replayed ${report.replayed} recorded activities, vote by vote.`];
  if (report.unreproduced.length > 0) {
    lines.push('', `Not reproduced with the rules of the day (${report.unreproduced.length}): the draft's effect on these is uncertain.`);
    for (const entry of report.unreproduced) lines.push(`  ${entry.reading}: ${entry.reason}`);
  }
  lines.push('', report.changes.length === 0 ? 'The draft changes no outcome.' : `Outcomes the draft changes (${report.changes.length}):`);
  for (const change of report.changes) {
    const when = new Date(change.createdAtMs).toISOString();
    const by = change.policies.map((policy) => `${policy.policyName} (${policy.before} → ${policy.after})`).join(', ');
    lines.push(`  ${when}  ${change.reading}: ${change.words}${by === '' ? '' : `; by ${by}`}`);
  }
  const { allowedToDenied, deniedToAllowed, toConsensus, fromConsensus, fewerApprovals, moreApprovals, unchanged } = report.totals;
  lines.push(
    '',
    `Totals: ${allowedToDenied} allowed → denied, ${deniedToAllowed} denied → allowed, ${toConsensus} now need consensus, ${fromConsensus} no longer need it, ` +
      `${fewerApprovals} need fewer approvals, ${moreApprovals} need more, ${unchanged} unchanged.`,
  );
  return `${lines.join('\n')}\n`;
}
