import type { Ref } from 'react';
import { useChannel } from '../queries';

/**
 * A choice of one of this desktop's profiles, by name. The empty value is `none`: a choice of its own ("All
 * profiles") unless `required`, where it only asks to choose.
 */
export function ProfileSelect({
  value,
  onChange,
  none,
  required = false,
  ref,
}: {
  /** A profile's id, or '' for `none`. */
  value: string;
  onChange: (profileId: string) => void;
  none: string;
  required?: boolean;
  /** The select, for a dialog that focuses it when it opens. */
  ref?: Ref<HTMLSelectElement>;
}) {
  const profiles = useChannel('profiles.list');
  return (
    <label>
      Profile
      <select value={value} onChange={(event) => onChange(event.target.value)} required={required} ref={ref}>
        <option value="" disabled={required}>
          {none}
        </option>
        {(profiles.data ?? []).map((profile) => (
          <option key={profile.id} value={profile.id}>
            {profile.name}
          </option>
        ))}
      </select>
    </label>
  );
}
