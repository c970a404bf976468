import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AWS_NITRO_ROOT, pinnedName, type PinnedRoot } from '../../shared/journal/attestations';
import { journalReadingSchema, type JournalEntry } from '../../shared/journal/format';
import { JOURNAL_LIST_LIMIT, journalEntryView, type JournalEntryView, type JournalVerificationView } from '../../shared/ipc/journal';
import { visibleTextWithin } from '../../shared/visible-text';
import type { IpcHandlers } from '../ipc/register';
import type { Profiles } from '../profiles/profiles';
import type { Journal, JournalRange, JournalStanding } from './journal';

type JournalChannel = 'journal.list' | 'journal.verify' | 'journal.export' | 'journal.checkpoint';

export interface JournalHandlerDeps {
  journal: Journal;
  /** Whose Sandbox attestation roots this desktop pins, beside AWS Nitro's. */
  profiles: Pick<Profiles, 'list'>;
  /** Where exports and checkpoints are written; the renderer names files, never paths. */
  journalExportsDir: string;
}

export function journalHandlers({ journal, profiles, journalExportsDir }: JournalHandlerDeps): Pick<IpcHandlers, JournalChannel> {
  const fileIn = async (name: string) => {
    await mkdir(journalExportsDir, { recursive: true, mode: 0o700 });
    return join(journalExportsDir, name);
  };
  return {
    'journal.list': async ({ action, profileId, from, to }) => {
      const { entries, verdict } = await journal.list(
        { ...(action === undefined ? {} : { action }), ...(profileId === undefined ? {} : { profileId }), ...rangeOf(from, to) },
        JOURNAL_LIST_LIMIT,
      );
      const pins = await pinnedRoots(profiles);
      return { entries: entries.map((entry) => entryView(entry, journal, pins)), verification: verificationView(verdict, pins) };
    },
    'journal.verify': async () => verificationView(await journal.verify(), await pinnedRoots(profiles)),
    'journal.export': async ({ from, to, file }) => journal.writeExport(rangeOf(from, to), await fileIn(file)),
    'journal.checkpoint': async ({ file }) => {
      const path = await fileIn(file);
      const { count, head } = await journal.writeCheckpoint(path);
      return { file: path, count, head };
    },
  };
}

/** A channel's ISO dates as the journal's range; a date not given leaves that side open. */
function rangeOf(from: string | undefined, to: string | undefined): JournalRange {
  return { ...(from === undefined ? {} : { fromMs: Date.parse(from) }), ...(to === undefined ? {} : { toMs: Date.parse(to) }) };
}

/**
 * The roots app proofs are checked against: AWS Nitro's, which Turnkey's enclaves chain to, and each Sandbox
 * profile's own, which only says this desktop's Sandbox vouched for the activity.
 */
async function pinnedRoots(profiles: Pick<Profiles, 'list'>): Promise<PinnedRoot[]> {
  const sandboxRoots = (await profiles.list()).flatMap((profile) =>
    profile.attestationRoot === undefined ? [] : [{ fingerprint: profile.attestationRoot, name: `${profile.name}, this desktop's own service` }],
  );
  return [AWS_NITRO_ROOT, ...sandboxRoots];
}

/** The most characters the Journal screen's view holds of each text of a reading, and of a root's names. */
const READING_TEXT_MAX = journalReadingSchema.shape.title.maxLength ?? Number.POSITIVE_INFINITY;
const ROOT_SUBJECT_MAX = journalEntryView.shape.vouchedBy.element.shape.subject.maxLength ?? Number.POSITIVE_INFINITY;

/**
 * An entry as the Journal screen shows it. Its reading holds the service's text (and the file's, which anyone could
 * have edited): it is shown escaped, so a line break or a bidi control in it is seen, not acted on. The file keeps
 * the text as recorded; only what is shown is escaped.
 */
function entryView(entry: JournalEntry, journal: Pick<Journal, 'proofRoots'>, pins: readonly PinnedRoot[]): JournalEntryView {
  const { v: _v, prev: _prev, sig: _sig, journalKey: _key, appProofs, bootProofs: _bootProofs, reading, credential, ...fields } = entry;
  const vouchedBy = journal.proofRoots(entry).map((root) => {
    const pinnedAs = pinnedName(root.fingerprint, pins);
    return { ...root, subject: visibleTextWithin(root.subject, ROOT_SUBJECT_MAX), ...(pinnedAs === undefined ? {} : { pinnedAs }) };
  });
  const shown = (text: string) => visibleTextWithin(text, READING_TEXT_MAX);
  return {
    ...fields,
    ...(credential === undefined ? {} : { credential: { ...credential, name: shown(credential.name) } }),
    reading: {
      title: shown(reading.title),
      summary: shown(reading.summary),
      facts: reading.facts.map(({ label, value }) => ({ label: shown(label), value: shown(value) })),
      warnings: reading.warnings.map(shown),
      verdict: shown(reading.verdict),
    },
    appProofCount: appProofs?.length ?? 0,
    vouchedBy,
  };
}

export function verificationView(verdict: JournalStanding, pins: readonly PinnedRoot[]): JournalVerificationView {
  const { problem } = verdict;
  return {
    valid: verdict.valid,
    count: verdict.count,
    ...(verdict.journalKey === undefined ? {} : { journalKey: verdict.journalKey }),
    ...(verdict.head === undefined ? {} : { head: verdict.head }),
    tornTail: verdict.tornTail,
    pinnedRoots: [...pins],
    ...(problem === undefined
      ? {}
      : {
          problem: {
            kind: problem.kind,
            message: problem.message,
            ...(problem.line === undefined ? {} : { line: problem.line }),
            ...(problem.seq === undefined ? {} : { seq: problem.seq }),
          },
        }),
  };
}
