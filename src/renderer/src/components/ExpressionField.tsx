import { useId, useMemo, useRef, useState } from 'react';
import { activityOperations } from '../../../shared/api/activities';
import { checkPolicyExpression, type PolicyExpressionKind } from '../../../shared/policy';
import { unknownActivityTypes } from '../../../shared/policy/type-hints';
import { completionsAt } from '../policy/completions';

/** The activity types the service accepts: a policy naming any other matches nothing. */
const KNOWN_ACTIVITY_TYPES = Object.values(activityOperations).map((op) => op.activityType);

/**
 * A policy expression input checked on every keystroke with the same checker the service uses. A parse or type error
 * is shown under the offending line with a caret under its exact columns, and the field is marked invalid.
 */
export function ExpressionField({
  kind,
  label,
  value,
  onChange,
  placeholder,
}: {
  kind: PolicyExpressionKind;
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
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
  const describedBy = [problem === undefined ? `${id}-hint` : `${id}-error`, ...(unknownTypes.length > 0 ? [`${id}-types`] : [])].join(' ');
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
        aria-invalid={problem !== undefined}
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
          {value.trim() === '' ? 'Empty: no constraint.' : 'Checks.'}
        </p>
      ) : (
        <div id={`${id}-error`} className="expression-error" role="alert">
          <p>
            Line {problem.line}, column {problem.column}: {problem.message}
          </p>
          <pre aria-hidden="true">
            {problem.lineText}
            {'\n'}
            {' '.repeat(problem.column - 1)}
            {'^'.repeat(Math.max(1, problem.length))}
          </pre>
          <p className="error-code">
            Code <code>POLICY_PARSE_ERROR</code>
          </p>
        </div>
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
  const lineText = text.split('\n')[span.line - 1] ?? '';
  // The message ends with "(at line:column)", which the display says in words already.
  const message = result.error.message.replace(/ \(at \d+:\d+\)$/, '');
  return { message, line: span.line, column: span.column, length: Math.min(span.length, lineText.length - span.column + 1), lineText };
}
