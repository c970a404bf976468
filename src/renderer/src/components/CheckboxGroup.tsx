/** A fieldset of checkboxes choosing any number of options; `chosen` keeps the order they were ticked in. */
export function CheckboxGroup<Id extends string>({
  legend,
  options,
  chosen,
  onChange,
  grow = false,
}: {
  legend: string;
  options: readonly { id: Id; label: string }[];
  chosen: readonly Id[];
  onChange: (ids: Id[]) => void;
  /** Lets the group take the free width of a row of fields. */
  grow?: boolean;
}) {
  return (
    <fieldset className={grow ? 'choice-group grow' : 'choice-group'}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.id} className="radio">
          <input
            type="checkbox"
            checked={chosen.includes(option.id)}
            onChange={(event) => onChange(event.target.checked ? [...chosen, option.id] : chosen.filter((id) => id !== option.id))}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}
