/**
 * A signing card as plain text for the terminal. Its lines are the reader's signing facts flattened, the same list the
 * app's activity descriptions show and its signing card nests, so the CLI cannot tell a signer something the app does not.
 */
import { flatFacts, signingFacts, type SigningDescription } from '../../shared/clear-signing';
import { effectInWords, type Ref } from '../../shared/describe';
import { piecesInText } from '../../shared/describe/policy-reading';
import type { PolicyStandingView } from '../../shared/ipc/signing';

export function signingCardText(description: SigningDescription, standing: PolicyStandingView | undefined): string {
  const lines: string[] = [terminalText(description.title), `  ${terminalText(description.summary)}`];
  for (const warning of description.warnings) lines.push(`  WARNING ${warning.kind}: ${terminalText(warning.message)}`);
  for (const fact of flatFacts(signingFacts(description))) lines.push(`  ${terminalText(fact.label)}: ${fact.value.map(valueText).join('; ')}`);
  if (standing === undefined) {
    lines.push('  Policies: not evaluated offline (the organization’s policies are read from the service)');
  } else {
    lines.push(`  Policies: ${standing.outcome}${standing.decidedBy === undefined ? '' : ` (decided by the ${standing.decidedBy})`}`);
    for (const policy of standing.matchedPolicies) {
      lines.push(`    matched ${JSON.stringify(policy.policyName)} (${effectInWords(policy.effect).toLowerCase()}): ${policy.outcome}`);
    }
    if (standing.consensusNeeds !== undefined) lines.push(`    ${standing.consensusNeeds}${standing.viewerCanApprove ? '; you can approve' : ''}`);
    for (const policy of standing.failedPolicies) lines.push(`    could not evaluate ${JSON.stringify(policy.policyName)}: ${policy.reason}`);
    for (const why of standing.why) {
      lines.push(`    why: ${JSON.stringify(why.policyName)} ${why.field} is ${why.outcome}`);
      for (const part of why.parts) {
        lines.push(
          `      ${part.line}:${part.column} ${terminalText(piecesInText(part.pieces))} is ${part.outcome}${part.error === undefined ? '' : `: ${terminalText(part.error)}`}`,
        );
        for (const read of part.reads) lines.push(`        ${terminalText(read.expression)} read ${terminalText(read.value)}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A terminal cannot hover: the exact value behind a named or rounded one is printed beside it. */
export function valueText(value: Ref): string {
  const text = terminalText(value.text);
  return value.id === undefined || value.text.includes(value.id) ? text : `${text} (${terminalText(value.id)})`;
}

/**
 * Text from the request or the organization (payload text, IDL names, labels) shown quoted and escaped when it holds
 * line breaks, control or invisible formatting characters, so it cannot fake lines of the card or move the cursor
 * (main's confirmation dialog shows it the same way).
 */
export function terminalText(text: string): string {
  return /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(text) ? JSON.stringify(text) : text;
}
