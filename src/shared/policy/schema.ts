import type { PolicyExpressionKind } from './ast';

/**
 * What the checker knows statically about a value. `dynamic` stands for data whose shape the policy engine learns
 * only at evaluation (transaction fields, activity params, secrets), so only the evaluator can judge it.
 */
export type StaticType =
  | { readonly kind: 'bool' | 'int' | 'string' | 'timestamp' | 'dynamic' }
  | { readonly kind: 'list'; readonly element: StaticType }
  | { readonly kind: 'struct'; readonly name: string; readonly fields: Readonly<Record<string, StaticType>> }
  | { readonly kind: 'map'; readonly value: StaticType };

export const BOOL: StaticType = { kind: 'bool' };
export const INT: StaticType = { kind: 'int' };
export const STRING: StaticType = { kind: 'string' };
export const TIMESTAMP: StaticType = { kind: 'timestamp' };
export const DYNAMIC: StaticType = { kind: 'dynamic' };
export const listOf = (element: StaticType): StaticType => ({ kind: 'list', element });

// Structs from docs/service.md#policy-keywords.
const USER: StaticType = {
  kind: 'struct',
  name: 'User',
  fields: { id: STRING, tags: listOf(STRING), email: STRING, alias: STRING },
};
const CREDENTIAL: StaticType = {
  kind: 'struct',
  name: 'Credential',
  fields: { id: STRING, user_id: STRING, type: STRING, credential_id: STRING, public_key: STRING },
};
const ACTIVITY: StaticType = {
  kind: 'struct',
  name: 'Activity',
  fields: { type: STRING, kind: STRING, resource: STRING, action: STRING, params: { kind: 'map', value: DYNAMIC } },
};
const WALLET: StaticType = {
  kind: 'struct',
  name: 'Wallet',
  fields: { id: STRING, imported: BOOL, exported: BOOL, label: STRING },
};
const WALLET_ACCOUNT: StaticType = { kind: 'struct', name: 'WalletAccount', fields: { address: STRING } };
const PRIVATE_KEY: StaticType = {
  kind: 'struct',
  name: 'PrivateKey',
  fields: { id: STRING, tags: listOf(STRING), imported: BOOL, exported: BOOL, label: STRING },
};

// The decoded payloads of signing activities (docs/service.md, "Policy keywords"). Integers are ints (wei, lamports, satoshis), addresses
// and hex data strings. Maps whose keys come from an uploaded ABI or IDL, and message bodies whose shape the
// typed data declares, are only known at evaluation.
const struct = (name: string, fields: Readonly<Record<string, StaticType>>): StaticType => ({ kind: 'struct', name, fields });
const DYNAMIC_MAP: StaticType = { kind: 'map', value: DYNAMIC };

const ETHEREUM_TRANSACTION = struct('EthereumTransaction', {
  from: STRING,
  to: STRING,
  data: STRING,
  value: INT,
  gas: INT,
  gas_price: INT,
  chain_id: INT,
  nonce: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  max_fee_per_blob_gas: INT,
  type: STRING,
  function_name: STRING,
  function_signature: STRING,
  contract_call_args: DYNAMIC_MAP,
});
const EIP712_TYPED_DATA = struct('Eip712TypedData', {
  primary_type: STRING,
  domain: struct('Eip712Domain', { name: STRING, version: STRING, chain_id: INT, verifying_contract: STRING }),
  message: DYNAMIC_MAP,
});
const EIP7702_AUTHORIZATION = struct('Eip7702Authorization', { address: STRING, chain_id: INT, nonce: INT });

