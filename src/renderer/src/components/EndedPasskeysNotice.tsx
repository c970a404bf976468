import { useAction } from '../mutations';
import { useChannel } from '../queries';
import { ErrorNotice } from './ErrorNotice';

/**
 * Tells the person, on any screen, that a security key they added was not attached once its registration ended
 * (rejected, failed, expired, another credential, its profile moved): main's words for which key, why and what to do.
 * Each stays until dismissed, across restarts.
 */
export function EndedPasskeysNotice({ onOpenKeys }: { onOpenKeys: () => void }) {
  const notices = useChannel('passkeys.notices');
  const action = useAction();
  if (notices.data === undefined || (notices.data.length === 0 && action.error === undefined)) return null;
  return (
    <>
      {notices.data.map((notice) => (
        <div key={notice.activityId} className="notice notice-warning" role="status" aria-label="Security key not added">
          <p className="notice-title">{notice.what}</p>
          <p className="notice-next">{notice.next}</p>
          <button type="button" className="link-button" onClick={onOpenKeys}>
            Open Keys
          </button>{' '}
          <button
            type="button"
            className="link-button"
            disabled={action.busy !== undefined}
            onClick={() => void action.run('Dismissing the notice…', 'passkeys.dismissNotice', { activityId: notice.activityId })}
          >
            Dismiss
          </button>
        </div>
      ))}
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
    </>
  );
}
