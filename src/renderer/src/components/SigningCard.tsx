/**
 * The clear-signing card: what a signature will do in words, what is unusual, and where the organization's policies
 * stand. The same card serves the approval queue and the Sign screen. What it says about the request is the shared
 * reader's signing facts as main sends them (the lines the CLI prints and the approval list shows), nested where they
 * have parts: the card lays them out and words none of them.
 */
import { counted, effectInWords } from '../../../shared/describe';
import { Fragment, useState } from 'react';
import type { PolicyStandingView, SigningCardView } from '../../../shared/ipc/signing';
import { useChannel } from '../queries';
import { PolicyExpression } from './PolicyExpression';
import { QueryStatus } from './QueryStatus';
import { SimulationSection } from './SimulationSection';
import { StateBundleSection } from './StateBundleSection';
import { StillToVoteList } from './StillToVoteList';

/**
 * A signing activity's card, read from main (the description and the policies' standing are worked out there); read
 * again when main reports that the activity changed (a vote), so where the consensus stands stays current.
 */
export function SigningCardLoader({ activityId }: { activityId: string }) {
  const card = useChannel('signing.describe', { activityId });
  if (card.data === undefined) return <QueryStatus query={card} loading="Reading what this signs…" />;
  // The approval's panel is already headed with the same title; while it takes votes, who may still vote comes from
  // the same evaluation as the verdict.
  return (
    <>
      <SigningCard card={card.data} titled={false} />
      <SimulationSection activityId={activityId} />
      {/* A waiting transaction's state bundle: saved by a proposer with a node, simulated from by a desktop without. */}
      {card.data.activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' && card.data.activity.type === 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && (
        <StateBundleSection activityId={activityId} />
      )}
      {card.data.activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' && <StillToVoteList possible={card.data.standing.stillToVote} />}
    </>
  );
}

type Fact = SigningCardView['facts'][number];
type FactValue = Fact['value'][number];

