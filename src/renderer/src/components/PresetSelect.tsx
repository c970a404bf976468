import { ACCOUNT_PRESETS, type AccountPresetId } from '../../../shared/wallets/account-presets';
import { SelectField, type SelectOption } from './SelectField';

const PRESET_OPTIONS: SelectOption<AccountPresetId>[] = ACCOUNT_PRESETS.map((preset) => ({ value: preset.id, label: preset.label }));

/** Picks one of the wallet account presets (curve, path and address format together). */
export function PresetSelect({ label, value, onChange }: { label: string; value: AccountPresetId; onChange: (id: AccountPresetId) => void }) {
  return <SelectField label={label} value={value} options={PRESET_OPTIONS} onChange={onChange} />;
}
