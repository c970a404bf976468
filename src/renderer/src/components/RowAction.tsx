/**
 * A table row's button: it shows only the verb, and its accessible name adds the row's subject
 * ("Delete alice"), so each row's buttons can be told apart.
 */
export function RowAction({ verb, subject, danger = false, onClick }: { verb: string; subject: string; danger?: boolean; onClick: () => void }) {
  return (
    <button type="button" className={danger ? 'small danger' : 'small'} onClick={onClick} aria-label={`${verb} ${subject}`}>
      {verb}
    </button>
  );
}
