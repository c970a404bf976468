import { useState, type FormEvent } from 'react';
import { THEMES, type AppSettings, type ChannelInput, type TokenCatalogEntry, type TokenWarnAboveInput } from '../../../shared/ipc/contract';
import { ErrorNotice } from '../components/ErrorNotice';
import { QueryStatus } from '../components/QueryStatus';
import { Progress } from '../components/Progress';
import { ConfirmWideningForm } from '../components/ConfirmWideningForm';
import { Term } from '../components/Term';
import { PublicKey } from '../components/PublicKey';
import { RowAction } from '../components/RowAction';
import { SelectField } from '../components/SelectField';
import { TableHead } from '../components/TableHead';
import { SecretField } from '../components/TextFields';
import { useAction } from '../mutations';
import { useChannel } from '../queries';
import { NodeUrlsPanel } from './NodeUrlsPanel';

/** A change of settings as the form sends it: token thresholds in the token's units. */
type SettingsChange = Omit<ChannelInput<'app.setSettings'>, 'passphrase'>;

const THEME_LABELS: Record<AppSettings['theme'], string> = { system: 'Follow the system', light: 'Light', dark: 'Dark' };

export function SettingsScreen() {
  const settings = useChannel('app.getSettings').data;
  const info = useChannel('app.info');
  const journal = useChannel('journal.verify');
  const action = useAction();
  const [savedAt, setSavedAt] = useState<string>();
  /** A change main refused until the unlock passphrase confirms it, with main's words for what it widens. */
  const [confirming, setConfirming] = useState<{ changes: SettingsChange; widens: string }>();

  const save = async (changes: SettingsChange, passphrase?: string): Promise<boolean> => {
    setSavedAt(undefined);
    const saved = await action.run(
      'Saving settings…',
      'app.setSettings',
      passphrase === undefined ? changes : { ...changes, passphrase },
      (error) => {
        if (error.code !== 'PASSPHRASE_REQUIRED') return false;
        setConfirming({ changes, widens: error.message });
        return true;
      },
    );
    if (saved === undefined) return false;
    setConfirming(undefined);
    setSavedAt(new Date().toLocaleTimeString());
    return true;
  };

  return (
    <section className="screen" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {confirming !== undefined && (
        <ConfirmWideningForm
          widens={confirming.widens}
          busy={action.busy !== undefined}
          onConfirm={(passphrase) => void save(confirming.changes, passphrase)}
          onCancel={() => {
            setConfirming(undefined);
            action.clearError();
          }}
        />
      )}
      <p className="saved" role="status">
        {savedAt === undefined ? '' : `Saved at ${savedAt}.`}
      </p>
      {settings === undefined ? (
        <Progress label="Loading settings…" />
      ) : (
        <>
          <section className="panel" aria-labelledby="theme-title">
            <h2 id="theme-title">Appearance</h2>
            <fieldset className="choice-group">
              <legend>Theme</legend>
              {THEMES.map((theme) => (
                <label key={theme} className="radio">
                  <input type="radio" name="theme" checked={settings.theme === theme} onChange={() => void save({ theme })} />
                  {THEME_LABELS[theme]}
                </label>
              ))}
            </fieldset>
          </section>
          <IdleLockForm minutes={settings.idleLockMinutes} reauthMinutes={settings.reauthMinutes} onSave={(changes) => void save(changes)} />
          {info.data !== undefined && <UnlockPassphraseForm isSet={info.data.unlockPassphraseSet} />}
          <CaptureProtectionForm
            enabled={settings.captureProtection}
            supported={info.data?.captureProtectionSupported}
            onSave={(captureProtection) => void save({ captureProtection })}
          />
          <WarnAboveForm warnAbove={settings.warnAbove ?? {}} onSave={(warnAbove) => void save({ warnAbove })} />
          <TokenWarnAboveForm onSave={(tokenWarnAbove) => save({ tokenWarnAbove })} />
          <NodeUrlsPanel nodeUrls={settings.nodeUrls ?? {}} onSave={(nodeUrls) => save({ nodeUrls })} />
          <InboxForm inbox={settings.inbox} onSave={(inbox) => void save({ inbox })} />
        </>
      )}
      <section className="panel" aria-labelledby="journal-key-title">
        <h2 id="journal-key-title">Journal key</h2>
        <p>
          Every journal entry is signed with this key, kept in the OS keychain. Give it to your auditor: a journal signed by any other key is not this
          desktop’s.
        </p>
        {journal.error !== null && <ErrorNotice error={journal.error} />}
        {journal.data?.journalKey === undefined ? (
          <p>{journal.isPending ? 'Reading the journal…' : 'The journal begins with the first action this desktop records.'}</p>
        ) : (
          <PublicKey value={journal.data.journalKey} label="this desktop's journal" what="journal key" shortened={false} />
        )}
        <h3>Attestation roots</h3>
        <p>
          The service’s app proofs in journal entries are checked against these roots. Give the Sandbox’s to an auditor who verifies with{' '}
          <code>--attestation-root</code>: its proofs are this desktop vouching for itself, not an enclave.
        </p>
        {journal.data !== undefined && (
          <dl className="facts" aria-label="Attestation roots">
            {journal.data.pinnedRoots.map((root) => (
              <Term key={root.fingerprint} label={root.name}>
                <PublicKey value={root.fingerprint} label={root.name} what="root fingerprint" shortened={false} />
              </Term>
            ))}
          </dl>
        )}
      </section>
      <section className="panel" aria-labelledby="about-title">
        <h2 id="about-title">About</h2>
        <QueryStatus query={info} loading="Reading the app’s version…" />
        {info.data !== undefined && (
          <dl className="facts">
            <dt>Version</dt>
            <dd>{info.data.version}</dd>
            <dt>Platform</dt>
            <dd>{info.data.platform}</dd>
            <dt>Build</dt>
            <dd>{info.data.packaged ? 'packaged' : 'development'}</dd>
          </dl>
        )}
      </section>
    </section>
  );
}

