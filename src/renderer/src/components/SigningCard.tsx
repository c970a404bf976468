/**
 * The clear-signing card: what a signature will do in words (chain, signer, recipient, amounts, decoded call, typed
 * data, instructions, inputs and outputs), what is unusual, and where the organization's policies stand. The same
 * card serves the approval queue and the Sign screen; every number arrives formatted from main, with the exact
 * integer on hover.
 */
import { effectInWords } from '../../../shared/describe';
import { useState, type ReactNode } from 'react';
import { activityOperations } from '../../../shared/api/activities';
import type {
  AddressRefView,
  AmountView,
  PolicyStandingView,
  ReadableNodeView,
  SigningCardView,
  SigningDetailsView,
} from '../../../shared/ipc/signing';
import { useLoad } from '../hooks';
import { ErrorNotice } from './ErrorNotice';
import { Progress } from './Progress';

const SIGNING_ACTIVITY_TYPES: ReadonlySet<string> = new Set(
  (['sign_raw_payload', 'sign_raw_payloads', 'sign_transaction'] as const).map((operation) => activityOperations[operation].activityType),
);

export function isSigningActivity(type: string): boolean {
  return SIGNING_ACTIVITY_TYPES.has(type);
}

/**
 * A signing activity's card, read from main (the description and the policies' standing are worked out there). Give
 * it a `key` that changes with the votes, so a vote reloads where the consensus stands.
 */
export function SigningCardLoader({ activityId }: { activityId: string }) {
  const card = useLoad((api) => api.signing.describe({ activityId }));
  if (card.error !== undefined) return <ErrorNotice error={card.error} />;
  if (card.value === undefined) return <Progress label="Reading what this signs…" />;
  return <SigningCard card={card.value} />;
}

type Details<K extends SigningDetailsView['kind']> = Extract<SigningDetailsView, { kind: K }>;

export function SigningCard({ card, heading = 'h3' }: { card: SigningCardView; heading?: 'h2' | 'h3' }) {
  const { description, standing } = card;
  const Heading = heading;
  return (
    <article className="signing-card" aria-label={description.title}>
      <Heading className="signing-title">{description.title}</Heading>
      <p className="signing-summary">{description.summary}</p>
      <dl className="facts">
        <dt>Network</dt>
        <dd>
          {description.network.name}
          {description.network.chainId !== undefined && <span className="muted"> (chain id {description.network.chainId})</span>}
          {description.network.testnet === true && <span className="badge badge-sandbox">testnet</span>}
        </dd>
        <dt>Signer</dt>
        <dd>
          {description.signer.text}
          {description.signer.text !== description.signer.signWith && (
            <>
              {' '}
              <code className="address">{description.signer.signWith}</code>
            </>
          )}
          {description.signer.kind === 'unknown' && <span className="muted"> (not a key of this organization)</span>}
        </dd>
      </dl>
      {description.warnings.length > 0 && (
        <ul className="signing-warnings" aria-label="Warnings">
          {description.warnings.map((warning) => (
            <li key={`${warning.kind}-${warning.subject ?? warning.message}`} className="notice notice-warning">
              <span className="warning-kind">{WARNING_NAMES[warning.kind]}</span> {warning.message}
            </li>
          ))}
        </ul>
      )}
      <SigningDetails details={description.details} />
      <PolicyStanding standing={standing} />
    </article>
  );
}

const WARNING_NAMES: Record<SigningCardView['description']['warnings'][number]['kind'], string> = {
  UNKNOWN_CONTRACT: 'Unknown contract',
  UNLIMITED_APPROVAL: 'Unlimited approval',
  EIP7702_DELEGATION: 'Account delegation',
  NEW_RECIPIENT: 'New recipient',
  VALUE_ABOVE_THRESHOLD: 'Large value',
  BLIND_SIGNING: 'Blind signing',
  UNDECODED: 'Not decoded',
};

function SigningDetails({ details }: { details: SigningDetailsView }) {
  switch (details.kind) {
    case 'ethereum-transaction':
      return <EthereumDetails details={details} />;
    case 'solana-transaction':
      return <SolanaDetails details={details} />;
    case 'bitcoin-transaction':
      return <BitcoinDetails details={details} />;
    case 'raw-payloads':
      return <RawPayloads details={details} />;
    case 'unsupported-transaction':
      return (
        <section aria-label="Transaction">
          <p className="notice notice-warning">QuorumKey cannot read {details.transactionType} transactions; check the bytes below with another tool.</p>
          <RawHex label="Unsigned transaction" hex={details.unsignedTransaction} />
        </section>
      );
  }
}