const SOLANA_TRANSACTION = struct('SolanaTransaction', {
  account_keys: listOf(STRING),
  program_keys: listOf(STRING),
  instructions: listOf(
    struct('SolanaInstruction', {
      program_key: STRING,
      accounts: listOf(struct('SolanaAccount', { account_key: STRING, signer: BOOL, writable: BOOL })),
      instruction_data_hex: STRING,
      address_table_lookups: listOf(struct('SolanaInstructionLookup', { address_table_key: STRING, index: INT, writable: BOOL })),
      parsed_instruction_data: struct('SolanaParsedInstructionData', {
        instruction_name: STRING,
        discriminator: STRING,
        named_accounts: { kind: 'map', value: STRING },
        program_call_args: DYNAMIC_MAP,
      }),
    }),
  ),
  transfers: listOf(struct('SolanaTransfer', { from: STRING, to: STRING, amount: INT })),
  recent_blockhash: STRING,
  spl_transfers: listOf(
    struct('SolanaSplTransfer', { from: STRING, to: STRING, amount: INT, owner: STRING, signers: listOf(STRING), token_mint: STRING }),
  ),
  address_table_lookups: listOf(
    struct('SolanaAddressTableLookup', { address_table_key: STRING, writable_indexes: listOf(INT), readonly_indexes: listOf(INT) }),
  ),
});
const BITCOIN_TRANSACTION = struct('BitcoinTransaction', {
  version: INT,
  inputs: listOf(
    struct('BitcoinInput', { tx_id: STRING, vout: INT, sequence: INT, value: INT, script_pubkey: STRING, address: STRING, address_type: STRING }),
  ),
  outputs: listOf(struct('BitcoinOutput', { value: INT, script_pubkey: STRING, address: STRING, address_type: STRING })),
  locktime: struct('BitcoinLocktime', { amount: INT, type: STRING }),
  fee: INT,
});
const TRON_TRANSACTION = struct('TronTransaction', {
  ref_block_bytes: STRING,
  ref_block_hash: STRING,
  expiration: INT,
  timestamp: INT,
  data: STRING,
  fee_limit: INT,
  contract: listOf(DYNAMIC),
});
const TEMPO_TRANSACTION = struct('TempoTransaction', {
  chain_id: INT,
  from: STRING,
  nonce: INT,
  gas_limit: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  fee_token: STRING,
  valid_before: INT,
  valid_after: INT,
  calls: listOf(struct('TempoCall', { to: STRING, input: STRING, function_signature: STRING })),
});

/** The condition keywords of signing activities, by chain. */
export const TRANSACTION_ROOTS: Readonly<Record<string, StaticType>> = {
  eth: struct('Ethereum', { tx: ETHEREUM_TRANSACTION, eip_712: EIP712_TYPED_DATA, eip_7702_authorization: EIP7702_AUTHORIZATION }),
  solana: struct('Solana', { tx: SOLANA_TRANSACTION }),
  tron: struct('Tron', { tx: TRON_TRANSACTION }),
  bitcoin: struct('Bitcoin', { tx: BITCOIN_TRANSACTION }),
  tempo: struct('Tempo', { tx: TEMPO_TRANSACTION }),
};

const CONSENSUS_ROOTS: Readonly<Record<string, StaticType>> = {
  approvers: listOf(USER),
  credentials: listOf(CREDENTIAL),
};

const CONDITION_ROOTS: Readonly<Record<string, StaticType>> = {
  activity: ACTIVITY,
  wallet: WALLET,
  wallets: listOf(WALLET),
  wallet_account: WALLET_ACCOUNT,
  private_key: PRIVATE_KEY,
  user: USER,
  ...TRANSACTION_ROOTS,
  // A secret's static properties are whatever its creator named; the evaluator checks them. `secret` is the one secret a
  // request names; `secrets` every secret it names, which a deny must read so that naming two cannot slip past it.
  secret: DYNAMIC,
  secrets: listOf(DYNAMIC),
};

/** `time.now`: the service's clock when the policy is evaluated. */
const TIME_ROOTS: Readonly<Record<string, StaticType>> = {
  time: { kind: 'struct', name: 'Time', fields: { now: TIMESTAMP } },
};

/** The keywords an expression of each kind may start from, with their types. */
export const ROOTS_BY_KIND: Readonly<Record<PolicyExpressionKind, Readonly<Record<string, StaticType>>>> = {
  consensus: CONSENSUS_ROOTS,
  condition: CONDITION_ROOTS,
  time: TIME_ROOTS,
  scope: CONDITION_ROOTS,
};

export function describeType(type: StaticType): string {
  switch (type.kind) {
    case 'list':
      return type.element.kind === 'dynamic' ? 'list' : `list<${describeType(type.element)}>`;
    case 'struct':
      return type.name;
    case 'map':
      return 'map';
    case 'dynamic':
      return 'value';
    default:
      return type.kind;
  }
}
