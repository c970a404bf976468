/**
 * The node each EVM chain's transactions are simulated on before they are signed (Settings' `nodeUrls`): a table of
 * chains and URLs with a remove action, and a form that adds one or replaces a chain's. Main checks both fields.
 */
import { useState, type FormEvent } from 'react';
import type { AppSettings } from '../../../shared/ipc/contract';
import { RowAction } from '../components/RowAction';
import { TableHead } from '../components/TableHead';

type NodeUrls = NonNullable<AppSettings['nodeUrls']>;

export function NodeUrlsPanel({ nodeUrls, onSave }: { nodeUrls: NodeUrls; onSave: (nodeUrls: NodeUrls) => Promise<boolean> }) {
  const [chain, setChain] = useState('');
  const [url, setUrl] = useState('');
  const entries = Object.entries(nodeUrls);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await onSave({ ...nodeUrls, [chain.trim()]: url.trim() })) {
      setChain('');
      setUrl('');
    }
  };
  const remove = (removed: string) => void onSave(Object.fromEntries(entries.filter(([name]) => name !== removed)));

  return (
    <section className="panel" aria-labelledby="node-urls-title">
      <h2 id="node-urls-title">Simulation nodes</h2>
      {entries.length === 0 ? (
        <p className="empty">No chain has a node: transactions are not simulated.</p>
      ) : (
        <table className="data-table" aria-label="Simulation nodes">
          <TableHead columns={['Chain', 'Node']} withActions />
          <tbody>
            {entries.map(([name, nodeUrl]) => (
              <tr key={name}>
                <th scope="row">
                  <code>{name}</code>
                </th>
                <td>
                  <code className="address">{nodeUrl}</code>
                </td>
                <td className="row-actions">
                  <RowAction verb="Remove node" subject={name} danger onClick={() => remove(name)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="inline-form" aria-label="Simulation node" onSubmit={(event) => void submit(event)}>
        <label>
          Chain (CAIP-2)
          <input value={chain} onChange={(event) => setChain(event.target.value)} required placeholder="eip155:1" autoComplete="off" />
        </label>
        <label>
          Node URL
          <input value={url} onChange={(event) => setUrl(event.target.value)} required type="url" placeholder="https://…" autoComplete="off" />
        </label>
        <button type="submit">Set node</button>
      </form>
      <p className="hint">
        Before you vote on an Ethereum transaction, this computer runs it on the latest block of its chain’s node and shows the balances it would
        change. The node’s state is trusted as it is given: use a node you run or trust.
      </p>
    </section>
  );
}
