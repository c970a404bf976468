import { useCallback, useState, type ChangeEvent, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { Progress } from '../components/Progress';
import { SecretReveal, type RevealedSecret } from '../components/SecretReveal';
import { SelectField, type SelectOption } from '../components/SelectField';
import { useAction } from '../mutations';
import { useChannel } from '../queries';
import { KEY_FORMATS, type KeyFormat } from '../key-formats';
import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY } from '../../../shared/crypto/signers';
import { SignerKeyField, signerOrigin, signerProblem } from '../components/SignerKeyField';
import { publicKeyFingerprint } from '../../../shared/describe';
import { parseExportFile, type ExportFile } from '../../../shared/offline/export-file';

type Format = 'mnemonic' | KeyFormat;

const FORMATS: readonly SelectOption<Format>[] = [
  { value: 'mnemonic', label: 'Wallet mnemonic' },
  ...KEY_FORMATS.map(({ value, label }) => ({ value, label: `Private key, ${label}` })),
];

/** The service's longest organization id (the channel's own limit). */
const MAX_ORGANIZATION_ID_LENGTH = 64;

type TrustSource = 'profile' | 'manual';

/** Why a manually entered organization id cannot be used, or undefined when it can. */
function organizationProblem(organizationId: string): string | undefined {
  const trimmed = organizationId.trim();
  if (trimmed === '') return 'Enter the organization id the bundle was exported from.';
  if (trimmed.length > MAX_ORGANIZATION_ID_LENGTH)
    return `An organization id is at most ${MAX_ORGANIZATION_ID_LENGTH} characters; this one has ${trimmed.length}.`;
  if (/\s/u.test(trimmed)) return 'An organization id has no spaces inside; paste it again.';
  return undefined;
}

/** Largest bundle file read: export bundles are about 1 kB, so anything near this is the wrong file. */
const MAX_BUNDLE_BYTES = 64 * 1024;

/**
 * Opens an export bundle without the network: checks it was signed by the expected enclave signer for the expected
 * organization (a saved profile's, or entered by hand where there is no profile), decrypts it with a stored
 * encryption key, and reveals it.
 */
