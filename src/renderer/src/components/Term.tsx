import type { ReactNode } from 'react';

/**
 * One row of a `.facts` list: a label and its value as a bare dt/dd pair, since the list's grid lays out its
 * children in two columns (a wrapper around the pair would take one cell).
 */
export function Term({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}