function EthereumDetails({ details }: { details: Details<'ethereum-transaction'> }) {
  const { fees, call } = details;
  return (
    <section aria-label="Ethereum transaction">
      <dl className="facts">
        <dt>To</dt>
        <dd>{details.to === undefined ? 'nobody: this deploys a new contract' : <Address value={details.to} />}</dd>
        <dt>Value</dt>
        <dd>
          <Amount value={details.value} />
        </dd>
        <dt>Type</dt>
        <dd>{details.typeText}</dd>
        {details.nonce !== undefined && (
          <>
            <dt>Nonce</dt>
            <dd>{details.nonce}</dd>
          </>
        )}
        {fees.gas !== undefined && (
          <>
            <dt>Gas limit</dt>
            <dd>{fees.gas}</dd>
          </>
        )}
        {fees.maxFeePerGas !== undefined && (
          <>
            <dt>Max fee per gas</dt>
            <dd>
              <Amount value={fees.maxFeePerGas} />
            </dd>
          </>
        )}
        {fees.maxPriorityFeePerGas !== undefined && (
          <>
            <dt>Priority fee per gas</dt>
            <dd>
              <Amount value={fees.maxPriorityFeePerGas} />
            </dd>
          </>
        )}
        {fees.gasPrice !== undefined && (
          <>
            <dt>Gas price</dt>
            <dd>
              <Amount value={fees.gasPrice} />
            </dd>
          </>
        )}
        {fees.maxFee !== undefined && (
          <>
            <dt>Most it can pay in fees</dt>
            <dd>
              <Amount value={fees.maxFee} />
            </dd>
          </>
        )}
      </dl>
      {call !== undefined && (
        <section aria-label="Contract call" className="signing-section">
          <h4>
            Call{' '}
            {call.decoded ? (
              <code>{call.signature ?? call.functionName}</code>
            ) : (
              <>
                <code>{call.selector}</code>{' '}
                <span className="muted">{call.likelySignature === undefined ? 'not decoded: no ABI uploaded for this contract' : `probably ${call.likelySignature} (no ABI uploaded)`}</span>
              </>
            )}
          </h4>
          {call.args.length > 0 && <ReadableTree nodes={call.args} label="Call arguments" />}
        </section>
      )}
      {details.authorizations.length > 0 && (
        <section aria-label="EIP-7702 delegations" className="signing-section">
          <h4>EIP-7702 delegations</h4>
          <ul>
            {details.authorizations.map((authorization) => (
              <li key={`${authorization.delegate.address}-${authorization.nonce}`}>
                Delegates the account to <Address value={authorization.delegate} /> on {authorization.network.name}, nonce {authorization.nonce}
              </li>
            ))}
          </ul>
        </section>
      )}
      {details.data !== '0x' && <RawHex label="Call data" hex={details.data} />}
    </section>
  );
}