export function DecryptScreen() {
  const profiles = useChannel('profiles.list');
  const encryptionKeys = useChannel('keys.listEncryptionKeys');
  const action = useAction();
  const [bundle, setBundle] = useState('');
  const [fileProblem, setFileProblem] = useState<string>();
  const [trustSource, setTrustSource] = useState<TrustSource>('profile');
  const [profileId, setProfileId] = useState('');
  const [manualOrganizationId, setManualOrganizationId] = useState('');
  const [manualSigner, setManualSigner] = useState(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY);
  const [keyName, setKeyName] = useState('');
  const [format, setFormat] = useState<Format>('mnemonic');
  const [revealed, setRevealed] = useState<{ secret: RevealedSecret; signer: string; signerOrigin: string; organizationId: string }>();
  // A file saved by "Save bundle to file" says whose bundle it is and which key it is sealed to.
  const [exportFile, setExportFile] = useState<ExportFile>();
  const hide = useCallback(() => setRevealed(undefined), []);

  const chosenProfile = profiles.data?.find((profile) => profile.id === profileId) ?? profiles.data?.[0];
  const chosenKey = keyName === '' ? encryptionKeys.data?.[0]?.name : keyName;
  // With no saved profile (an air-gapped machine) the only way is to type what to trust.
  const source: TrustSource = profiles.data?.length === 0 ? 'manual' : trustSource;
  const manualOrganizationProblem = organizationProblem(manualOrganizationId);
  const manualSignerProblem = signerProblem(manualSigner);
  const trusted =
    source === 'manual'
      ? manualOrganizationProblem === undefined && manualSignerProblem === undefined
        ? {
            organizationId: manualOrganizationId.trim(),
            signerPublicKey: manualSigner.trim().toLowerCase(),
            signerOrigin: signerOrigin(manualSigner),
          }
        : undefined
      : chosenProfile === undefined
        ? undefined
        : {
            organizationId: chosenProfile.organizationId,
            signerPublicKey: chosenProfile.enclaveSignerPublicKey,
            signerOrigin: `the enclave signer of profile ${chosenProfile.name}`,
          };

  const openFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file === undefined) return;
    if (file.size > MAX_BUNDLE_BYTES) {
      setFileProblem(`${file.name} is ${file.size} bytes; an export bundle is about 1 kB. Choose the bundle file.`);
      return;
    }
    setFileProblem(undefined);
    readBundle((await file.text()).trim());
  };

  /** Takes a bare bundle as it is; an export file also chooses the organization, the key and the format. */
  const readBundle = (text: string) => {
    const saved = parseExportFile(text);
    setExportFile(saved);
    if (saved === undefined) {
      setBundle(text);
      return;
    }
    setBundle(saved.exportBundle);
    const profile = profiles.data?.find((candidate) => candidate.organizationId === saved.organizationId);
    if (profile !== undefined) {
      setTrustSource('profile');
      setProfileId(profile.id);
    } else {
      setTrustSource('manual');
      setManualOrganizationId(saved.organizationId);
    }
    const key = encryptionKeys.data?.find((candidate) => candidate.publicKey.toLowerCase() === saved.targetPublicKey.toLowerCase());
    if (key !== undefined) setKeyName(key.name);
    setFormat(saved.exported === 'wallet' ? 'mnemonic' : 'hexadecimal');
  };
  const sealedToUnknownKey =
    exportFile !== undefined &&
    encryptionKeys.data?.some((key) => key.publicKey.toLowerCase() === exportFile.targetPublicKey.toLowerCase()) === false;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (trusted === undefined || chosenKey === undefined) return;
    const { organizationId, signerPublicKey } = trusted;
    const result = await action.run('Verifying and decrypting the bundle…', 'exports.decryptBundle', {
      bundle: bundle.trim(),
      encryptionKeyName: chosenKey,
      organizationId,
      signerPublicKey,
      ...(format === 'mnemonic' ? {} : { keyFormat: format }),
    });
    if (result === undefined) return;
    setRevealed({ secret: result, signer: signerPublicKey, signerOrigin: trusted.signerOrigin, organizationId });
    setBundle('');
  };

  return (
    <section className="screen" aria-labelledby="decrypt-title">
      <h1 id="decrypt-title">Offline decrypt</h1>
      <p className="lead">Open an export bundle on this computer, with no network: it is verified before it is decrypted.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {revealed !== undefined ? (
        <section className="panel" aria-labelledby="decrypted-title">
          <h2 id="decrypted-title">Verified and decrypted</h2>
          <dl className="facts">
            <dt>Signed by</dt>
            <dd>
              <code>{revealed.signer}</code> ({revealed.signerOrigin})
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
            <textarea
              value={bundle}
              onChange={(event) => readBundle(event.target.value)}
              rows={5}
              spellCheck={false}
              required
              placeholder='{"version":"v1.0.0","data":"…","dataSignature":"…","enclaveQuorumPublic":"…"}'
            />
          </label>
          <label>
            Or open a bundle file
            <input type="file" accept=".json,.txt,application/json,text/plain" onChange={(event) => void openFile(event)} />
          </label>
          {fileProblem !== undefined && (
            <p className="field-error" role="alert">
              {fileProblem}
            </p>
          )}
          {exportFile !== undefined && (
            <p className="notice notice-info" role="status">
              An export of{' '}
              {exportFile.exported === 'wallet' ? 'a wallet' : exportFile.exported === 'private-key' ? 'a private key' : 'a wallet account'} from
              organization <code>{exportFile.organizationId}</code>: the organization, the key and the format below are chosen from it.
            </p>
          )}
          {sealedToUnknownKey && (
            <p className="notice notice-warning" role="alert">
              No encryption key on this desktop can open it: it is sealed to the key with fingerprint{' '}
              <code>{publicKeyFingerprint(exportFile.targetPublicKey)}</code>. Import that key on the Keys screen, or open the bundle on the desktop
              that holds it.
            </p>
          )}
          <fieldset className="choice-group">
            <legend>Organization and signer to trust</legend>
            <label className="radio">
              <input
                type="radio"
                name="trust-source"
                value="profile"
                checked={source === 'profile'}
                disabled={profiles.data?.length === 0}
                onChange={() => setTrustSource('profile')}
              />
              From a saved profile
            </label>
            <label className="radio">
              <input type="radio" name="trust-source" value="manual" checked={source === 'manual'} onChange={() => setTrustSource('manual')} />
              Enter manually
            </label>
          </fieldset>
          {source === 'profile' ? (
            <>
              <label>
                Organization (from profile)
                <select value={chosenProfile?.id ?? ''} onChange={(event) => setProfileId(event.target.value)} required>
                  {profiles.data?.map((profile) => (
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
            </>
          ) : (
            <>
              {profiles.data?.length === 0 && <p className="hint">No saved profile on this computer: enter what the bundle must match.</p>}
              <label>
                Organization id
                <input
                  value={manualOrganizationId}
                  onChange={(event) => setManualOrganizationId(event.target.value)}
                  spellCheck={false}
                  autoComplete="off"
                  aria-invalid={manualOrganizationId !== '' && manualOrganizationProblem !== undefined}
                  aria-describedby="manual-organization-problem"
                />
              </label>
              {manualOrganizationId !== '' && manualOrganizationProblem !== undefined && (
                <p className="field-error" id="manual-organization-problem">
                  {manualOrganizationProblem}
                </p>
              )}
              <SignerKeyField value={manualSigner} onChange={setManualSigner} />
            </>
          )}
          <label>
            Encryption key the bundle was sealed to
            <select value={chosenKey ?? ''} onChange={(event) => setKeyName(event.target.value)} required>
              {encryptionKeys.data?.map((key) => (
                <option key={key.id} value={key.name} disabled={key.missing}>
                  {key.name}
                </option>
              ))}
            </select>
          </label>
          {encryptionKeys.data?.length === 0 && <p className="field-error">No encryption keys yet: create or import one on the Keys screen.</p>}
          <SelectField label="The bundle holds" value={format} options={FORMATS} onChange={setFormat} />
          <button type="submit" className="primary" disabled={action.busy !== undefined || trusted === undefined || chosenKey === undefined}>
            Verify and decrypt
          </button>
        </form>
      )}
    </section>
  );
}
