/**
 * The organization's MFA policies in main's words: per user, in the order the service evaluates them, the condition
 * read as a policy's is and the authenticators an activity it matches waits for.
 */
import { PolicyExpression } from './PolicyExpression';
import { QueryStatus } from './QueryStatus';
import { useChannel } from '../queries';

export function MfaPolicyList() {
  const mfaPolicies = useChannel('policies.mfaList');
  return (
    <section className="panel" aria-labelledby="mfa-policy-list-title">
      <h2 id="mfa-policy-list-title">MFA policies</h2>
      <p className="muted">
        An activity a user approves waits for that user&rsquo;s authenticators when the first of their MFA policies whose condition holds asks for
        them.
      </p>
      <QueryStatus query={mfaPolicies} loading="Loading MFA policies…" />
      {mfaPolicies.data !== undefined &&
        (mfaPolicies.data.length === 0 ? (
          <p className="empty">No MFA policies: an approval counts as stamped, with whatever credential stamped it.</p>
        ) : (
          <table className="data-table" aria-label="MFA policies">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">User</th>
                <th scope="col">Order</th>
                <th scope="col">In words</th>
                <th scope="col">Notes</th>
              </tr>
            </thead>
            <tbody>
              {mfaPolicies.data.map((policy) => (
                <tr key={policy.mfaPolicyId}>
                  <th scope="row">{policy.mfaPolicyName}</th>
                  <td>{policy.userName || policy.userId}</td>
                  <td>{policy.order}</td>
                  <td>
                    Activities where <PolicyExpression pieces={policy.conditionReading} /> {policy.requirement}
                  </td>
                  <td>{policy.notes}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}
