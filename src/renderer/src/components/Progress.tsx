/** An in-progress indicator that screen readers announce. */
export function Progress({ label }: { label: string | undefined }) {
  if (label === undefined) return null;
  return (
    <p className="progress" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}
