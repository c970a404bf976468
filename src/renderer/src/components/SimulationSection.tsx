/**
 * What a signing request's transaction would do, as main's EVM found it on the latest block of the node Settings
 * names for its chain: the lines main worded (balance changes, allowances, a revert), under the block they ran on
 * and the node that gave the state, or why it was not simulated. An approval card asks for a waiting activity's, the
 * Sign screen's preview for the request not yet submitted.
 */
import type { UseQueryResult } from '@tanstack/react-query';
import type { QkError } from '../../../shared/errors';
import type { SimulationView } from '../../../shared/ipc/simulation';
import { useChannel } from '../queries';
import { QueryStatus } from './QueryStatus';
import type { SigningRequest } from './SigningRequestFields';

export function SimulationSection({ activityId }: { activityId: string }) {
  return <SimulationLines simulation={useChannel('simulation.forActivity', { activityId })} />;
}

export function RequestSimulationSection({ request }: { request: SigningRequest }) {
  return <SimulationLines simulation={useChannel('simulation.forRequest', { request })} />;
}

function SimulationLines({ simulation }: { simulation: UseQueryResult<SimulationView, QkError> }) {
  const view = simulation.data;
  return (
    <section className="signing-section simulation" aria-label="What this would do">
      {view === undefined ? (
        <>
          <h4>What this would do</h4>
          <QueryStatus query={simulation} loading="Simulating on the node’s latest block…" />
        </>
      ) : view.status === 'not-simulated' ? (
        <>
          <h4>What this would do</h4>
          <p className="muted">Not simulated: {view.reason}</p>
        </>
      ) : (
        <>
          <h4>What this would do (simulated at block {view.block.number})</h4>
          <ul className="simulation-lines" aria-label="Simulated changes">
            {view.lines.map((line, index) => (
              <li key={index} className={`simulation-${line.kind}`}>
                {line.text}
              </li>
            ))}
          </ul>
          <p className="muted">
            From the state {view.node} gave for block <code className="address">{view.block.hash}</code>: only as true as that node.
          </p>
        </>
      )}
    </section>
  );
}
