import { useCallback, useState, type ChangeEvent, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { Progress } from '../components/Progress';
import { SecretReveal, type RevealedSecret } from '../components/SecretReveal';
import { useAction, useLoad } from '../hooks';
import { KEY_FORMATS, type KeyFormat } from '../key-formats';

type Format = 'mnemonic' | KeyFormat;

const FORMATS: readonly { value: Format; label: string }[] = [
  { value: 'mnemonic', label: 'Wallet mnemonic' },
  ...KEY_FORMATS.map(({ value, label }) => ({ value, label: `Private key, ${label}` })),
];

/** Largest bundle file read: export bundles are about 1 kB, so anything near this is the wrong file. */
const MAX_BUNDLE_BYTES = 64 * 1024;

/**
 * Opens an export bundle without the network: checks it was signed by the chosen profile's enclave signer for its
 * organization, decrypts it with a stored encryption key, and reveals it.
 */
export function DecryptScreen() {
  const profiles = useLoad((api) => api.profiles.list());
  const encryptionKeys = useLoad((api) => api.keys.listEncryptionKeys());
  const action = useAction();
  const [bundle, setBundle] = useState('');
  const [fileProblem, setFileProblem] = useState<string>();
  const [profileId, setProfileId] = useState('');
  const [keyName, setKeyName] = useState('');
  const [format, setFormat] = useState<Format>('mnemonic');
  const [revealed, setRevealed] = useState<{ secret: RevealedSecret; signer: string; organizationId: string }>();
  const hide = useCallback(() => setRevealed(undefined), []);

  const chosenProfile = profiles.value?.find((profile) => profile.id === profileId) ?? profiles.value?.[0];
  const chosenKey = keyName === '' ? encryptionKeys.value?.[0]?.name : keyName;

  const openFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file === undefined) return;
    if (file.size > MAX_BUNDLE_BYTES) {
      setFileProblem(`${file.name} is ${file.size} bytes; an export bundle is about 1 kB. Choose the bundle file.`);
      return;
    }
    setFileProblem(undefined);
    setBundle((await file.text()).trim());
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (chosenProfile === undefined || chosenKey === undefined) return;
    const { organizationId, enclaveSignerPublicKey } = chosenProfile;
    const result = await action.run('Verifying and decrypting the bundle…', (api) =>
      api.exports.decryptBundle({
        bundle: bundle.trim(),
        encryptionKeyName: chosenKey,
        organizationId,
        signerPublicKey: enclaveSignerPublicKey,
        ...(format === 'mnemonic' ? {} : { keyFormat: format }),
      }),
    );
    if (result === undefined) return;
    setRevealed({ secret: result, signer: chosenProfile.enclaveSignerPublicKey, organizationId: chosenProfile.organizationId });
    setBundle('');
  };

  return (
    <section className="screen" aria-labelledby="decrypt-title">
      <h1 id="decrypt-title">Offline decrypt</h1>
      <p className="lead">Open an export bundle on this computer, with no network: it is verified before it is decrypted.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} onDismiss={action.clearError} />}
      {revealed !== undefined ? (
        <section className="panel" aria-labelledby="decrypted-title">
          <h2 id="decrypted-title">Verified and decrypted</h2>
          <dl className="facts">
            <dt>Signed by</dt>
            <dd>
              <code>{revealed.signer}</code> (the profile’s enclave signer)
            </dd>
            <dt>Organization</dt>
            <dd>
              <code>{revealed.organizationId}</code>
            </dd>
          </dl>
          <SecretReveal secret={revealed.secret} subject="the exported wallet or key" onHide={hide} />
        </section>
      ) : (
        <form className="panel stack-form wide" aria-label="Decrypt bundle" onSubmit={(event) => void submit(event)}>
          <label>
            Export bundle
            <textarea value={bundle} onChange={(event) => setBundle(event.target.value)} rows={5} spellCheck={false} required placeholder='{"version":"v1.0.0","data":"…","dataSignature":"…","enclaveQuorumPublic":"…"}' />
          </label>
          <label>
            Or open a bundle file
            <input type="file" accept=".json,.txt,application/json,text/plain" onChange={(event) => void openFile(event)} />
          </label>
          {fileProblem !== undefined && <p className="field-error" role="alert">{fileProblem}</p>}
          <label>
            Organization (from profile)
            <select value={chosenProfile?.id ?? ''} onChange={(event) => setProfileId(event.target.value)} required>
              {profiles.value?.map((profile) => (
                <option key={profile.id} value={profile.id}>
                  {profile.name}: {profile.organizationId}
                </option>
              ))}
            </select>
          </label>
          {chosenProfile !== undefined && (
            <p className="hint">
              Must be signed by <code>{chosenProfile.enclaveSignerPublicKey}</code>
            </p>
          )}
          <label>
            Encryption key the bundle was sealed to
            <select value={chosenKey ?? ''} onChange={(event) => setKeyName(event.target.value)} required>
              {encryptionKeys.value?.map((key) => (
                <option key={key.id} value={key.name} disabled={key.missing}>
                  {key.name}
                </option>
              ))}
            </select>
          </label>
          {encryptionKeys.value?.length === 0 && <p className="field-error">No encryption keys yet: create or import one on the Keys screen.</p>}
          <label>
            The bundle holds
            <select value={format} onChange={(event) => setFormat(event.target.value as Format)}>
              {FORMATS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="primary" disabled={action.busy !== undefined || chosenProfile === undefined || chosenKey === undefined}>
            Verify and decrypt
          </button>
        </form>
      )}
    </section>
  );
}
