import type { Action } from '../mutations';
import { ErrorNotice } from './ErrorNotice';
import { Progress } from './Progress';

/** The end of a dialog form: its action's progress and error, then Cancel and the submit button. */
export function DialogFooter({ action, submitLabel, onCancel }: { action: Action; submitLabel: string; onCancel: () => void }) {
  return (
    <>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} />}
      <div className="button-row">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={action.busy !== undefined}>
          {submitLabel}
        </button>
      </div>
    </>
  );
}
