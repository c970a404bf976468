import { SelectField } from './SelectField';

/** The EVM networks offered by name; any other is given by its chain id. */
const EVM_NETWORKS = [
  { value: 'ethereum:1', label: 'Ethereum' },
  { value: 'ethereum:8453', label: 'Base' },
  { value: 'ethereum:42161', label: 'Arbitrum One' },
  { value: 'ethereum:10', label: 'OP Mainnet' },
  { value: 'ethereum:137', label: 'Polygon' },
  { value: 'ethereum:11155111', label: 'Sepolia' },
  { value: 'ethereum:other', label: 'Another EVM chain (by chain id)' },
] as const;
const SOLANA = { value: 'solana', label: 'Solana (SPL mint)' } as const;

export type NetworkChoice = (typeof EVM_NETWORKS)[number]['value'] | typeof SOLANA.value;

/** A network as chosen: an EVM chain id (from the list or typed), or Solana. */
export interface NetworkValue {
  choice: NetworkChoice;
  otherChainId: string;
}

export const DEFAULT_NETWORK: NetworkValue = { choice: 'ethereum:1', otherChainId: '' };

/** The chain id chosen; undefined for Solana. NaN when "another chain" is chosen and its id is not a number yet. */
export function chainIdOf({ choice, otherChainId }: NetworkValue): number | undefined {
  if (choice === 'solana') return undefined;
  return choice === 'ethereum:other' ? Number(otherChainId) : Number(choice.slice('ethereum:'.length));
}

/** The named network of an EVM chain id, as the list names it. */
export function evmNetworkName(chainId: number): string | undefined {
  return EVM_NETWORKS.find((network) => network.value === `ethereum:${chainId}`)?.label;
}

/** A network select, with a chain id field for an EVM chain not in the list; Solana only where `withSolana`. */
export function NetworkField({
  value,
  onChange,
  withSolana = false,
}: {
  value: NetworkValue;
  onChange: (value: NetworkValue) => void;
  withSolana?: boolean;
}) {
  return (
    <>
      <SelectField
        label="Network"
        value={value.choice}
        options={withSolana ? [...EVM_NETWORKS, SOLANA] : EVM_NETWORKS}
        onChange={(choice) => onChange({ ...value, choice })}
      />
      {value.choice === 'ethereum:other' && (
        <label>
          Chain id
          <input
            value={value.otherChainId}
            onChange={(event) => onChange({ ...value, otherChainId: event.target.value })}
            required
            inputMode="numeric"
            pattern="[0-9]+"
            autoComplete="off"
          />
        </label>
      )}
    </>
  );
}
