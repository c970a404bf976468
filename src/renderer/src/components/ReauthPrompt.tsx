import { useUi } from '../store';
import { useChannel } from '../queries';
import { Modal } from './Modal';
import { QueryStatus } from './QueryStatus';
import { UnlockForm } from './UnlockForm';

/** Asks for the unlock passphrase again before main reveals a mnemonic or private key (see `call` in api.ts). */
export function ReauthPrompt() {
  const reauth = useUi((state) => state.reauth);
  if (reauth === undefined) return null;
  return <ReauthDialog done={reauth.done} cancel={reauth.cancel} />;
}

function ReauthDialog({ done, cancel }: { done: () => void; cancel: () => void }) {
  const info = useChannel('app.info');
  return (
    <Modal title="Enter your passphrase to reveal" onClose={cancel}>
      <p className="modal-body">
        Revealing a mnemonic or private key asks for the unlock passphrase again when the last unlock is a few minutes old.
      </p>
      <QueryStatus query={info} loading="Reading the lock state…" />
      {info.data !== undefined && (
        <UnlockForm methods={info.data} submitLabel="Reveal" channel="app.reauthenticate" onDone={done} onCancel={cancel} />
      )}
    </Modal>
  );
}
