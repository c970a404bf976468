/**
 * Main's confirmation surface: what main asks a person before it does something the page cannot be trusted to decide
 * alone (stamping an activity or a vote, redirecting a profile). The app shows it in a native dialog, modal to the
 * window, which the page can neither draw over nor click; the e2e host plays the person. The page can ask for an
 * action, but only a person answering here completes it.
 */
import type { LookAlike } from '../../shared/clear-signing';
import { bracketed } from '../../shared/clear-signing/look-alike';
import { QkError } from '../../shared/errors';
import { visibleText } from '../../shared/visible-text';

/**
 * Main's reading of what a stamp will do, worded for a person: built by main from the service's own data, never from
 * what the page says. The value is what the confirmation shows, so a caller can keep it (a journal, a log) as shown.
 */
export interface Reading {
  /** What the stamp does: submits an activity, or votes on one; `file` when it is stamped into an offline file. */
  action: 'submit' | 'approve' | 'reject';
  delivery: 'post' | 'file';
  /** The activity the stamp is about (the voted-on one for a vote). */
  activityType: string;
  /** The voted-on activity's fingerprint, for a vote. */
  fingerprint?: string;
  /** "Sign an Ethereum transaction", "Change the root quorum". */
  title: string;
  /** Who stamps, as whom, where: "Bea (profile Bea) in Root organization"; absent when the service could not be asked. */
  voter?: string;
  /** For a vote: what it does ("your approval completes it: …", "your rejection ends it: it will not run"). */
  voteDoes?: string;
  /** One line: "Transfer 250,000 USDC to Bob (0x…) on Ethereum". */
  summary: string;
  /** "Network: Ethereum (chain id 1)", with parts indented beneath their fact. */
  facts: readonly string[];
  /** "Threshold: 1 → 2": each changed field before → after. */
  changes: readonly string[];
  /** Full sentences; a lock-out is named first. */
  warnings: readonly string[];
  /** Addresses in a signing request that imitate known ones: each needs its own "I checked" (lookAlikeConfirmationOf). */
  lookAlikes?: readonly LookAlike[];
  /** The organization's policies on it: "no policy matches; the root quorum decides". */
  verdict: string;
  /** What it still needs once this stamp is counted: "needs 1 more root quorum approval", "nothing: this completes it". */
  stillNeeded: string;
  /**
   * For a credential on hardware (a PIN or a touch follows): which one signs, and the fingerprint of the exact body it
   * will sign, which its prompt restates.
   */
  signedBy?: { credential: string; bodyFingerprint: string };
}

/** What the confirmation shows: a title, a question, and the detail beneath; `reading` when it is about a stamp. */
export interface ConfirmationRequest {
  title: string;
  message: string;
  detail: string;
  reading?: Reading;
  /** The go-ahead button's words when not the dialog's usual "Continue"; cancel stays the default either way. */
  goAhead?: string;
}

/** Shows `request` to the person; resolves `true` only if they chose to go ahead. */
export type Confirm = (request: ConfirmationRequest) => Promise<boolean>;

const ACTION_WORDS: Record<Reading['action'], string> = { submit: 'Submit', approve: 'Approve', reject: 'Reject' };

/**
 * The confirmation for a stamp: the question names the action and the summary, the detail everything main read. Each
 * field of the reading is one line on this surface, whoever built it: anything in it that would break a line or
 * reorder the text is shown escaped (visibleText), so no name can fake the verdict lines beneath it.
 */
export function confirmationOf(reading: Reading): ConfirmationRequest {
  const action = ACTION_WORDS[reading.action];
  const where = reading.delivery === 'file' ? ' (stamped into an offline file)' : '';
  const title = visibleText(reading.title);
  const lines = (fields: readonly string[]) => fields.map(visibleText);
  const section = (heading: string, fields: readonly string[]) =>
    fields.length === 0 ? [] : ['', heading, ...lines(fields).map((line) => `  ${line}`)];
  return {
    title: `${action}: ${title}?`,
    message: `${action} ${JSON.stringify(title)}${reading.voter === undefined ? '' : ` as ${visibleText(reading.voter)}`}${where}? ${visibleText(reading.summary)}`,
    detail: [
      ...(reading.voter === undefined ? [] : [`${reading.action === 'submit' ? 'Submitted' : 'Voting'} as: ${visibleText(reading.voter)}`]),
      ...(reading.voteDoes === undefined ? [] : [`This vote: ${visibleText(reading.voteDoes)}`]),
      ...lines(reading.facts),
      ...section('Before → after:', reading.changes),
      ...section('Warnings:', reading.warnings),
      '',
      `Policy verdict: ${visibleText(reading.verdict)}`,
      `${reading.action === 'reject' ? 'To approve it still needs' : 'After this one it still needs'}: ${visibleText(reading.stillNeeded)}`,
      ...(reading.fingerprint === undefined ? [] : [`Fingerprint: ${visibleText(reading.fingerprint)}`]),
      ...(reading.signedBy === undefined
        ? []
        : [
            '',
            `Signed with: ${visibleText(reading.signedBy.credential)}`,
            `It signs the body with fingerprint: ${reading.signedBy.bodyFingerprint}`,
            'Its PIN or touch prompt must show this same fingerprint; if it shows another, cancel there.',
          ]),
    ].join('\n'),
    reading,
  };
}

/**
 * The last click before a stamp whose request holds a look-alike address: asked after the person went ahead once,
 * naming both addresses with what differs in brackets, so going ahead takes a second, explicit choice.
 */
export function lookAlikeConfirmationOf(reading: Reading, lookAlike: LookAlike): ConfirmationRequest {
  const knownName = visibleText(lookAlike.known.name);
  return {
    title: `Look-alike address: is this really not “${knownName}”?`,
    message: `This request names ${lookAlike.address}, which starts and ends like “${knownName}” but is another address.`,
    detail: [
      `In this request:  ${bracketed(lookAlike.address, lookAlike.addressDiffers)}`,
      `“${knownName}”:  ${bracketed(lookAlike.known.address, lookAlike.knownDiffers)}`,
      '',
      'The characters in brackets differ. Addresses like this are planted in a wallet’s history to be copied by mistake.',
      'Go ahead only if you checked the whole address against a trusted source.',
    ].join('\n'),
    reading,
    goAhead: `I checked: this is not ${knownName}`,
  };
}

/**
 * The stamp's confirmation, then, unless it rejects, one more for each look-alike address in it: the stamp happens
 * only if the person went ahead on every one.
 */
export async function requireStampConfirmation(confirm: Confirm, reading: Reading, what: string): Promise<void> {
  await requireConfirmation(confirm, confirmationOf(reading), what);
  if (reading.action === 'reject') return;
  for (const lookAlike of reading.lookAlikes ?? []) {
    await requireConfirmation(confirm, lookAlikeConfirmationOf(reading, lookAlike), `${what} past its look-alike address ${lookAlike.address}`);
  }
}

/** Asks `confirm` and refuses with USER_DECLINED, naming `what`, unless the person went ahead. */
export async function requireConfirmation(confirm: Confirm, request: ConfirmationRequest, what: string): Promise<void> {
  if (!(await confirm(request))) {
    throw new QkError('USER_DECLINED', `${what} was declined in QuorumKey's confirmation; nothing was stamped or sent`);
  }
}
