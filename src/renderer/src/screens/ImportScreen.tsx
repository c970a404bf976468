import { useState, type FormEvent } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { clearClipboardAfterPaste } from '../clipboard';
import { ErrorNotice } from '../components/ErrorNotice';
import { checkMnemonic, MnemonicField } from '../components/MnemonicField';
import { PresetSelect } from '../components/PresetSelect';
import { Progress } from '../components/Progress';
import { SelectField } from '../components/SelectField';
import { NameField, SecretField } from '../components/TextFields';
import { WaitingForVotes } from '../components/WaitingForVotes';
import { useAction, type Action } from '../mutations';
import { KEY_FORMATS, type KeyFormat } from '../key-formats';
import { ACCOUNT_PRESETS, accountsFor, addressFormatsFor, type AccountPresetId } from '../../../shared/wallets/account-presets';

interface Imported {
  what: string;
  state: 'imported' | 'consensus-needed' | 'pending' | 'rejected';
  addresses: string[];
  activity: ChannelOutput<'activities.get'>;
}

/**
 * Brings an existing wallet or private key into the service: the secret is encrypted here to the enclave's
 * verified import key and only ciphertext leaves this computer. Forms forget the secret after every attempt.
 */
export function ImportScreen() {
  const [kind, setKind] = useState<'private-key' | 'wallet'>('wallet');
  const action = useAction();
  const [result, setResult] = useState<Imported>();
  return (
    <section className="screen" aria-labelledby="import-title">
      <h1 id="import-title">Import</h1>
      <p className="lead">The secret is encrypted on this computer to the service’s enclave, which is verified first.</p>
      <div role="group" aria-label="What to import" className="segmented">
        <button type="button" aria-pressed={kind === 'wallet'} onClick={() => setKind('wallet')}>
          Wallet (mnemonic)
        </button>
        <button type="button" aria-pressed={kind === 'private-key'} onClick={() => setKind('private-key')}>
          Private key
        </button>
      </div>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {result !== undefined && <ImportResult result={result} onDismiss={() => setResult(undefined)} />}
      {kind === 'wallet' ? (
        <ImportWalletForm onResult={setResult} run={action.run} busy={action.busy !== undefined} />
      ) : (
        <ImportKeyForm onResult={setResult} run={action.run} busy={action.busy !== undefined} />
      )}
    </section>
  );
}

type Run = Action['run'];

function ImportResult({ result, onDismiss }: { result: Imported; onDismiss: () => void }) {
  if (result.state === 'consensus-needed' || result.state === 'pending')
    return <WaitingForVotes what={`importing ${result.what}`} activity={result.activity} onDismiss={onDismiss} />;
  return (
    <section className={result.state === 'imported' ? 'notice notice-info' : 'notice notice-warning'} role="status" aria-label="Import result">
      {result.state === 'imported' ? (
        <>
          <p className="notice-title">Imported {result.what}. New addresses:</p>
          <ul className="addresses">
            {result.addresses.map((address) => (
              <li key={address}>
                <code>{address}</code>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="notice-title">
          Importing {result.what} was rejected. Fingerprint: <code className="fingerprint">{result.activity.fingerprint}</code>
        </p>
      )}
      <button type="button" className="link-button" onClick={onDismiss}>
        Dismiss
      </button>
    </section>
  );
}

function ImportWalletForm({ run, busy, onResult }: { run: Run; busy: boolean; onResult: (result: Imported) => void }) {
  const [name, setName] = useState('');
  const [mnemonic, setMnemonic] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [preset, setPreset] = useState<AccountPresetId>('ethereum');
  const [count, setCount] = useState('1');
  const check = checkMnemonic(mnemonic);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const words = check.words.map(({ word }) => word).join(' ');
    const accounts = accountsFor(preset, 0, Number(count));
    const outcome = await run(`Importing wallet ${name}…`, 'imports.wallet', {
      name,
      mnemonic: words,
      ...(passphrase === '' ? {} : { passphrase }),
      accounts,
    });
    // The secret leaves the form whatever happened: a retry means pasting it again, never keeping it around.
    setMnemonic('');
    setPassphrase('');
    if (outcome === undefined) return;
    onResult({
      what: `wallet ${name}`,
      state: outcome.state,
      addresses: outcome.state === 'imported' ? outcome.result.addresses : [],
      activity: outcome.activity,
    });
    setName('');
  };

  return (
    <form className="panel stack-form wide" aria-label="Import wallet" onSubmit={(event) => void submit(event)}>
      <NameField label="Wallet name" value={name} onChange={setName} maxLength={256} />
      <MnemonicField value={mnemonic} onChange={setMnemonic} onPaste={(text) => void clearClipboardAfterPaste(text)} />
      <SecretField
        label={
          <span>
            Passphrase <span className="muted">(optional BIP-39 “25th word”)</span>
          </span>
        }
        value={passphrase}
        onChange={setPassphrase}
        onPaste={(text) => void clearClipboardAfterPaste(text)}
      />
      <PresetSelect value={preset} onChange={setPreset} label="Accounts to derive" />
      <label>
        Number of accounts
        <input type="number" min={1} max={100} value={count} onChange={(event) => setCount(event.target.value)} required />
      </label>
      <button type="submit" className="primary" disabled={busy || check.problem !== undefined}>
        Import wallet
      </button>
    </form>
  );
}

function ImportKeyForm({ run, busy, onResult }: { run: Run; busy: boolean; onResult: (result: Imported) => void }) {
  const [name, setName] = useState('');
  const [format, setFormat] = useState<KeyFormat>('hexadecimal');
  const [privateKey, setPrivateKey] = useState('');
  const [preset, setPreset] = useState<AccountPresetId>('ethereum');
  const chosen = KEY_FORMATS.find((option) => option.value === format)!;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const curve = ACCOUNT_PRESETS.find((candidate) => candidate.id === preset)!.curve;
    const outcome = await run(`Importing private key ${name}…`, 'imports.privateKey', {
      name,
      privateKey: privateKey.trim(),
      format,
      curve,
      addressFormats: addressFormatsFor(preset),
    });
    setPrivateKey('');
    if (outcome === undefined) return;
    onResult({
      what: `private key ${name}`,
      state: outcome.state,
      addresses: outcome.state === 'imported' ? outcome.result.addresses.map((address) => address.address) : [],
      activity: outcome.activity,
    });
    setName('');
  };

  return (
    <form className="panel stack-form wide" aria-label="Import private key" onSubmit={(event) => void submit(event)}>
      <NameField label="Key name" value={name} onChange={setName} maxLength={256} />
      <SelectField label="Format" value={format} options={KEY_FORMATS} onChange={setFormat} />
      <SecretField
        label="Private key"
        value={privateKey}
        onChange={setPrivateKey}
        onPaste={(text) => void clearClipboardAfterPaste(text)}
        required
        placeholder={chosen.placeholder}
      />
      <PresetSelect value={preset} onChange={setPreset} label="Curve and address" />
      <button type="submit" className="primary" disabled={busy}>
        Import private key
      </button>
    </form>
  );
}