function IdleLockForm({
  minutes,
  reauthMinutes,
  onSave,
}: {
  minutes: number;
  reauthMinutes: number;
  onSave: (changes: Pick<AppSettings, 'idleLockMinutes' | 'reauthMinutes'>) => void;
}) {
  const [value, setValue] = useState(String(minutes));
  const [reauthValue, setReauthValue] = useState(String(reauthMinutes));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave({ idleLockMinutes: Number(value), reauthMinutes: Number(reauthValue) });
  };
  return (
    <section className="panel" aria-labelledby="lock-title">
      <h2 id="lock-title">Lock</h2>
      <form className="inline-form" aria-label="Lock times" onSubmit={submit}>
        <label>
          Lock after this many idle minutes
          <input type="number" min={1} max={1440} step={1} value={value} onChange={(event) => setValue(event.target.value)} required />
        </label>
        <label>
          Ask for the passphrase again before a reveal after this many minutes
          <input type="number" min={1} max={60} step={1} value={reauthValue} onChange={(event) => setReauthValue(event.target.value)} required />
        </label>
        <button type="submit">Save</button>
      </form>
      <p className="hint">QuorumKey also locks when the screen locks or the computer sleeps.</p>
    </section>
  );
}

/** The window is kept out of screenshots and screen sharing unless this is off; main applies a change at once. */
function CaptureProtectionForm({
  enabled,
  supported,
  onSave,
}: {
  enabled: boolean;
  /** Undefined until app.info answered. */
  supported: boolean | undefined;
  onSave: (enabled: boolean) => void;
}) {
  return (
    <section className="panel" aria-labelledby="capture-title">
      <h2 id="capture-title">Screen capture</h2>
      <label className="radio">
        <input type="checkbox" checked={enabled} onChange={(event) => onSave(event.target.checked)} />
        Keep the QuorumKey window out of screenshots and screen sharing
      </label>
      <p className="hint">
        Turn this off only to record or share the app, for a demo say. While a mnemonic or private key is revealed the window is kept out of capture
        anyway.
      </p>
      {supported === false && (
        <p className="notice notice-warning">
          This OS (Linux) has no way to keep a window out of capture: screenshots and screen sharing record QuorumKey whatever this says.
        </p>
      )}
    </section>
  );
}

const NOTIFICATION_KINDS: readonly [key: 'notifyWaiting' | 'notifyDecided' | 'notifyExpiring', label: string][] = [
  ['notifyWaiting', 'An activity starts waiting for my vote'],
  ['notifyDecided', 'An activity I proposed is approved, rejected or fails'],
  ['notifyExpiring', 'An activity waiting for my vote expires within the hour'],
];

