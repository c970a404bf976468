/**
 * Enum values and type names in words, for people: `EFFECT_DENY` → "Deny", `ACTIVITY_TYPE_CREATE_POLICY_V3` →
 * "Create policy". The version suffix of an activity type says which request shape was used, which a person
 * deciding on the activity does not need.
 */

/** Words that read better in their usual spelling than lower-cased. */
const SPELLINGS: Readonly<Record<string, string>> = {
  API: 'API',
  OAUTH: 'OAuth',
  OAUTH2: 'OAuth 2',
  OTP: 'OTP',
  TVC: 'TVC',
  ETH: 'Ethereum',
  SOL: 'Solana',
  MFA: 'MFA',
  IP: 'IP',
  P256: 'P-256',
  ED25519: 'Ed25519',
  SECP256K1: 'secp256k1',
  BIP32: 'BIP-32',
  SHA256: 'SHA-256',
  KECCAK256: 'Keccak-256',
  EIP: 'EIP',
  '7702': '7702',
};

/** `CREATE_PRIVATE_KEYS` → "Create private keys": the first word capitalised, known acronyms kept. */
function sentence(constant: string): string {
  const words = constant
    .split('_')
    .filter((word) => word !== '')
    .map((word) => SPELLINGS[word] ?? word.toLowerCase());
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}

/** `ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2` → "Create private keys". */
export function activityTypeInWords(type: string): string {
  return sentence(type.replace(/^ACTIVITY_TYPE_/, '').replace(/_V\d+$/, ''));
}

/** `ACTIVITY_STATUS_CONSENSUS_NEEDED` → "Waiting for votes"; every status the service reports has its words. */
export function activityStatusInWords(status: string): string {
  return STATUS_WORDS[status] ?? sentence(status.replace(/^ACTIVITY_STATUS_/, ''));
}

const STATUS_WORDS: Readonly<Record<string, string>> = {
  ACTIVITY_STATUS_CREATED: 'Created',
  ACTIVITY_STATUS_PENDING: 'Running',
  ACTIVITY_STATUS_COMPLETED: 'Completed',
  ACTIVITY_STATUS_FAILED: 'Failed',
  ACTIVITY_STATUS_CONSENSUS_NEEDED: 'Waiting for votes',
  ACTIVITY_STATUS_REJECTED: 'Rejected',
};

/** `EFFECT_ALLOW` → "Allow". */
export function effectInWords(effect: string): string {
  return effect === 'EFFECT_ALLOW' ? 'Allow' : effect === 'EFFECT_DENY' ? 'Deny' : sentence(effect.replace(/^EFFECT_/, ''));
}

/** `CURVE_SECP256K1` → "secp256k1" (a name, spelled as its authors do); API key curves too. */
export function curveInWords(curve: string): string {
  const name = curve.replace(/^(?:API_KEY_)?CURVE_/, '');
  return SPELLINGS[name] ?? sentence(name);
}

const CHAIN_WORDS: readonly [prefix: string, words: string][] = [
  ['ADDRESS_FORMAT_ETHEREUM', 'Ethereum'],
  ['ADDRESS_FORMAT_SOLANA', 'Solana'],
  ['ADDRESS_FORMAT_COSMOS', 'Cosmos'],
  ['ADDRESS_FORMAT_TRON', 'Tron'],
  ['ADDRESS_FORMAT_SUI', 'Sui'],
  ['ADDRESS_FORMAT_APTOS', 'Aptos'],
  ['ADDRESS_FORMAT_SEI', 'Sei'],
  ['ADDRESS_FORMAT_XLM', 'Stellar'],
  ['ADDRESS_FORMAT_XRP', 'XRP Ledger'],
  ['ADDRESS_FORMAT_BITCOIN_MAINNET', 'Bitcoin'],
  ['ADDRESS_FORMAT_BITCOIN_TESTNET', 'Bitcoin testnet'],
  ['ADDRESS_FORMAT_BITCOIN_SIGNET', 'Bitcoin signet'],
  ['ADDRESS_FORMAT_BITCOIN_REGTEST', 'Bitcoin regtest'],
  ['ADDRESS_FORMAT_DOGE_MAINNET', 'Dogecoin'],
  ['ADDRESS_FORMAT_DOGE_TESTNET', 'Dogecoin testnet'],
  ['ADDRESS_FORMAT_TON', 'TON'],
  ['ADDRESS_FORMAT_SPARK_MAINNET', 'Spark'],
  ['ADDRESS_FORMAT_SPARK_REGTEST', 'Spark regtest'],
  ['ADDRESS_FORMAT_UNCOMPRESSED', 'Uncompressed public key'],
  ['ADDRESS_FORMAT_COMPRESSED', 'Compressed public key'],
];

const BITCOIN_SCRIPTS: Readonly<Record<string, string>> = {
  P2PKH: 'legacy',
  P2SH: 'script hash',
  P2WPKH: 'native SegWit',
  P2WSH: 'SegWit script',
  P2TR: 'Taproot',
};

/** `ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH` → "Bitcoin (native SegWit)"; `ADDRESS_FORMAT_TON_V4R2` → "TON (V4R2)". */
export function addressFormatInWords(format: string): string {
  const match = CHAIN_WORDS.find(([prefix]) => format === prefix || format.startsWith(`${prefix}_`));
  if (match === undefined) return sentence(format.replace(/^ADDRESS_FORMAT_/, ''));
  const rest = format.slice(match[0].length + 1);
  if (rest === '') return match[1];
  return `${match[1]} (${BITCOIN_SCRIPTS[rest] ?? rest})`;
}

/** Any `PREFIX_SOME_VALUE` enum as words without its prefix: `PAYLOAD_ENCODING_HEXADECIMAL` → "Hexadecimal". */
export function enumInWords(value: string, prefix: string): string {
  return sentence(value.startsWith(prefix) ? value.slice(prefix.length) : value);
}

/** "Ann's", "operators'": a name ending in s takes the apostrophe alone, as English writes a plural's possessive. */
export function possessive(name: string): string {
  return /s$/i.test(name) ? `${name}'` : `${name}'s`;
}

/** "1 account", "3 accounts". */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
