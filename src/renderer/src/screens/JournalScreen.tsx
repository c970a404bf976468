import { useState, type FormEvent } from 'react';
import type { JournalEntryView } from '../../../shared/ipc/journal';
import { ErrorNotice } from '../components/ErrorNotice';
import { Modal } from '../components/Modal';
import { ProfileSelect } from '../components/ProfileSelect';
import { Progress } from '../components/Progress';
import { TableHead } from '../components/TableHead';
import { Term } from '../components/Term';
import { useAction } from '../mutations';
import { useChannel } from '../queries';

/** The action families an operator filters on, as the journal names them. */
const FAMILIES = [
  ['', 'Everything'],
  ['vote', 'Votes'],
  ['activity', 'Activities submitted'],
  ['request', 'Offline requests'],
  ['export', 'Exports and reveals'],
  ['app', 'Unlocks'],
  ['profile', 'Profiles'],
  ['settings', 'Settings'],
] as const;

interface Filter {
  action: string;
  profileId: string;
  from: string;
  to: string;
}

/** A date field's day as an instant: the start of the day for `from`, its end for `to` (local time). */
function dayBound(day: string, edge: 'start' | 'end'): string | undefined {
  if (day === '') return undefined;
  return new Date(`${day}T${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}`).toISOString();
}

/**
 * The signed journal of what this desktop approved, signed and revealed: each entry opens the reading as it was
 * shown. Main verifies the whole journal on every load; a banner says where it broke.
 */
export function JournalScreen() {
  const [filter, setFilter] = useState<Filter>({ action: '', profileId: '', from: '', to: '' });
  const from = dayBound(filter.from, 'start');
  const to = dayBound(filter.to, 'end');
  const journal = useChannel('journal.list', {
    ...(filter.action === '' ? {} : { action: filter.action }),
    ...(filter.profileId === '' ? {} : { profileId: filter.profileId }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  });
  const [opened, setOpened] = useState<JournalEntryView>();
  const action = useAction();
  const [written, setWritten] = useState<string>();
  const change = (changes: Partial<Filter>) => {
    setFilter({ ...filter, ...changes });
  };
  const exportRange = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = `journal-${new Date().toISOString().slice(0, 19).replaceAll(':', '-')}.jsonl`;
    const from = dayBound(filter.from, 'start');
    const to = dayBound(filter.to, 'end');
    const done = await action.run('Exporting…', 'journal.export', {
      file: name,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
    });
    if (done !== undefined) setWritten(`${done.count} entries in ${done.file}, with its checkpoint ${done.checkpointFile}`);
  };
  const checkpoint = async () => {
    const done = await action.run('Writing a checkpoint…', 'journal.checkpoint', { file: `checkpoint-${Date.now()}.json` });
    if (done !== undefined) setWritten(`Checkpoint of ${done.count} entries in ${done.file}`);
  };
  const verification = journal.data?.verification;
  return (
    <section className="screen" aria-labelledby="journal-title">
      <h1 id="journal-title">Journal</h1>
      <p className="lead">Every action this desktop stamped or revealed, signed and chained so that any change shows.</p>
      {verification !== undefined && !verification.valid && (
        <p className="notice notice-error" role="alert" aria-label="Journal verification">
          The journal does not verify: {verification.problem?.message}. Entries after that point are not shown.
        </p>
      )}
      {verification?.valid === true && (
        <p className="notice notice-info" role="status" aria-label="Journal verification">
          {verification.count} entries verified{verification.tornTail ? '; the last append was cut short by a crash and will be replaced' : ''}.
        </p>
      )}
      <form className="filters" onSubmit={(event) => void exportRange(event)} aria-label="Journal filters">
        <label>
          Action
          <select value={filter.action} onChange={(event) => change({ action: event.target.value })}>
            {FAMILIES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <ProfileSelect value={filter.profileId} onChange={(profileId) => change({ profileId })} none="All profiles" />
        <label>
          From
          <input type="date" value={filter.from} onChange={(event) => change({ from: event.target.value })} />
        </label>
        <label>
          To
          <input type="date" value={filter.to} onChange={(event) => change({ to: event.target.value })} />
        </label>
        <button type="submit" disabled={action.busy !== undefined}>
          Export these dates
        </button>
        <button type="button" disabled={action.busy !== undefined} onClick={() => void checkpoint()}>
          Write a checkpoint
        </button>
      </form>
      <Progress label={action.busy ?? (journal.isPending ? 'Verifying the journal…' : undefined)} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {journal.error !== null && <ErrorNotice error={journal.error} />}
      {written !== undefined && (
        <p className="notice notice-info" role="status">
          {written}
        </p>
      )}
      {journal.data !== undefined && (
        <table className="data-table" aria-label="Journal entries">
          <TableHead columns={['#', 'When', 'Action', 'Profile', 'What was shown', 'Verdict']} withActions />
          <tbody>
            {journal.data.entries.map((entry) => (
              <tr key={entry.seq}>
                <td>{entry.seq}</td>
                <td>{new Date(entry.at).toLocaleString()}</td>
                <td>
                  <code className="journal-action">{entry.action}</code>
                </td>
                <td>{entry.profileName ?? '—'}</td>
                <td>{entry.reading.title}</td>
                <td>{entry.reading.verdict}</td>
                <td>
                  <button type="button" className="small" onClick={() => setOpened(entry)} aria-label={`Open entry ${entry.seq}`}>
                    Open
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {opened !== undefined && <EntryReading entry={opened} onClose={() => setOpened(undefined)} />}
    </section>
  );
}

/** The reading as it was shown when the entry was recorded, with who acted. */
function EntryReading({ entry, onClose }: { entry: JournalEntryView; onClose: () => void }) {
  const { reading } = entry;
  return (
    <Modal title={`Entry ${entry.seq}: ${reading.title}`} onClose={onClose}>
      <p>{reading.summary}</p>
      {reading.warnings.length > 0 && (
        <ul className="notice notice-warning" aria-label="Warnings shown">
          {reading.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      )}
      <dl className="facts" aria-label="Reading as shown">
        {reading.facts.map((fact, index) => (
          <Term key={`${fact.label}-${index}`} label={fact.label}>
            {fact.value}
          </Term>
        ))}
        <Term label="Verdict">{reading.verdict}</Term>
      </dl>
      <h3>Who acted</h3>
      <dl className="facts" aria-label="Who acted">
        <Term label="When">{entry.at}</Term>
        {entry.profileName !== undefined && <Term label="Profile">{entry.profileName}</Term>}
        {entry.userId !== undefined && (
          <Term label="User">
            <code>{entry.userId}</code>
          </Term>
        )}
        {entry.apiKeyFingerprint !== undefined && (
          <Term label="API key">
            <code>{entry.apiKeyFingerprint}</code>
          </Term>
        )}
        {entry.credential !== undefined && (
          <Term label="Stamped with">
            {entry.credential.name}
            {entry.credential.kind === 'pkcs11' && <span className="badge">on hardware</span>}
          </Term>
        )}
        {entry.activityId !== undefined && (
          <Term label="Activity">
            <code>{entry.activityId}</code>
          </Term>
        )}
        {entry.appProofCount > 0 && <Term label="App proofs">{entry.appProofCount}, verified</Term>}
        {entry.vouchedBy.map((root) => (
          <Term key={root.fingerprint} label="Attested under">
            {root.pinnedAs ?? `a root this desktop does not pin (${root.subject})`} <code>{root.fingerprint}</code>
          </Term>
        ))}
      </dl>
    </Modal>
  );
}
