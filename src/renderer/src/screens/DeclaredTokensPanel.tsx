import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { DeclaredToken, DeclaredTokenView } from '../../../shared/ipc/contract';
import { ConfirmWideningForm } from '../components/ConfirmWideningForm';
import { ErrorNotice } from '../components/ErrorNotice';
import { QueryStatus } from '../components/QueryStatus';
import { Progress } from '../components/Progress';
import { RowAction } from '../components/RowAction';
import { chainIdOf, DEFAULT_NETWORK, evmNetworkName, NetworkField, type NetworkValue } from '../components/NetworkField';
import { TableHead } from '../components/TableHead';
import { AddressField } from '../components/TextFields';
import { useAction, type AnswersError } from '../mutations';
import { useChannel } from '../queries';

function networkWords(token: DeclaredToken): string {
  if (token.family === 'solana') return 'Solana';
  const named = evmNetworkName(token.chainId);
  return named === undefined ? `chain id ${token.chainId}` : `${named} (chain id ${token.chainId})`;
}

/**
 * Tokens operators declared: a symbol and decimals per contract address (or SPL mint), so signing cards read amounts
 * in the token's units instead of raw integers. Kept by this app for every profile; the well-known tokens (USDC,
 * USDT, DAI, WETH…) are built in and need no declaration.
 */
