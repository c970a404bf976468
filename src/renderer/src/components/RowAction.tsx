/**
 * A table row's button: it shows only the verb, and its accessible name adds the row's subject
 * ("Delete alice"), so each row's buttons can be told apart.
 */
export function RowAction({
  verb,
  subject,
  danger = false,
  disabled = false,
  onClick,
}: {
  verb: string;
  subject: string;
  danger?: boolean;
  disabled?: boolean;
  onClick: () => void;
}) {
  return (
    <button type="button" className={danger ? 'small danger' : 'small'} onClick={onClick} disabled={disabled} aria-label={`${verb} ${subject}`}>
      {verb}
    </button>
  );
}
