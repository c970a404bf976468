import type { ReactNode } from 'react';

/**
 * The last row of a form shown in place (not in a dialog: DialogFooter ends those): its submit button, then Cancel,
 * then `children` (a note on why it cannot be submitted yet). `align="end"` for a form standing alone in its panel.
 */
export function FormActions({
  submitLabel,
  submitDisabled,
  onCancel,
  align = 'start',
  children,
}: {
  submitLabel: string;
  submitDisabled: boolean;
  onCancel: () => void;
  align?: 'start' | 'end';
  children?: ReactNode;
}) {
  return (
    <div className={align === 'start' ? 'button-row start' : 'button-row'}>
      <button type="submit" className="primary" disabled={submitDisabled}>
        {submitLabel}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      {children}
    </div>
  );
}
