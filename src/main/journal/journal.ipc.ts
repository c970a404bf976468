import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { JournalEntry } from '../../shared/journal/format';
import { JOURNAL_LIST_LIMIT, type JournalEntryView, type JournalVerificationView } from '../../shared/ipc/journal';
import type { IpcHandlers } from '../ipc/register';
import type { Journal, JournalStanding } from './journal';

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
      const { entries, verdict } = await journal.list(
        {
          ...(action === undefined ? {} : { action }),
          ...(profileId === undefined ? {} : { profileId }),
          ...(from === undefined ? {} : { fromMs: Date.parse(from) }),
          ...(to === undefined ? {} : { toMs: Date.parse(to) }),
        },
        JOURNAL_LIST_LIMIT,
      );
      return { entries: entries.map(entryView), verification: verificationView(verdict) };
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

export function verificationView(verdict: JournalStanding): JournalVerificationView {
  const { problem } = verdict;
  return {
    valid: verdict.valid,
    count: verdict.count,
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