function SolanaDetails({ details }: { details: Details<'solana-transaction'> }) {
  return (
    <section aria-label="Solana transaction">
      <dl className="facts">
        <dt>Fee payer</dt>
        <dd>
          <Address value={details.feePayer} />
        </dd>
        <dt>Signers</dt>
        <dd>
          {details.signers.map((signer) => (
            <div key={signer.address}>
              <Address value={signer} />
            </div>
          ))}
        </dd>
        <dt>Version</dt>
        <dd>{details.version === 'legacy' ? 'legacy' : `v${details.version}`}</dd>
        <dt>Recent blockhash</dt>
        <dd>
          <code>{details.recentBlockhash}</code>
        </dd>
        {details.addressTableLookups > 0 && (
          <>
            <dt>Lookup tables</dt>
            <dd className="notice notice-warning">{details.addressTableLookups} account(s) come from address lookup tables and cannot be named offline.</dd>
          </>
        )}
      </dl>
      {details.tokenTransfers.length > 0 && (
        <section aria-label="Token transfers" className="signing-section">
          <h4>Token transfers</h4>
          <ul>
            {details.tokenTransfers.map((transfer, index) => (
              <li key={`${transfer.from.address}-${transfer.to.address}-${index}`}>
                <Amount value={transfer.amount} /> from <Address value={transfer.from} /> to <Address value={transfer.to} />
                {transfer.mint !== undefined && (
                  <>
                    {' '}
                    (mint <Address value={transfer.mint} />)
                  </>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-label="Instructions" className="signing-section">
        <h4>Instructions</h4>
        <ol className="instructions">
          {details.instructions.map((instruction) => (
            <li key={instruction.index}>
              <p>
                <strong>{instruction.programName}</strong>
                {instruction.instruction !== undefined && <> · {instruction.instruction}</>}: {instruction.summary}
              </p>
              {instruction.accounts.length > 0 && (
                <dl className="facts compact">
                  {instruction.accounts.map((account) => (
                    <FactPair key={`${account.name}-${account.address.address}`} label={account.name}>
                      <Address value={account.address} />
                    </FactPair>
                  ))}
                </dl>
              )}
              {instruction.args.length > 0 && <ReadableTree nodes={instruction.args} label={`Arguments of instruction ${instruction.index + 1}`} />}
            </li>
          ))}
        </ol>
      </section>
    </section>
  );
}

function BitcoinDetails({ details }: { details: Details<'bitcoin-transaction'> }) {
  return (
    <section aria-label="Bitcoin transaction">
      <table className="data-table" aria-label="Inputs">
        <caption>Inputs</caption>
        <thead>
          <tr>
            <th scope="col">Spends</th>
            <th scope="col">From</th>
            <th scope="col">Amount</th>
          </tr>
        </thead>
        <tbody>
          {details.inputs.map((input) => (
            <tr key={`${input.txId}:${input.vout}`}>
              <td>
                <code>
                  {input.txId.slice(0, 16)}…:{input.vout}
                </code>
              </td>
              <td>{input.address === undefined ? <span className="muted">unknown</span> : <Address value={input.address} />}</td>
              <td>{input.amount === undefined ? <span className="muted">not in the PSBT</span> : <Amount value={input.amount} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table className="data-table" aria-label="Outputs">
        <caption>Outputs</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">To</th>
            <th scope="col">Amount</th>
          </tr>
        </thead>
        <tbody>
          {details.outputs.map((output) => (
            <tr key={output.index}>
              <td>{output.index}</td>
              <td>
                {output.address === undefined ? <span className="muted">{output.addressType} script</span> : <Address value={output.address} />}
                {output.change && <span className="badge badge-active">change</span>}
              </td>
              <td>
                <Amount value={output.amount} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="facts">
        <dt>Sent out of the organization</dt>
        <dd>
          <Amount value={details.sent} />
        </dd>
        <dt>Fee</dt>
        <dd>{details.fee === undefined ? 'unknown: an input’s amount is not in the PSBT' : <Amount value={details.fee} />}</dd>
      </dl>
    </section>
  );
}

function RawPayloads({ details }: { details: Details<'raw-payloads'> }) {
  return (
    <section aria-label="Payloads">
      <dl className="facts">
        <dt>Encoding</dt>
        <dd>{details.encodingText}</dd>
        <dt>Hash function</dt>
        <dd>{details.hashFunctionText}</dd>
      </dl>
      {details.payloads.map((payload) => (
        <section key={payload.index} className="signing-section" aria-label={`Payload ${payload.index + 1}`}>
          {details.payloads.length > 1 && <h4>Payload {payload.index + 1}</h4>}
          {payload.typedData !== undefined && (
            <>
              <p>
                EIP-712 <strong>{payload.typedData.primaryType}</strong>
                {payload.typedData.verifyingContract !== undefined && (
                  <>
                    {' '}
                    for <Address value={payload.typedData.verifyingContract} />
                  </>
                )}
                {payload.typedData.network !== undefined && <> on {payload.typedData.network.name}</>}
              </p>
              <ReadableTree nodes={payload.typedData.domain} label="Domain" caption="Domain" />
              <ReadableTree nodes={payload.typedData.message} label="Message" caption="Message" />
            </>
          )}
          {payload.authorization !== undefined && (
            <p>
              Delegates the account to <Address value={payload.authorization.delegate} /> on {payload.authorization.network.name}, nonce{' '}
              {payload.authorization.nonce}
            </p>
          )}
          {payload.solanaMessage !== undefined && <SolanaDetails details={payload.solanaMessage} />}
          {payload.text !== undefined && payload.typedData === undefined && (
            <>
              <p className="hint">The text signed:</p>
              <pre className="payload-text">{payload.text}</pre>
            </>
          )}
          <RawHex label="Raw bytes" hex={payload.hex} />
          <RawHex label="What the key signs" hex={payload.signedBytesHex} />
        </section>
      ))}
    </section>
  );
}

function PolicyStanding({ standing }: { standing: PolicyStandingView }) {
  return (
    <section className="signing-section policy-standing" aria-label="Where the policies stand">
      <h4>
        Policies: <span className={`badge ${OUTCOME_BADGES[standing.outcome]}`}>{OUTCOME_WORDS[standing.outcome]}</span>
      </h4>
      {standing.decidedBy === 'root quorum' && <p>The root quorum’s approvals so far already allow it, whatever the policies say.</p>}
      {standing.matchedPolicies.length === 0 ? (
        <p>No policy of this organization matches this request.</p>
      ) : (
        <ul aria-label="Matched policies">
          {standing.matchedPolicies.map((policy) => (
            <li key={policy.policyId}>
              <strong>{policy.policyName}</strong> ({effectInWords(policy.effect).toLowerCase()}){' '}
              <span className="muted">{POLICY_OUTCOME_WORDS[policy.outcome]}</span>
            </li>
          ))}
        </ul>
      )}
      {standing.consensusNeeds !== undefined && (
        <p className="consensus-needs">
          {standing.consensusNeeds.charAt(0).toUpperCase() + standing.consensusNeeds.slice(1)};{' '}
          {standing.viewerCanApprove ? <strong>you can approve</strong> : 'your vote does not count toward it'}.
        </p>
      )}
      {standing.failedPolicies.length > 0 && (
        <details>
          <summary>{standing.failedPolicies.length} policy(ies) could not be evaluated and count as not matching</summary>
          <ul>
            {standing.failedPolicies.map((policy) => (
              <li key={policy.policyId}>
                <strong>{policy.policyName}</strong>: {policy.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

const OUTCOME_WORDS: Record<PolicyStandingView['outcome'], string> = {
  ALLOW: 'allowed',
  DENY: 'denied',
  NEEDS_CONSENSUS: 'needs more approvals',
  NO_POLICY: 'no policy allows it',
};
const OUTCOME_BADGES: Record<PolicyStandingView['outcome'], string> = {
  ALLOW: 'badge-active',
  DENY: 'badge-danger',
  NEEDS_CONSENSUS: 'badge-warning',
  NO_POLICY: 'badge-warning',
};
const POLICY_OUTCOME_WORDS: Record<PolicyStandingView['matchedPolicies'][number]['outcome'], string> = {
  ALLOW: 'allows it now',
  DENY: 'denies it',
  NEEDS_CONSENSUS: 'matches; its consensus is not met yet',
};

/** A token amount also shows its exact integer and where its unit comes from: "1,000 USDC · raw 1000000000 · known token list". */
export function Amount({ value }: { value: AmountView }) {
  return (
    <>
      <span className="amount" title={`${value.raw} ${value.rawUnit}`}>
        {value.text}
      </span>
      {value.source !== undefined && (
        <span className="muted">
          {value.unit === 'raw units' ? '' : ` · raw ${value.raw}`} · {value.source}
        </span>
      )}
    </>
  );
}

export function Address({ value }: { value: AddressRefView }) {
  return (
    <span className="address-ref">
      {value.label !== undefined && <strong>{value.label}</strong>} <code className="address">{value.address}</code>{' '}
      <span className="muted">({value.role})</span>
    </span>
  );
}

function ReadableTree({ nodes, label, caption }: { nodes: readonly ReadableNodeView[]; label: string; caption?: string }) {
  return (
    <div className="readable-tree">
      {caption !== undefined && <p className="tree-caption">{caption}</p>}
      <ul aria-label={label}>
        {nodes.map((node, index) => (
          <ReadableNodeItem key={`${node.name}-${index}`} node={node} />
        ))}
      </ul>
    </div>
  );
}

function ReadableNodeItem({ node }: { node: ReadableNodeView }) {
  return (
    <li>
      <span className="node-name">{node.name}</span>
      {node.type !== undefined && <span className="muted"> {node.type}</span>}:{' '}
      {node.amount !== undefined ? (
        <Amount value={node.amount} />
      ) : node.address !== undefined ? (
        <Address value={node.address} />
      ) : (
        <span title={node.raw}>{node.text}</span>
      )}
      {node.children !== undefined && node.children.length > 0 && (
        <ul>
          {node.children.map((child, index) => (
            <ReadableNodeItem key={`${child.name}-${index}`} node={child} />
          ))}
        </ul>
      )}
    </li>
  );
}

function RawHex({ label, hex }: { label: string; hex: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="raw-hex" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{label} (hex)</summary>
      {open && <pre>{hex}</pre>}
    </details>
  );
}

function FactPair({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}
