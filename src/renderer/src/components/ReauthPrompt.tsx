import { useUi } from '../store';
import { useLoad } from '../hooks';
import { ErrorNotice } from './ErrorNotice';
import { Modal } from './Modal';
import { Progress } from './Progress';
import { UnlockForm } from './UnlockForm';

/** Asks for the unlock passphrase again before main reveals a mnemonic or private key (see `call` in api.ts). */
export function ReauthPrompt() {
  const reauth = useUi((state) => state.reauth);
  if (reauth === undefined) return null;
  return <ReauthDialog done={reauth.done} cancel={reauth.cancel} />;
}

function ReauthDialog({ done, cancel }: { done: () => void; cancel: () => void }) {
  const info = useLoad((api) => api.app.info());
  return (
    <Modal title="Enter your passphrase to reveal" onClose={cancel}>
      <p className="modal-body">Revealing a mnemonic or private key asks for the unlock passphrase again when the last unlock is a few minutes old.</p>
      {info.value === undefined ? (
        <Progress label={info.loading ? 'Reading the lock state…' : undefined} />
      ) : (
        <UnlockForm
          methods={info.value}
          submitLabel="Reveal"
          submit={(api, credentials) => api.app.reauthenticate(credentials)}
          onDone={done}
          onCancel={cancel}
        />
      )}
      {info.error !== undefined && <ErrorNotice error={info.error} />}
    </Modal>
  );
}
