/**
 * A signing card as plain text for the terminal. Its lines are the reader's signing facts flattened, the same list the
 * app's activity descriptions show and its signing card nests, so the CLI cannot tell a signer something the app does not.
 * Every text from the request or the organization goes through visibleText (names quoted by quotedText), so it cannot
 * fake a line of the card or move the cursor.
 */
import { flatFacts, signingFacts, type SigningDescription } from '../../shared/clear-signing';
import { effectInWords, type Ref } from '../../shared/describe';
import { piecesInText } from '../../shared/describe/policy-reading';
import type { PolicyStandingView } from '../../shared/ipc/signing';
import type { SimulationView } from '../../shared/ipc/simulation';
import { quotedText, visibleText } from '../../shared/visible-text';
import { simulationInLines } from '../simulation/reading';

export function signingCardText(description: SigningDescription, standing: PolicyStandingView | undefined): string {
  const lines: string[] = [visibleText(description.title), `  ${visibleText(description.summary)}`];
  for (const warning of description.warnings) lines.push(`  WARNING ${warning.kind}: ${visibleText(warning.message)}`);
  for (const fact of flatFacts(signingFacts(description))) lines.push(`  ${visibleText(fact.label)}: ${fact.value.map(valueText).join('; ')}`);
  if (standing === undefined) {
    lines.push('  Policies: not evaluated offline (the organization’s policies are read from the service)');
  } else {
    lines.push(`  Policies: ${standing.outcome}${standing.decidedBy === undefined ? '' : ` (decided by the ${standing.decidedBy})`}`);
    for (const policy of standing.matchedPolicies) {
      lines.push(`    matched ${quotedText(policy.policyName)} (${effectInWords(policy.effect).toLowerCase()}): ${policy.outcome}`);
    }
    if (standing.consensusNeeds !== undefined)
      lines.push(`    ${visibleText(standing.consensusNeeds)}${standing.viewerCanApprove ? '; you can approve' : ''}`);
    for (const policy of standing.failedPolicies)
      lines.push(`    could not evaluate ${quotedText(policy.policyName)}: ${visibleText(policy.reason)}`);
    for (const why of standing.why) {
      lines.push(`    why: ${quotedText(why.policyName)} ${why.field} is ${why.outcome}`);
      for (const part of why.parts) {
        lines.push(
          `      ${part.line}:${part.column} ${visibleText(piecesInText(part.pieces))} is ${part.outcome}${part.error === undefined ? '' : `: ${visibleText(part.error)}`}`,
        );
        for (const read of part.reads) lines.push(`        ${visibleText(read.expression)} read ${visibleText(read.value)}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

/** What the transaction would do, as the card's simulation section and main's confirmation say it. */
export function simulationText(simulation: SimulationView): string {
  return simulationInLines(simulation)
    .map((line) => `  ${visibleText(line)}\n`)
    .join('');
}

/** A terminal cannot hover: the exact value behind a named or rounded one is printed beside it. */
export function valueText(value: Ref): string {
  const text = visibleText(value.text);
  return value.id === undefined || value.text.includes(value.id) ? text : `${text} (${visibleText(value.id)})`;
}