export function SigningCard({ card, titled = true }: { card: SigningCardView; titled?: boolean }) {
  const { description, facts, standing } = card;
  return (
    <article className="signing-card" aria-label={description.title}>
      {titled && <h3 className="signing-title">{description.title}</h3>}
      <p className="signing-summary">{description.summary}</p>
      {description.warnings.length > 0 && (
        <ul className="signing-warnings" aria-label="Warnings">
          {description.warnings.map((warning) => (
            <li
              key={`${warning.kind}-${warning.subject ?? warning.message}`}
              className={warning.severity === 'critical' ? 'notice notice-error' : 'notice notice-warning'}
            >
              <span className="warning-kind">{WARNING_NAMES[warning.kind]}</span> {warning.message}
              {warning.lookAlike !== undefined && <LookAlikeAddresses lookAlike={warning.lookAlike} />}
            </li>
          ))}
        </ul>
      )}
      <dl className="facts">
        {facts.map((fact, index) => (
          <Fragment key={`${fact.label}-${index}`}>
            <dt>{fact.label}</dt>
            <dd>
              <FactValues values={fact.value} />
              {fact.children !== undefined && <FactParts facts={fact.children} label={fact.label} />}
            </dd>
          </Fragment>
        ))}
      </dl>
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
  NETWORK_NOT_STATED: 'Network not stated',
  BLIND_SIGNING: 'Blind signing',
  UNDECODED: 'Not decoded',
  LOOK_ALIKE_ADDRESS: 'Look-alike address',
  SAFE_DELEGATECALL: 'Safe DELEGATECALL',
  SAFE_REFUND: 'Safe refund',
  SAFE_HASH_MISMATCH: 'Not the Safe’s hash',
};

type LookAlike = NonNullable<SigningCardView['description']['warnings'][number]['lookAlike']>;

/** The request's address beside the known one it imitates, the characters main found different marked in both. */
function LookAlikeAddresses({ lookAlike }: { lookAlike: LookAlike }) {
  return (
    <dl className="look-alike" aria-label="Look-alike address side by side">
      <dt>In this request</dt>
      <dd>
        <MarkedAddress address={lookAlike.address} marked={lookAlike.addressDiffers} />
      </dd>
      <dt>{lookAlike.known.name}</dt>
      <dd>
        <MarkedAddress address={lookAlike.known.address} marked={lookAlike.knownDiffers} />
      </dd>
    </dl>
  );
}

/** An address with the given character ranges highlighted. */
function MarkedAddress({ address, marked }: { address: string; marked: LookAlike['addressDiffers'] }) {
  const pieces: { text: string; differs: boolean }[] = [];
  let at = 0;
  for (const { start, end } of marked) {
    pieces.push({ text: address.slice(at, start), differs: false }, { text: address.slice(start, end), differs: true });
    at = end;
  }
  pieces.push({ text: address.slice(at), differs: false });
  return (
    <code className="address">
      {pieces.map((piece, index) => (piece.differs ? <mark key={index}>{piece.text}</mark> : <Fragment key={index}>{piece.text}</Fragment>))}
    </code>
  );
}

/** A fact's parts (arguments, fields, accounts) nested under it, as a list named after it. */
function FactParts({ facts, label }: { facts: readonly Fact[]; label: string }) {
  return (
    <ul className="fact-parts" aria-label={label}>
      {facts.map((fact, index) => (
        <li key={`${fact.label}-${index}`}>
          <span className="node-name">{fact.label}</span>
          {fact.value.length > 0 && (
            <>
              : <FactValues values={fact.value} />
            </>
          )}
          {fact.children !== undefined && <FactParts facts={fact.children} label={fact.label} />}
        </li>
      ))}
    </ul>
  );
}

function FactValues({ values }: { values: readonly FactValue[] }) {
  return values.map((value, index) => (
    <Fragment key={index}>
      {index > 0 && ' · '}
      <FactValueText value={value} />
    </Fragment>
  ));
}

/** Hex longer than this folds away behind its first digits: call data and payload bytes run to kilobytes. */
const FOLDED_CODE_LENGTH = 80;

/** A value as the terminal prints it too: the exact value behind a name or a rounded amount is shown beside it. */
function FactValueText({ value }: { value: FactValue }) {
  if (value.note === true) return <span className="muted">{value.text}</span>;
  const exact = value.id !== undefined && !value.text.includes(value.id) ? value.id : undefined;
  return (
    <>
      {value.code !== true ? (
        <span className="fact-text">{value.text}</span>
      ) : value.text.length > FOLDED_CODE_LENGTH ? (
        <FoldedCode text={value.text} />
      ) : (
        <code className="address">{value.text}</code>
      )}
      {exact !== undefined && (
        <>
          {' '}
          <code className="address muted">{exact}</code>
        </>
      )}
    </>
  );
}

function FoldedCode({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="raw-hex" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        <code>{text.slice(0, 18)}…</code>
      </summary>
      {open && <pre>{text}</pre>}
    </details>
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
      {standing.why.length > 0 && <WhyList why={standing.why} />}
      {standing.consensusNeeds !== undefined && (
        <p className="consensus-needs">
          {standing.consensusNeeds.charAt(0).toUpperCase() + standing.consensusNeeds.slice(1)};{' '}
          {standing.viewerCanApprove ? <strong>you can approve</strong> : 'your vote does not count toward it'}.
        </p>
      )}
      {standing.failedPolicies.length > 0 && (
        <details>
          <summary>
            {counted(standing.failedPolicies.length, 'policy', 'policies')} could not be evaluated and{' '}
            {standing.failedPolicies.length === 1 ? 'counts' : 'count'} as not matching
          </summary>
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

/** Which part of which policy decided, with what it read: the explanation main worked out for a denial or a wait. */
function WhyList({ why }: { why: PolicyStandingView['why'] }) {
  return (
    <ul className="policy-why" aria-label="Why">
      {why.map((policy) => (
        <li key={`${policy.policyId}-${policy.field}`}>
          <strong>{policy.policyName}</strong>: its {policy.field} {WHY_OUTCOME_WORDS[policy.outcome]}
          <ul>
            {policy.parts.map((part, index) => (
              <li key={index}>
                <PolicyExpression pieces={part.pieces} />{' '}
                <span className="muted">
                  (line {part.line}, column {part.column}) {PART_OUTCOME_WORDS[part.outcome]}
                </span>
                {part.error !== undefined && <span className="field-error"> {part.error}</span>}
                {part.reads.length > 0 && (
                  <ul className="policy-reads" aria-label="Values read">
                    {part.reads.map((read, readIndex) => (
                      <li key={readIndex}>
                        <code>{read.expression}</code> read <code>{read.value}</code>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

const WHY_OUTCOME_WORDS: Record<PolicyStandingView['why'][number]['outcome'], string> = {
  true: 'holds, because:',
  false: 'does not hold, because:',
  error: 'cannot be evaluated:',
};
const PART_OUTCOME_WORDS: Record<PolicyStandingView['why'][number]['outcome'], string> = {
  true: 'is true',
  false: 'is false',
  error: 'fails',
};

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
