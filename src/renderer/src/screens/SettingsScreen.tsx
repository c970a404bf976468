import { useEffect, useRef, useState, type FormEvent } from 'react';
import { bridgeError } from '../../../shared/ipc/bridge';
import { THEMES, type AppSettings } from '../../../shared/ipc/contract';
import { ErrorNotice } from '../components/ErrorNotice';
import { QueryStatus } from '../components/QueryStatus';
import { Progress } from '../components/Progress';
import { PublicKey } from '../components/PublicKey';
import { SecretField } from '../components/TextFields';
import { useAction } from '../hooks';
import { useChannel, useInvalidate } from '../queries';
import { useUi } from '../store';

const THEME_LABELS: Record<AppSettings['theme'], string> = { system: 'Follow the system', light: 'Light', dark: 'Dark' };

export function SettingsScreen() {
  const settings = useUi((state) => state.settings);
  const setSettings = useUi((state) => state.setSettings);
  const info = useChannel('app.info');
  const invalidate = useInvalidate();
  const journal = useChannel('journal.verify');
  const action = useAction();
  const [savedAt, setSavedAt] = useState<string>();
  /** A change main refused until the unlock passphrase confirms it, with main's words for what it widens. */
  const [confirming, setConfirming] = useState<{ changes: Partial<AppSettings>; widens: string }>();

  const save = async (changes: Partial<AppSettings>, passphrase?: string) => {
    setSavedAt(undefined);
    const saved = await action.run('Saving settings…', async (api) => {
      try {
        return await api.app.setSettings(passphrase === undefined ? changes : { ...changes, passphrase });
      } catch (thrown) {
        const error = bridgeError(thrown);
        if (error.code !== 'PASSPHRASE_REQUIRED') throw error;
        setConfirming({ changes, widens: error.message });
        return undefined;
      }
    });
    if (saved === undefined) return;
    setConfirming(undefined);
    setSettings(saved);
    setSavedAt(new Date().toLocaleTimeString());
  };

  return (
    <section className="screen" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} onDismiss={action.clearError} />}
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
          <IdleLockForm
            minutes={settings.idleLockMinutes}
            reauthMinutes={settings.reauthMinutes}
            onSave={(changes) => void save(changes)}
          />
          {info.data !== undefined && <UnlockPassphraseForm isSet={info.data.unlockPassphraseSet} onChanged={() => invalidate('app.info')} />}
          <CaptureProtectionForm
            enabled={settings.captureProtection}
            supported={info.data?.captureProtectionSupported}
            onSave={(captureProtection) => void save({ captureProtection })}
          />
          <WarnAboveForm warnAbove={settings.warnAbove ?? {}} onSave={(warnAbove) => void save({ warnAbove })} />
        </>
      )}
      <section className="panel" aria-labelledby="journal-key-title">
        <h2 id="journal-key-title">Journal key</h2>
        <p>
          Every journal entry is signed with this key, kept in the OS keychain. Give it to your auditor: a journal signed by any other key is
          not this desktop’s.
        </p>
        {journal.error !== null && <ErrorNotice error={journal.error} />}
        {journal.data?.journalKey === undefined ? (
          <p>{journal.isPending ? 'Reading the journal…' : 'The journal begins with the first action this desktop records.'}</p>
        ) : (
          <PublicKey value={journal.data.journalKey} label="this desktop's journal" what="journal key" shortened={false} />
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
      <form className="inline-form" onSubmit={submit}>
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
        Turn this off only to record or share the app, for a demo say. While a mnemonic or private key is revealed the
        window is kept out of capture anyway.
      </p>
      {supported === false && (
        <p className="notice notice-warning">
          This OS (Linux) has no way to keep a window out of capture: screenshots and screen sharing record QuorumKey
          whatever this says.
        </p>
      )}
    </section>
  );
}

/**
 * Main asks for the unlock passphrase before a change that lowers the app's guard (a longer lock or re-auth interval,
 * capture protection off, a warning raised or removed); the field is emptied once sent, whatever the answer. It
 * appears because the person just asked for that change, so its field takes the focus.
 */
function ConfirmWideningForm({
  widens,
  busy,
  onConfirm,
  onCancel,
}: {
  widens: string;
  busy: boolean;
  onConfirm: (passphrase: string) => void;
  onCancel: () => void;
}) {
  const [passphrase, setPassphrase] = useState('');
  const passphraseField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    passphraseField.current?.focus();
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onConfirm(passphrase);
    setPassphrase('');
  };
  return (
    <section className="panel" aria-labelledby="confirm-widening-title">
      <h2 id="confirm-widening-title">Confirm with your unlock passphrase</h2>
      <p className="notice notice-warning">{widens}</p>
      <form className="stack-form" aria-label="Confirm the change" onSubmit={submit}>
        <SecretField label="Unlock passphrase" value={passphrase} onChange={setPassphrase} required ref={passphraseField} />
        <div className="button-row">
          <button type="submit" className="primary" disabled={busy}>
            Confirm the change
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

type WarnAbove = NonNullable<AppSettings['warnAbove']>;
const COINS = ['ETH', 'SOL', 'BTC'] as const;

/** Signing cards flag a request moving more than this much of the chain's coin; an empty field sets no threshold. */
function WarnAboveForm({ warnAbove, onSave }: { warnAbove: WarnAbove; onSave: (warnAbove: WarnAbove) => void }) {
  const [values, setValues] = useState<Record<(typeof COINS)[number], string>>({ ETH: warnAbove.ETH ?? '', SOL: warnAbove.SOL ?? '', BTC: warnAbove.BTC ?? '' });
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
 * Sets the unlock passphrase, or changes it with the current one. Main keeps only a salted scrypt hash; the fields
 * are emptied once sent, whatever the answer.
 */
function UnlockPassphraseForm({ isSet, onChanged }: { isSet: boolean; onChanged: () => void }) {
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
    const done = await action.run('Saving the passphrase…', (api) =>
      api.app.setUnlockPassphrase(isSet ? { passphrase, currentPassphrase: current } : { passphrase }),
    );
    setCurrent('');
    setPassphrase('');
    setRepeated('');
    if (done !== undefined) {
      setSaved(true);
      onChanged();
    }
  };

  return (
    <section className="panel" aria-labelledby="passphrase-title">
      <h2 id="passphrase-title">Unlock passphrase</h2>
      <p className="hint">
        {isSet
          ? 'Unlocking QuorumKey, and revealing a mnemonic or private key a few minutes after unlocking, ask for this passphrase.'
          : 'No passphrase is set: anyone at this computer can unlock QuorumKey. Set one now; it cannot be recovered, only changed with the current one.'}
      </p>
      <form className="stack-form" aria-label={isSet ? 'Change the unlock passphrase' : 'Set an unlock passphrase'} onSubmit={(event) => void submit(event)}>
        {isSet && <SecretField label="Current passphrase" value={current} onChange={setCurrent} required />}
        <SecretField label={isSet ? 'New passphrase' : 'Passphrase'} value={passphrase} onChange={setPassphrase} required minLength={8} />
        <SecretField label="Repeat it" value={repeated} onChange={setRepeated} required />
        {mismatch && <p role="alert">The two passphrases differ.</p>}
        <button type="submit" className="primary" disabled={action.busy !== undefined || mismatch}>
          {isSet ? 'Change passphrase' : 'Set passphrase'}
        </button>
      </form>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} onDismiss={action.clearError} />}
      {saved && <p className="hint" aria-live="polite">Saved. QuorumKey asks for it from the next unlock on.</p>}
    </section>
  );
}
