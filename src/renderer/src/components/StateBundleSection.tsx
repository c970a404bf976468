/**
 * A waiting signing request's state bundle: the proposer saves one of the current simulation ("Save state bundle…"),
 * and a desktop without a node simulates from one ("Simulate from a state bundle…"). Main's own dialogs pick the
 * files and main checks every proof; the card shows the lines main worded and the block hash to compare.
 */
import { useState } from 'react';
import type { SimulationView } from '../../../shared/ipc/simulation';
import { useAction } from '../mutations';
import { ErrorNotice } from './ErrorNotice';
import { Progress } from './Progress';

export function StateBundleSection({ activityId }: { activityId: string }) {
  const action = useAction();
  const [saved, setSaved] = useState<{ file: string; block: string }>();
  const [fromBundle, setFromBundle] = useState<SimulationView>();
  const save = async () => {
    const result = await action.run('Saving a state bundle…', 'simulation.saveStateBundle', { activityId });
    if (result?.saved === true) setSaved({ file: result.file, block: result.block });
  };
  const simulate = async () => {
    const view = await action.run('Simulating from a state bundle…', 'simulation.fromStateBundle', { activityId });
    if (view !== undefined && view !== null) setFromBundle(view);
  };
  return (
    <section className="signing-section state-bundle" aria-label="State bundle">
      <div className="inline-form">
        <button type="button" disabled={action.busy !== undefined} onClick={() => void save()}>
          Save state bundle…
        </button>
        <button type="button" disabled={action.busy !== undefined} onClick={() => void simulate()}>
          Simulate from a state bundle…
        </button>
      </div>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {saved !== undefined && (
        <p className="notice notice-info" role="status">
          Saved the state bundle of block {saved.block} to <code>{saved.file}</code>.
        </p>
      )}
      {fromBundle?.status === 'not-simulated' && <p className="muted">Not simulated: {fromBundle.reason}</p>}
      {fromBundle?.status === 'simulated' && fromBundle.stateBundle !== undefined && (
        <>
          <h4>
            What this would do (simulated from a state bundle at block {fromBundle.block.number}, proofs checked, made by{' '}
            {fromBundle.stateBundle.madeBy})
          </h4>
          <ul className="simulation-lines" aria-label="Changes simulated from the state bundle">
            {fromBundle.lines.map((line, index) => (
              <li key={index} className={`simulation-${line.kind}`}>
                {line.text}
              </li>
            ))}
          </ul>
          {!fromBundle.stateBundle.forThisTransaction && (
            <p className="notice notice-warning">The bundle was made for another transaction; it held every value this one reads.</p>
          )}
          <p className="muted">
            Every value was checked against the state root of block <code className="address">{fromBundle.block.hash}</code>, made{' '}
            {fromBundle.stateBundle.madeAt}. The proofs show the state of that block, not that the block is the chain’s: compare its hash with a node
            or explorer you trust.
          </p>
        </>
      )}
    </section>
  );
}
