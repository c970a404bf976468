import { useId, useMemo, useRef, useState } from 'react';
import { activityOperations } from '../../../shared/api/activities';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import type { PolicyExpressionKind } from '../../../shared/policy/ast';
import { checkPolicyExpression } from '../../../shared/policy/check';
import { unknownActivityTypes } from '../../../shared/policy/type-hints';
import { completionsAt } from '../policy/completions';

/** One of main's lint findings (docs/service.md#policy-lint) for this expression. */
export type LintFindingView = ChannelOutput<'policies.lint'>[number];

/** The activity types the service accepts: a policy naming any other matches nothing. */
const KNOWN_ACTIVITY_TYPES = Object.values(activityOperations).map((op) => op.activityType);

/**
 * A policy expression input checked on every keystroke with the same checker the service uses. A parse or type error
 * is shown under the offending line with a caret under its exact columns, and the field is marked invalid. Main's lint
 * findings for the expression as it stands (`findings`; undefined while they are being read) are shown the same way.
 */
export function ExpressionField({
  kind,
  label,
  value,
  onChange,
  placeholder,
  findings,
}: {
  kind: PolicyExpressionKind;
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  findings?: readonly LintFindingView[] | undefined;
}) {
  const id = useId();
  const problem = useMemo(() => expressionProblem(value, kind), [value, kind]);
  const input = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState<number>();
  const suggestions = useMemo(() => (caret === undefined ? undefined : completionsAt(value, caret, kind)), [value, caret, kind]);
  const complete = (insert: string) => {
    if (caret === undefined || suggestions === undefined) return;
    const start = caret - suggestions.partial.length;
    const next = value.slice(0, start) + insert + value.slice(caret);
    onChange(next);
    const position = start + insert.length;
    setCaret(position);
    requestAnimationFrame(() => {
      input.current?.focus();
      input.current?.setSelectionRange(position, position);
    });
  };
  const unknownTypes = useMemo(() => (problem === undefined ? unknownActivityTypes(value, KNOWN_ACTIVITY_TYPES) : []), [problem, value]);
  const shownFindings = problem === undefined ? (findings ?? []) : [];
  const describedBy = [
    problem === undefined ? `${id}-hint` : `${id}-error`,
    ...(unknownTypes.length > 0 ? [`${id}-types`] : []),
    ...(shownFindings.length > 0 ? [`${id}-lint`] : []),
  ].join(' ');
  return (
    <div className="expression-field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        className="expression-input"
        value={value}
        ref={input}
        onChange={(event) => {
          onChange(event.target.value);
          setCaret(event.target.selectionStart);
        }}
        onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
        onBlur={(event) => {
          // Clicking a completion must not hide the completions before the click lands.
          if (!(event.relatedTarget instanceof HTMLElement && event.relatedTarget.dataset.completion !== undefined)) setCaret(undefined);
        }}
        rows={Math.min(8, Math.max(2, value.split('\n').length))}
        spellCheck={false}
        autoComplete="off"
        placeholder={placeholder}
        aria-invalid={problem !== undefined || shownFindings.some((finding) => finding.severity === 'error')}
        aria-describedby={describedBy}
      />
      {suggestions !== undefined && suggestions.completions.length > 0 && (
        <div className="completions" role="group" aria-label={`Completions for ${label}`}>
          {suggestions.completions.map((completion) => (
            <button key={completion.insert} type="button" data-completion="" title={completion.detail} onClick={() => complete(completion.insert)}>
              {completion.insert}
            </button>
          ))}
        </div>
      )}
      {problem === undefined ? (
        <p id={`${id}-hint`} className="hint">
          {checkedHint(value, findings)}
        </p>
      ) : (
        <div id={`${id}-error`} className="expression-error" role="alert">
          <p>
            Line {problem.line}, column {problem.column}: {problem.message}
          </p>
          <CaretLine {...problem} />
          <p className="error-code">
            Code <code>POLICY_PARSE_ERROR</code>
          </p>
        </div>
      )}
      {shownFindings.length > 0 && (
        <ul id={`${id}-lint`} className="lint-findings" aria-label="Lint findings">
          {shownFindings.map((finding) => (
            <li
              key={`${finding.rule}@${finding.span.offset}`}
              className={finding.severity === 'error' ? 'expression-error' : 'notice notice-warning'}
            >
              <p>
                {finding.severity === 'error' ? 'Error' : 'Warning'}, line {finding.span.line}, column {finding.span.column}: {finding.message}
              </p>
              <CaretLine {...caretOf(value, finding.span)} />
            </li>
          ))}
        </ul>
      )}
      {unknownTypes.length > 0 && (
        <ul id={`${id}-types`} className="notice notice-warning type-hints" aria-label="Unknown activity types">
          {unknownTypes.map((unknown) => (
            <li key={unknown.name}>
              No activity has the type <code>{unknown.name}</code>, so this never matches it.
              {unknown.suggestion !== undefined && (
                <>
                  {' '}
                  Did you mean <code>{unknown.suggestion}</code>?
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** What the hint under a checking expression says: empty, fine, or how many findings are listed below it. */
function checkedHint(value: string, findings: readonly LintFindingView[] | undefined): string {
  if (findings === undefined) return value.trim() === '' ? 'Empty: no constraint; looking for warnings…' : 'Checks; looking for warnings…';
  const errors = findings.filter((finding) => finding.severity === 'error').length;
  const warnings = findings.length - errors;
  const counted = [errors > 0 ? plural(errors, 'error') : '', warnings > 0 ? plural(warnings, 'warning') : '']
    .filter((part) => part !== '')
    .join(' and ');
  if (counted !== '') return `${value.trim() === '' ? 'Empty' : 'Checks'}, with ${counted} below${errors > 0 ? ': fix the errors to save' : ''}.`;
  return value.trim() === '' ? 'Empty: no constraint.' : 'Checks.';
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

type Caret = Pick<ExpressionProblem, 'lineText' | 'column' | 'length'>;

/**
 * The source line and a caret under the columns a message is about. A long line wraps, so the carets are not a line
 * of their own: they are the line again, laid over it a little lower, its other characters transparent and those
 * marked shown as ^ (spaces kept, so it wraps where the line does): each caret sits under its character on any row.
 */
function CaretLine({ lineText, column, length }: Caret) {
  const start = column - 1;
  const end = start + Math.max(1, length);
  const padded = lineText.padEnd(end, ' ');
  const marked = padded.slice(start, end).replace(/\S/g, '^');
  return (
    <pre className="caret-line" aria-hidden="true">
      {lineText}
      <span className="caret-marks">
        {padded.slice(0, start)}
        {/* A mark on blanks alone (the end of the line) still needs a caret to show. */}
        <span className="caret">{marked.includes('^') ? marked : `^${marked.slice(1)}`}</span>
        {padded.slice(end)}
      </span>
    </pre>
  );
}

/** The line `span` starts on, and its length clipped to that line. */
function caretOf(text: string, span: { line: number; column: number; length: number }): Caret {
  const lineText = text.split('\n')[span.line - 1] ?? '';
  return { lineText, column: span.column, length: Math.min(span.length, lineText.length - span.column + 1) };
}

export interface ExpressionProblem {
  message: string;
  line: number;
  column: number;
  length: number;
  /** The source line the error is on, for the caret display. */
  lineText: string;
}

/** Undefined when `text` checks (empty text always does: it imposes no constraint). */
export function expressionProblem(text: string, kind: PolicyExpressionKind): ExpressionProblem | undefined {
  if (text.trim() === '') return undefined;
  const result = checkPolicyExpression(text, kind);
  if (result.ok) return undefined;
  const { span } = result.error;
  // The message ends with "(at line:column)", which the display says in words already.
  const message = result.error.message.replace(/ \(at \d+:\d+\)$/, '');
  return { message, line: span.line, ...caretOf(text, span) };
}
