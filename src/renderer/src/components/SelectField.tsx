export interface SelectOption<Value extends string> {
  value: Value;
  label: string;
  disabled?: boolean;
}

/** A labelled <select> over a fixed list of options; the label wraps the select so it names it for assistive tech. */
export function SelectField<Value extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: Value;
  options: readonly SelectOption<Value>[];
  onChange: (value: Value) => void;
}) {
  return (
    <label>
      {label}
      {/* The options are the only values the select can report, so the cast is exact. */}
      <select value={value} onChange={(event) => onChange(event.target.value as Value)}>
        {options.map((option) => (
          <option key={option.value} value={option.value} disabled={option.disabled}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
