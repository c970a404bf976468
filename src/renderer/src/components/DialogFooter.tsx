import type { Action } from '../mutations';
import { ErrorNotice } from './ErrorNotice';
import { Progress } from './Progress';

/**
 * The end of a dialog form: its action's progress and error, then Cancel and the submit button, which waits while the
 * action runs and while `submitDisabled` (what the form still lacks, said by the form above it).
 */
export function DialogFooter({
  action,
  submitLabel,
  submitDisabled = false,
  onCancel,
}: {
  action: Action;
  submitLabel: string;
  submitDisabled?: boolean;
  onCancel: () => void;
}) {
  return (
    <>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} />}
      <div className="button-row">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={action.busy !== undefined || submitDisabled}>
          {submitLabel}
        </button>
      </div>
    </>
  );
}