export function DeclaredTokensPanel({ prefill }: { prefill?: { address: string } | undefined }) {
  const tokens = useChannel('tokens.list');
  const action = useAction();

  /** A change main asked the unlock passphrase for (a declaration in use changed or removed), in main's words. */
  const [confirming, setConfirming] = useState<{ widens: string; send: (passphrase: string) => void }>();

  /**
   * Declares or removes through main; when main answers that the change needs the unlock passphrase, asks for it and
   * sends the same change again with it. Resolves whether the change was saved.
   */
  const change = async (
    send: (passphrase: string | undefined, answersError: AnswersError) => Promise<DeclaredToken[] | undefined>,
    passphrase?: string,
  ): Promise<boolean> => {
    const result = await send(passphrase, (error) => {
      if (error.code !== 'PASSPHRASE_REQUIRED') return false;
      setConfirming({ widens: error.message, send: (given) => void change(send, given) });
      return true;
    });
    if (result === undefined) return false;
    setConfirming(undefined);
    return true;
  };

  const remove = (token: DeclaredTokenView) => {
    const key =
      token.family === 'solana'
        ? { family: token.family, address: token.address }
        : { family: token.family, chainId: token.chainId, address: token.address };
    void change((passphrase, answersError) =>
      action.run(`Removing ${token.symbol}…`, 'tokens.remove', passphrase === undefined ? { token: key } : { token: key, passphrase }, answersError),
    );
  };
  const declare = (token: DeclaredToken) =>
    change((passphrase, answersError) =>
      action.run(`Declaring ${token.symbol}…`, 'tokens.declare', passphrase === undefined ? { token } : { token, passphrase }, answersError),
    );

  return (
    <section className="panel" aria-labelledby="tokens-title">
      <h2 id="tokens-title">Declared tokens</h2>
      <p className="hint">
        Signing cards show amounts of well-known tokens (USDC, USDT, DAI, WETH, WBTC, LINK, UNI) in their units. For any other token, declare its
        symbol and decimals here; a token nobody declared is shown in raw units, never with guessed decimals. The symbols and names of the well-known
        tokens belong to their own contracts: a declaration that imitates one, at any other address, is refused.
      </p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} during={action.failed} onDismiss={action.clearError} />}
      {confirming !== undefined && (
        <ConfirmWideningForm
          widens={confirming.widens}
          busy={action.busy !== undefined}
          onConfirm={confirming.send}
          onCancel={() => {
            setConfirming(undefined);
            action.clearError();
          }}
        />
      )}
      <QueryStatus query={tokens} loading="Loading declared tokens…" />
      {tokens.data !== undefined &&
        (tokens.data.length === 0 ? (
          <p className="empty">No tokens declared.</p>
        ) : (
          <table className="data-table" aria-label="Declared tokens">
            <TableHead columns={['Symbol', 'Network', 'Address', 'Decimals', 'Name']} withActions />
            <tbody>
              {tokens.data.map((token) => (
                <tr key={`${networkWords(token)}-${token.address}`}>
                  <th scope="row">
                    {token.symbol}
                    {token.notRead !== undefined && <span className="badge badge-warning">not read</span>}
                  </th>
                  <td>{networkWords(token)}</td>
                  <td>
                    <code className="address">{token.address}</code>
                  </td>
                  <td>{token.decimals}</td>
                  <td>
                    {token.name ?? ''}
                    {token.notRead !== undefined && (
                      <p className="notice notice-warning">Imitates a known token, so amounts of it read in raw units: {token.notRead}.</p>
                    )}
                  </td>
                  <td className="row-actions">
                    <RowAction verb="Remove" subject={`${token.symbol} on ${networkWords(token)}`} danger onClick={() => remove(token)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {/* A new form for each interface it starts from. */}
      <DeclareTokenForm key={prefill?.address ?? ''} prefill={prefill} busy={action.busy !== undefined} onDeclare={declare} />
    </section>
  );
}

/**
 * Declares one token. Started from an uploaded Ethereum interface ("Declare token" on its row), it holds that
 * address on an EVM chain and takes the person to the symbol next.
 */
function DeclareTokenForm({
  prefill,
  busy,
  onDeclare,
}: {
  prefill: { address: string } | undefined;
  busy: boolean;
  /** Resolves whether the declaration was saved. */
  onDeclare: (token: DeclaredToken) => Promise<boolean>;
}) {
  const [network, setNetwork] = useState<NetworkValue>(DEFAULT_NETWORK);
  const [address, setAddress] = useState(prefill?.address ?? '');
  const [symbol, setSymbol] = useState('');
  const [decimals, setDecimals] = useState('');
  const [name, setName] = useState('');
  const symbolInput = useRef<HTMLInputElement>(null);

  // "Declare token" on an uploaded Ethereum interface: its address, on an EVM chain, and the symbol next.
  useEffect(() => {
    if (prefill === undefined) return;
    symbolInput.current?.scrollIntoView({ block: 'center' });
    symbolInput.current?.focus();
  }, [prefill]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const fields = {
      address: address.trim(),
      symbol: symbol.trim(),
      decimals: Number(decimals),
      ...(name.trim() === '' ? {} : { name: name.trim() }),
    };
    const chainId = chainIdOf(network);
    const token: DeclaredToken = chainId === undefined ? { family: 'solana', ...fields } : { family: 'ethereum', chainId, ...fields };
    if (await onDeclare(token)) {
      setAddress('');
      setSymbol('');
      setDecimals('');
      setName('');
    }
  };

  return (
    <form className="stack-form" aria-label="Declare a token" onSubmit={(event) => void submit(event)}>
      <NetworkField value={network} onChange={setNetwork} withSolana />
      <AddressField label={network.choice === 'solana' ? 'Mint address' : 'Token contract address'} value={address} onChange={setAddress} />
      <label>
        Symbol
        <input
          ref={symbolInput}
          value={symbol}
          onChange={(event) => setSymbol(event.target.value)}
          required
          maxLength={16}
          autoComplete="off"
          placeholder="ACME"
        />
      </label>
      <label>
        Decimals
        <input
          value={decimals}
          onChange={(event) => setDecimals(event.target.value)}
          required
          inputMode="numeric"
          pattern="[0-9]{1,2}"
          autoComplete="off"
          placeholder="18"
        />
      </label>
      <label>
        Name (optional)
        <input value={name} onChange={(event) => setName(event.target.value)} maxLength={64} autoComplete="off" />
      </label>
      <div className="button-row start">
        <button type="submit" className="primary" disabled={busy}>
          Declare token
        </button>
      </div>
    </form>
  );
}
