import { useState } from 'react';
import type { Change, Fact, Ref } from '../../../shared/describe';
import type { ActivityReadingView } from '../../../shared/ipc/readings';

/**
 * What an activity asks for, as the shared describer tells it: warnings first, then before → after, what leaves in
 * an export, what a deletion destroys, the facts, a signing request's payload, and for unknown types the raw intent.
 */
export function ActivityDescriptionView({ description }: { description: ActivityReadingView }) {
  const { warnings, changes, exports, deletions, facts, signing, rawIntent } = description;
  return (
    <div className="activity-description">
      {warnings.length > 0 && (
        <div className="notice notice-warning" role="note" aria-label="Before you vote">
          <strong>Before you vote</strong>
          <ul>
            {warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      )}
      {changes.length > 0 && <ChangeTable changes={changes} />}
      {exports !== undefined && (
        <>
          <h3>What leaves</h3>
          <dl className="facts">
            <dt>Exported</dt>
            <dd>
              <Refs values={exports.what} />
            </dd>
            <dt>Sealed to</dt>
            <dd>
              {exports.target.localKeyName === undefined ? (
                <span className="badge badge-warning">unknown key</span>
              ) : (
                <>
                  <span className="badge badge-active">this desktop’s export key</span> {exports.target.localKeyName}
                </>
              )}
            </dd>
            <dt>Key fingerprint</dt>
            <dd>
              <code className="fingerprint">{exports.target.fingerprint}</code>
            </dd>
            <dt>Public key</dt>
            <dd>
              <code>{exports.target.publicKey}</code>
            </dd>
          </dl>
        </>
      )}
      {deletions.length > 0 && (
        <>
          <h3>What is destroyed</h3>
          <ul className="deletions">
            {deletions.map((deletion) => (
              <li key={`${deletion.kind}:${deletion.what.id ?? deletion.what.text}`}>
                {capitalised(deletion.kind)} <RefView value={deletion.what} />
                {deletion.exported === true && <span className="muted"> · exported before</span>}
                {deletion.exported === false && <span className="badge badge-warning">never exported</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {facts.length > 0 && <Facts facts={facts} />}
      {signing !== undefined && (
        <>
          <h3>What is signed</h3>
          <Facts facts={[{ label: 'Signs with', value: [signing.signWith] }, ...signing.facts, ...(signing.decoded ?? [])]} />
          {signing.decoded === undefined && signing.payloads.length > 0 && (
            <>
              <p className="hint">QuorumKey cannot read this payload yet; compare it byte for byte with what the requester meant to sign.</p>
              {signing.payloads.map((payload, index) => (
                // It scrolls: a named region the keyboard can reach, so its end can be read without a mouse.
                <pre key={index} className="raw-intent" role="region" aria-label={`Payload ${index + 1}`} tabIndex={0}>
                  {payload}
                </pre>
              ))}
            </>
          )}
        </>
      )}
      {rawIntent !== undefined && (
        <>
          <h3>Raw request</h3>
          <pre className="raw-intent" role="region" aria-label="Raw request" tabIndex={0}>
            {JSON.stringify(rawIntent, null, 2)}
          </pre>
        </>
      )}
    </div>
  );
}

function ChangeTable({ changes }: { changes: readonly Change[] }) {
  return (
    <table className="data-table change-table">
      <caption>What changes</caption>
      <thead>
        <tr>
          <th scope="col">What</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => {
          const beforeTexts = new Set(change.before?.map((ref) => ref.id ?? ref.text));
          const afterTexts = new Set(change.after.map((ref) => ref.id ?? ref.text));
          return (
            <tr key={change.label}>
              <th scope="row">{change.label}</th>
              <td>
                {change.before === undefined ? (
                  <span className="muted">not known</span>
                ) : (
                  <Refs values={change.before} marked={(ref) => (afterTexts.has(ref.id ?? ref.text) ? undefined : 'removed')} />
                )}
              </td>
              <td>
                <Refs
                  values={change.after}
                  marked={(ref) => (change.before === undefined || beforeTexts.has(ref.id ?? ref.text) ? undefined : 'added')}
                />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Facts({ facts }: { facts: readonly Fact[] }) {
  return (
    <dl className="facts">
      {facts.map((fact) => (
        <FactRow key={fact.label} fact={fact} />
      ))}
    </dl>
  );
}

function FactRow({ fact }: { fact: Fact }) {
  return (
    <>
      <dt>{fact.label}</dt>
      <dd>
        <Refs values={fact.value} />
      </dd>
    </>
  );
}

/** Values in a row; `marked` flags the ones added or removed by a change (in words too, not only in colour). */
function Refs({ values, marked }: { values: readonly Ref[]; marked?: (ref: Ref) => 'added' | 'removed' | undefined }) {
  if (values.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="refs">
      {values.map((value, index) => {
        const mark = marked?.(value);
        return (
          <li key={`${value.id ?? value.text}:${index}`} className={mark === undefined ? undefined : `ref-${mark}`}>
            <RefView value={value} />
            {mark !== undefined && <span className="visually-hidden"> ({mark})</span>}
          </li>
        );
      })}
    </ul>
  );
}

/** A name, with its id one click away. */
export function RefView({ value }: { value: Ref }) {
  const [showId, setShowId] = useState(false);
  const text = value.code === true ? <code>{value.text}</code> : <span>{value.text}</span>;
  if (value.id === undefined || value.id === value.text) return text;
  return (
    <span className="ref">
      {text}{' '}
      <button type="button" className="link-button id-toggle" aria-expanded={showId} onClick={() => setShowId(!showId)}>
        id<span className="visually-hidden"> of {value.text}</span>
      </button>
      {showId && (
        <>
          {' '}
          <code className="muted">{value.id}</code>
        </>
      )}
    </span>
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
