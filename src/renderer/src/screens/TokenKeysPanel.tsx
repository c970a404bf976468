import { useRef, useState, type FormEvent } from 'react';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import { DialogFooter } from '../components/DialogFooter';
import { ErrorNotice } from '../components/ErrorNotice';
import { Modal } from '../components/Modal';
import { ProfileSelect } from '../components/ProfileSelect';
import { Progress } from '../components/Progress';
import { PublicKey } from '../components/PublicKey';
import { QueryStatus } from '../components/QueryStatus';
import { RowAction } from '../components/RowAction';
import { TableHead } from '../components/TableHead';
import { NameField } from '../components/TextFields';
import { useAction } from '../mutations';
import { useChannel } from '../queries';

type TokenInfo = ChannelOutput<'keys.listTokens'>[number];
type TokenKey = ChannelOutput<'keys.listTokenKeys'>[number];

/**
 * Keys on PKCS#11 tokens (a YubiKey, a smart card, SoftHSM2): choose a module main offers and a token it sees, open
 * it (main asks the PIN in its own window; this screen never sees it), then list, generate and use its keys.
 */
export function TokenKeysPanel() {
  const modules = useChannel('keys.pkcs11Modules');
  const action = useAction();
  const [module, setModule] = useState<string>();
  const [tokens, setTokens] = useState<TokenInfo[]>();
  const [token, setToken] = useState<TokenInfo>();
  const [keys, setKeys] = useState<TokenKey[]>();
  const [using, setUsing] = useState<TokenKey>();

  const chooseModule = async (path: string) => {
    setModule(path);
    setTokens(undefined);
    setToken(undefined);
    setKeys(undefined);
    const found = await action.run(`Looking for tokens in ${path}…`, 'keys.listTokens', { module: path });
    if (found !== undefined) setTokens(found);
  };
  const openToken = async (chosen: TokenInfo) => {
    setToken(chosen);
    setKeys(undefined);
    const listed = await action.run(`Opening token ${chosen.tokenLabel} (QuorumKey asks its PIN in its own window)…`, 'keys.listTokenKeys', {
      module: chosen.module,
      tokenLabel: chosen.tokenLabel,
    });
    if (listed !== undefined) setKeys(listed);
  };

  return (
    <section className="panel" aria-labelledby="token-keys-title">
      <h2 id="token-keys-title">Keys on hardware tokens</h2>
      <p className="hint">
        An API key generated on a PKCS#11 token signs there: its private key cannot be read off the token, and each session asks the token’s PIN in a
        QuorumKey window of its own.
      </p>
      <QueryStatus query={modules} loading="Looking for PKCS#11 modules…" />
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {modules.data !== undefined && modules.data.length === 0 && (
        <p className="empty">No PKCS#11 module is installed here. Install SoftHSM2, OpenSC or Yubico’s ykcs11 to use a token.</p>
      )}
      {modules.data !== undefined && modules.data.length > 0 && (
        <div className="inline-form">
          <label>
            Module
            <select value={module ?? ''} onChange={(event) => void chooseModule(event.target.value)}>
              <option value="" disabled>
                Choose a module
              </option>
              {modules.data.map((choice) => (
                <option key={choice.path} value={choice.path}>
                  {choice.name}: {choice.path}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      {tokens !== undefined && tokens.length === 0 && <p className="empty">The module sees no token. Is it plugged in?</p>}
      {tokens !== undefined && tokens.length > 0 && (
        <table className="data-table" aria-label="Tokens">
          <TableHead columns={['Token', 'Serial', 'Made by']} withActions />
          <tbody>
            {tokens.map((candidate) => (
              <tr key={`${candidate.tokenLabel}/${candidate.serial}`} aria-current={candidate === token ? 'true' : undefined}>
                <th scope="row">{candidate.tokenLabel}</th>
                <td>
                  <code>{candidate.serial}</code>
                </td>
                <td>
                  {candidate.manufacturer} {candidate.model}
                </td>
                <td className="row-actions">
                  <RowAction verb="Open" subject={`token ${candidate.tokenLabel}`} onClick={() => void openToken(candidate)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {token !== undefined && keys !== undefined && (
        <>
          <TokenKeyTable token={token} keys={keys} onUse={setUsing} />
          <GenerateTokenKeyForm token={token} onDone={() => void openToken(token)} />
        </>
      )}
      {using !== undefined && (
        <UseTokenKeyDialog
          tokenKey={using}
          onClose={() => setUsing(undefined)}
          onDone={() => {
            setUsing(undefined);
            if (token !== undefined) void openToken(token);
          }}
        />
      )}
    </section>
  );
}

function TokenKeyTable({ token, keys, onUse }: { token: TokenInfo; keys: TokenKey[]; onUse: (key: TokenKey) => void }) {
  if (keys.length === 0) return <p className="empty">Token {token.tokenLabel} holds no P-256 key yet. Generate one below.</p>;
  return (
    <table className="data-table" aria-label={`Keys on token ${token.tokenLabel}`}>
      <TableHead columns={['Key', 'CKA_ID', 'Public key', 'Token', 'Private key', 'Used by']} withActions />
      <tbody>
        {keys.map((key) => (
          <tr key={`${key.keyLabel}/${key.keyId ?? ''}`}>
            <th scope="row">{key.keyLabel}</th>
            <td>{key.keyId === undefined ? <span className="muted">none</span> : <code>{key.keyId}</code>}</td>
            <td>
              <PublicKey value={key.publicKey} label={key.keyLabel} />
            </td>
            <td>
              {token.tokenLabel} <span className="muted">serial {token.serial}</span>
            </td>
            <td>
              {!key.canSign ? (
                <span className="badge badge-warning">not on this token</span>
              ) : key.keptOnToken ? (
                <span className="badge">on hardware: not extractable</span>
              ) : (
                <span className="badge badge-warning" title="The token lets this private key be copied off it">
                  extractable
                </span>
              )}
            </td>
            <td>{key.usedByProfiles.length === 0 ? <span className="muted">no profile</span> : key.usedByProfiles.join(', ')}</td>
            <td className="row-actions">{key.canSign && <RowAction verb="Use for a profile" subject={key.keyLabel} onClick={() => onUse(key)} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function GenerateTokenKeyForm({ token, onDone }: { token: TokenInfo; onDone: () => void }) {
  const action = useAction();
  const [keyLabel, setKeyLabel] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const generated = await action.run(`Generating key ${keyLabel} on token ${token.tokenLabel}…`, 'keys.generateTokenKey', {
      module: token.module,
      tokenLabel: token.tokenLabel,
      keyLabel,
    });
    if (generated === undefined) return;
    setKeyLabel('');
    onDone();
  };
  return (
    <form className="inline-form" onSubmit={(event) => void submit(event)} aria-label={`Generate a key on token ${token.tokenLabel}`}>
      <NameField label="Key label" value={keyLabel} onChange={setKeyLabel} maxLength={32} />
      <button type="submit" className="primary" disabled={action.busy !== undefined}>
        Generate on token
      </button>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
    </form>
  );
}

function UseTokenKeyDialog({ tokenKey, onClose, onDone }: { tokenKey: TokenKey; onClose: () => void; onDone: () => void }) {
  const profiles = useChannel('profiles.list');
  // Its own action, so a refusal (a cancelled confirmation, a wrong PIN) is shown inside the dialog.
  const action = useAction();
  const [profileId, setProfileId] = useState('');
  const profileField = useRef<HTMLSelectElement>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { module, tokenLabel, keyLabel, keyId } = tokenKey;
    const key = { module, tokenLabel, keyLabel, ...(keyId === undefined ? {} : { keyId }) };
    const updated = await action.run(`Switching the profile to key ${keyLabel}…`, 'profiles.useTokenKey', { id: profileId, key });
    if (updated !== undefined) onDone();
  };
  return (
    <Modal title={`Sign with token key ${tokenKey.keyLabel}`} onClose={onClose} initialFocus={profileField}>
      <form className="stack-form" onSubmit={(event) => void submit(event)}>
        <QueryStatus query={profiles} loading="Loading profiles…" />
        <ProfileSelect value={profileId} onChange={setProfileId} none="Choose a profile" required ref={profileField} />
        <p className="hint">
          The profile’s requests are then stamped on token {tokenKey.tokenLabel}. The service must know this public key as one of the user’s API keys.
          QuorumKey confirms the change in its own dialog first.
        </p>
        <DialogFooter action={action} submitLabel="Use this key" onCancel={onClose} />
      </form>
    </Modal>
  );
}
