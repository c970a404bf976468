import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { JournalEntry } from '../../shared/journal/format';
import type { JournalVerdict } from '../../shared/journal/verify';
import { JOURNAL_LIST_LIMIT, type JournalEntryView, type JournalVerificationView } from '../../shared/ipc/journal';
import type { IpcHandlers } from '../ipc/register';
import type { Journal } from './journal';

type JournalChannel = 'journal.list' | 'journal.verify' | 'journal.export' | 'journal.checkpoint';

export interface JournalHandlerDeps {
  journal: Journal;
  /** Where exports and checkpoints are written; the renderer names files, never paths. */
  journalExportsDir: string;
}

export function journalHandlers({ journal, journalExportsDir }: JournalHandlerDeps): Pick<IpcHandlers, JournalChannel> {
  const fileIn = async (name: string) => {
    await mkdir(journalExportsDir, { recursive: true, mode: 0o700 });
    return join(journalExportsDir, name);
  };
  return {
    'journal.list': async ({ action, profileId, from, to }) => {
      const verdict = await journal.verify();
      const fromMs = from === undefined ? -Infinity : Date.parse(from);
      const toMs = to === undefined ? Infinity : Date.parse(to);
      const matches = (entry: JournalEntry) =>
        (action === undefined || entry.action === action || entry.action.startsWith(`${action}.`)) &&
        (profileId === undefined || entry.profileId === profileId) &&
        Date.parse(entry.at) >= fromMs &&
        Date.parse(entry.at) <= toMs;
      const entries = verdict.entries.filter(matches).slice(-JOURNAL_LIST_LIMIT).reverse().map(entryView);
      return { entries, verification: verificationView(verdict) };
    },
    'journal.verify': async () => verificationView(await journal.verify()),
    'journal.export': async ({ from, to, file }) =>
      journal.writeExport(
        { ...(from === undefined ? {} : { fromMs: Date.parse(from) }), ...(to === undefined ? {} : { toMs: Date.parse(to) }) },
        await fileIn(file),
      ),
    'journal.checkpoint': async ({ file }) => {
      const path = await fileIn(file);
      const { count, head } = await journal.writeCheckpoint(path);
      return { file: path, count, head };
    },
  };
}

function entryView({ v: _v, prev: _prev, sig: _sig, journalKey: _key, appProofs, ...entry }: JournalEntry): JournalEntryView {
  return { ...entry, appProofCount: appProofs?.length ?? 0 };
}

export function verificationView(verdict: JournalVerdict): JournalVerificationView {
  const { problem } = verdict;
  return {
    valid: verdict.valid,
    count: verdict.entries.length,
    ...(verdict.journalKey === undefined ? {} : { journalKey: verdict.journalKey }),
    ...(verdict.head === undefined ? {} : { head: verdict.head }),
    tornTail: verdict.tornTail,
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