/** How often main looks at every profile's service, and which desktop notifications it shows. */
function InboxForm({ inbox, onSave }: { inbox: AppSettings['inbox']; onSave: (inbox: AppSettings['inbox']) => void }) {
  const [seconds, setSeconds] = useState(String(inbox.intervalSeconds));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave({ ...inbox, intervalSeconds: Number(seconds) });
  };
  return (
    <section className="panel" aria-labelledby="inbox-title">
      <h2 id="inbox-title">Inbox and notifications</h2>
      <p>
        QuorumKey asks the service of every profile what waits for votes, one request per profile each interval; a service that does not answer is
        asked again later and later (up to every 5 minutes), without holding up the others. It does not ask while the app is locked.
      </p>
      <form className="inline-form" aria-label="Inbox interval" onSubmit={submit}>
        <label>
          Look every this many seconds
          <input type="number" min={2} max={3600} step={1} value={seconds} onChange={(event) => setSeconds(event.target.value)} required />
        </label>
        <button type="submit">Save</button>
      </form>
      <fieldset className="choice-group">
        <legend>Notify me when</legend>
        {NOTIFICATION_KINDS.map(([key, label]) => (
          <label key={key} className="radio">
            <input type="checkbox" checked={inbox[key]} onChange={(event) => onSave({ ...inbox, [key]: event.target.checked })} />
            {label}
          </label>
        ))}
      </fieldset>
      <p className="hint">
        Notifications name the activity, its organization and the profile. When the app locks they are taken back, and one notification says only how
        many approvals wait (“2 approvals waiting”), nothing about them; the dock or taskbar badge shows the same count. Clicking a notification opens
        the activity on its profile.
      </p>
    </section>
  );
}

type WarnAbove = NonNullable<AppSettings['warnAbove']>;
const COINS = ['ETH', 'SOL', 'BTC'] as const;

/** Signing cards flag a request moving more than this much of the chain's coin; an empty field sets no threshold. */
function WarnAboveForm({ warnAbove, onSave }: { warnAbove: WarnAbove; onSave: (warnAbove: WarnAbove) => void }) {
  const [values, setValues] = useState<Record<(typeof COINS)[number], string>>({
    ETH: warnAbove.ETH ?? '',
    SOL: warnAbove.SOL ?? '',
    BTC: warnAbove.BTC ?? '',
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave(Object.fromEntries(COINS.filter((coin) => values[coin].trim() !== '').map((coin) => [coin, values[coin].trim()])));
  };
  return (
    <section className="panel" aria-labelledby="warn-above-title">
      <h2 id="warn-above-title">Signing warnings</h2>
      <form className="inline-form" aria-label="Value thresholds" onSubmit={submit}>
        {COINS.map((coin) => (
          <label key={coin}>
            Warn above ({coin})
            <input
              value={values[coin]}
              onChange={(event) => setValues((current) => ({ ...current, [coin]: event.target.value }))}
              inputMode="decimal"
              pattern="\d{1,30}(\.\d{1,18})?"
              placeholder="no threshold"
              autoComplete="off"
            />
          </label>
        ))}
        <button type="submit">Set thresholds</button>
      </form>
      <p className="hint">A signing request that moves more than this is marked “Large value” on its card, for every approver on this computer.</p>
    </section>
  );
}

/**
 * Large-transfer warnings per token (the known list and the declarations read), in the token's units: main converts
 * them with the token's decimals and refuses an amount with more decimals than the token has.
 */
function TokenWarnAboveForm({ onSave }: { onSave: (tokenWarnAbove: TokenWarnAboveInput) => Promise<boolean> }) {
  const catalog = useChannel('tokens.catalog');
  const [chosen, setChosen] = useState('0');
  const [amount, setAmount] = useState('');
  const tokens = catalog.data ?? [];
  const withThreshold = tokens.flatMap((token) => (token.warnAbove === undefined ? [] : [{ token: token.token, amount: token.warnAbove }]));
  const named = (token: TokenCatalogEntry) => `${token.symbol} on ${token.network}`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const token = tokens[Number(chosen)];
    if (token === undefined) return;
    const others = tokens.flatMap((other) =>
      other === token || other.warnAbove === undefined ? [] : [{ token: other.token, amount: other.warnAbove }],
    );
    if (await onSave([...others, { token: token.token, amount: amount.trim() }])) setAmount('');
  };
  const remove = (token: TokenCatalogEntry) => void onSave(withThreshold.filter((entry) => entry.token !== token.token));

  return (
    <section className="panel" aria-labelledby="token-warn-title">
      <h2 id="token-warn-title">Token transfer warnings</h2>
      <QueryStatus query={catalog} loading="Loading tokens…" />
      {withThreshold.length === 0 ? (
        <p className="empty">No token has a threshold.</p>
      ) : (
        <table className="data-table" aria-label="Token thresholds">
          <TableHead columns={['Token', 'Network', 'Warn at']} withActions />
          <tbody>
            {tokens.flatMap((token) =>
              token.warnAbove === undefined
                ? []
                : [
                    <tr key={named(token)}>
                      <th scope="row">{token.symbol}</th>
                      <td>{token.network}</td>
                      <td>
                        {token.warnAbove} {token.symbol}
                      </td>
                      <td className="row-actions">
                        <RowAction verb="Remove threshold" subject={named(token)} danger onClick={() => remove(token)} />
                      </td>
                    </tr>,
                  ],
            )}
          </tbody>
        </table>
      )}
      <form className="inline-form" aria-label="Token threshold" onSubmit={(event) => void submit(event)}>
        <SelectField
          label="Token"
          value={chosen}
          options={tokens.map((token, index) => ({ value: String(index), label: `${named(token)} (${token.origin})` }))}
          onChange={setChosen}
        />
        <label>
          Warn at or above
          <input
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            required
            inputMode="decimal"
            placeholder="10000"
            autoComplete="off"
          />
        </label>
        <button type="submit" disabled={tokens.length === 0}>
          Set threshold
        </button>
      </form>
      <p className="hint">
        In the token’s units, as the signing card shows them. A transfer of at least this much is marked “Large transfer” on its card and in the
        approval list.
      </p>
    </section>
  );
}

