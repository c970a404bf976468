/** Private-key text formats for export, decrypt and import, as the IPC contract names them. */
import type { ChannelInput } from '../../shared/ipc/contract';

export type KeyFormat = ChannelInput<'imports.privateKey'>['format'];

export const KEY_FORMATS: readonly { value: KeyFormat; label: string; placeholder: string }[] = [
  { value: 'hexadecimal', label: 'Hexadecimal', placeholder: '64 hex characters' },
  { value: 'solana', label: 'Solana (base58 keypair)', placeholder: 'base58, 64-byte keypair' },
  { value: 'wif-mainnet', label: 'WIF, Bitcoin mainnet', placeholder: 'K…, L… or 5…' },
  { value: 'wif-testnet', label: 'WIF, Bitcoin testnet', placeholder: 'c… or 9…' },
];