/**
 * Sets the unlock passphrase, or changes it with the current one. Main keeps only a salted scrypt hash; the fields
 * are emptied once sent, whatever the answer.
 */
function UnlockPassphraseForm({ isSet }: { isSet: boolean }) {
  const [current, setCurrent] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [repeated, setRepeated] = useState('');
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const mismatch = repeated !== '' && repeated !== passphrase;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (mismatch) return;
    setSaved(false);
    const done = await action.run(
      'Saving the passphrase…',
      'app.setUnlockPassphrase',
      isSet ? { passphrase, currentPassphrase: current } : { passphrase },
    );
    setCurrent('');
    setPassphrase('');
    setRepeated('');
    if (done !== undefined) setSaved(true);
  };

  return (
    <section className="panel" aria-labelledby="passphrase-title">
      <h2 id="passphrase-title">Unlock passphrase</h2>
      <p className="hint">
        {isSet
          ? 'Unlocking QuorumKey, and revealing a mnemonic or private key a few minutes after unlocking, ask for this passphrase.'
          : 'No passphrase is set: anyone at this computer can unlock QuorumKey. Set one now; it cannot be recovered, only changed with the current one.'}
      </p>
      <form
        className="stack-form"
        aria-label={isSet ? 'Change the unlock passphrase' : 'Set an unlock passphrase'}
        onSubmit={(event) => void submit(event)}
      >
        {isSet && <SecretField label="Current passphrase" value={current} onChange={setCurrent} required />}
        <SecretField label={isSet ? 'New passphrase' : 'Passphrase'} value={passphrase} onChange={setPassphrase} required minLength={8} />
        <SecretField label="Repeat it" value={repeated} onChange={setRepeated} required />
        {mismatch && <p role="alert">The two passphrases differ.</p>}
        <button type="submit" className="primary" disabled={action.busy !== undefined || mismatch}>
          {isSet ? 'Change passphrase' : 'Set passphrase'}
        </button>
      </form>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {saved && (
        <p className="hint" aria-live="polite">
          Saved. QuorumKey asks for it from the next unlock on.
        </p>
      )}
    </section>
  );
}
