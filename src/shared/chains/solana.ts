/**
 * Solana transaction decoding, shared by the service's policy engine and the app's approval view.
 *
 * Exports:
 * - `decodeSolanaTransaction(bytes, idls?)` → `DecodedSolanaTransaction`: the policy object `solana.tx`
 *   (`SolanaPolicyTransaction`), the required signers in slot order, the message bytes signers sign, the current
 *   signature slots, and a readable description of each instruction of a well-known program.
 * - `decodeSolanaWireOrMessage(bytes)`: the wire form alone (message bytes + signature slots), accepting a full
 *   transaction or a bare message, for the signer.
 * - The policy struct types (`SolanaPolicyTransaction` and its parts) and `SolanaIdl`.
 *
 * Legacy and v0 messages are read with @solana/kit's codecs. Accounts loaded from address lookup tables cannot be
 * resolved offline: they stay listed as lookups, never guessed.
 */
import { getNodeCodec } from '@codama/dynamic-codecs';
import { rootNodeFromAnchorWithoutDefaultVisitor, type AnchorIdl } from '@codama/nodes-from-anchor';
import {
  AccountRole,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type AccountMeta,
  type Address,
  type CompiledTransactionMessage,
  type CompiledTransactionMessageWithLifetime,
  type Instruction,
  type InstructionWithAccounts,
  type InstructionWithData,
  type ReadonlyUint8Array,
} from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, ComputeBudgetInstruction, parseComputeBudgetInstruction } from '@solana-program/compute-budget';
import { SYSTEM_PROGRAM_ADDRESS, SystemInstruction, parseSystemInstruction } from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  AssociatedTokenInstruction,
  TOKEN_PROGRAM_ADDRESS,
  TokenInstruction,
  parseAssociatedTokenInstruction,
  parseTokenInstruction,
} from '@solana-program/token';
import { bytesToHex } from '../crypto/encoding';
import { QkError } from '../errors';
import type { PolicyStruct, PolicyValue } from '../policy/values';

export const TOKEN_2022_PROGRAM_ADDRESS = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/**
 * Token-2022 keeps the original Token program's instruction layouts for discriminators 0..24 and uses the numbers
 * above for its extensions, which the Token program's decoders would misread.
 */
const TOKEN_2022_SHARED_INSTRUCTIONS = 25;

// ---- policy structs (solana.tx) ----

export type SolanaAccountMeta = {
  readonly account_key: string;
  readonly signer: boolean;
  readonly writable: boolean;
};

/** One account an instruction loads from an address lookup table: unresolved offline. */
export type SolanaInstructionLookup = {
  readonly address_table_key: string;
  readonly index: bigint;
  readonly writable: boolean;
};

/** Present only when an IDL was uploaded for the instruction's program and its discriminator matched. */
export type SolanaParsedInstructionData = {
  readonly instruction_name: string;
  readonly discriminator: string;
  readonly named_accounts: { readonly [name: string]: string };
  readonly program_call_args: PolicyStruct;
};

export type SolanaPolicyInstruction = {
  readonly program_key: string;
  /** The instruction's statically listed accounts, in the instruction's order. */
  readonly accounts: readonly SolanaAccountMeta[];
  readonly instruction_data_hex: string;
  readonly address_table_lookups: readonly SolanaInstructionLookup[];
  readonly parsed_instruction_data?: SolanaParsedInstructionData;
};

/**
 * A System transfer. An account loaded from a lookup table reads `<table address>#<index>`: it cannot be resolved
 * offline, and the label never equals a real address, so an allow-list of recipients does not match it.
 */
export type SolanaTransfer = { readonly from: string; readonly to: string; readonly amount: bigint };

export type SolanaSplTransfer = {
  readonly from: string;
  readonly to: string;
  readonly amount: bigint;
  readonly owner: string;
  /** Multisig co-signers of the owner; empty for a single-key owner. */
  readonly signers: readonly string[];
  /** Only `TransferChecked` names the mint. */
  readonly token_mint?: string;
};

export type SolanaAddressTableLookup = {
  readonly address_table_key: string;
  readonly writable_indexes: readonly bigint[];
  readonly readonly_indexes: readonly bigint[];
};

export type SolanaPolicyTransaction = {
  readonly account_keys: readonly string[];
  readonly program_keys: readonly string[];
  readonly instructions: readonly SolanaPolicyInstruction[];
  readonly transfers: readonly SolanaTransfer[];
  readonly spl_transfers: readonly SolanaSplTransfer[];
  readonly recent_blockhash: string;
  readonly address_table_lookups: readonly SolanaAddressTableLookup[];
};

// ---- decoded result ----

/** An instruction of a program the app knows by heart, named for the approval card. */
export type KnownSolanaInstruction = {
  readonly index: number;
  readonly program: 'System' | 'Token' | 'Token-2022' | 'Associated Token' | 'Compute Budget';
  readonly instruction: string;
  readonly accounts: { readonly [name: string]: string };
  readonly args: PolicyStruct;
};

export type SolanaWire = {
  /** The bytes every signer signs. */
  readonly messageBytes: Uint8Array;
  /** Required signers in slot order with their current signature (null = empty slot). */
  readonly signatures: readonly { readonly signer: string; readonly signature: Uint8Array | null }[];
  /** Whether the input was a bare message rather than a transaction with signature slots. */
  readonly bareMessage: boolean;
};

export type DecodedSolanaTransaction = SolanaWire & {
  readonly version: 'legacy' | 0;
  readonly policy: SolanaPolicyTransaction;
  readonly requiredSigners: readonly string[];
  readonly knownInstructions: readonly KnownSolanaInstruction[];
};

/** An Anchor IDL uploaded for a program (create_smart_contract_interface with type SOLANA). */
export type SolanaIdl = { readonly address: string; readonly idl: unknown };

/** Legacy and v0 messages: the versions the network runs. */
type CompiledMessage = Extract<CompiledTransactionMessage, { version: 'legacy' | 0 }> & CompiledTransactionMessageWithLifetime;

/** Ed25519 signatures fill a 64-byte slot. */
export const SOLANA_SIGNATURE_LENGTH = 64;

/**
 * Splits a serialized transaction (signature slots + message) or a bare message into the message bytes and the
 * signature slots. A transaction is tried first; a bare message gets one empty slot per required signer.
 */
export function decodeSolanaWireOrMessage(bytes: Uint8Array): SolanaWire & { readonly message: CompiledMessage } {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) {
    throw new QkError('ENCODING_INVALID', 'the Solana transaction is empty');
  }
  let transactionError: unknown;
  try {
    const transaction = getTransactionDecoder().decode(bytes);
    const messageBytes = new Uint8Array(transaction.messageBytes);
    const message = decodeWholeMessage(messageBytes);
    const signatures = Object.entries(transaction.signatures).map(([signer, signature]) => ({
      signer,
      signature: signature === null ? null : new Uint8Array(signature),
    }));
    return { messageBytes, message, signatures, bareMessage: false };
  } catch (error) {
    transactionError = error;
  }
  try {
    const message = decodeWholeMessage(bytes);
    const signers = message.staticAccounts.slice(0, message.header.numSignerAccounts);
    return {
      messageBytes: bytes.slice(),
      message,
      signatures: signers.map((signer) => ({ signer, signature: null })),
      bareMessage: true,
    };
  } catch (messageError) {
    // Either reading may be the one the caller meant, so both reasons are given.
    throw new QkError(
      'ENCODING_INVALID',
      `not a Solana transaction (${describeCause(transactionError)}) ` + `nor a bare Solana message (${describeCause(messageError)})`,
    );
  }
}

/** Decodes a Solana transaction (or bare message) into the policy object and what the signer and app need. */
export function decodeSolanaTransaction(bytes: Uint8Array, idls: readonly SolanaIdl[] = []): DecodedSolanaTransaction {
  const { message, ...wire } = decodeSolanaWireOrMessage(bytes);
  const accounts = accountTable(message);
  const interfaces = idlsByProgram(idls);

  const instructions: SolanaPolicyInstruction[] = [];
  const transfers: SolanaTransfer[] = [];
  const splTransfers: SolanaSplTransfer[] = [];
  const knownInstructions: KnownSolanaInstruction[] = [];
  const programKeys: string[] = [];

  message.instructions.forEach((compiled, index) => {
    const programKey = message.staticAccounts[compiled.programAddressIndex];
    if (programKey === undefined) {
      throw new QkError(
        'ENCODING_INVALID',
        `Solana instruction ${index} names program account ${compiled.programAddressIndex}, ` +
          `but the message lists ${message.staticAccounts.length} static accounts`,
      );
    }
    if (!programKeys.includes(programKey)) programKeys.push(programKey);
    const data = new Uint8Array(compiled.data ?? []);
    const metas = (compiled.accountIndices ?? []).map((accountIndex) => accounts.at(accountIndex, index));
    const instruction = {
      programAddress: programKey,
      accounts: metas.map((meta) => ({ address: meta.key as Address, role: accountRole(meta) })),
      data,
    };

    const parsed = interfaces.get(programKey)?.parse(data, metas);
    instructions.push({
      program_key: programKey,
      accounts: metas.flatMap((meta) => (meta.lookup === undefined ? [{ account_key: meta.key, signer: meta.signer, writable: meta.writable }] : [])),
      instruction_data_hex: bytesToHex(data),
      address_table_lookups: metas.flatMap((meta) => (meta.lookup === undefined ? [] : [meta.lookup])),
      ...(parsed === undefined ? {} : { parsed_instruction_data: parsed }),
    });

    const known = describeKnownInstruction(instruction, index);
    if (known === undefined) return;
    knownInstructions.push(known);
    const transfer = transferOf(known);
    if (transfer !== undefined) transfers.push(transfer);
    const splTransfer = splTransferOf(known, metas);
    if (splTransfer !== undefined) splTransfers.push(splTransfer);
  });

  const lookups = message.version === 0 ? (message.addressTableLookups ?? []) : [];
  const requiredSigners = message.staticAccounts.slice(0, message.header.numSignerAccounts);
  return {
    ...wire,
    version: message.version,
    requiredSigners,
    knownInstructions,
    policy: {
      account_keys: [...message.staticAccounts],
      program_keys: programKeys,
      instructions,
      transfers,
      spl_transfers: splTransfers,
      recent_blockhash: message.lifetimeToken,
      address_table_lookups: lookups.map((lookup) => ({
        address_table_key: lookup.lookupTableAddress,
        writable_indexes: lookup.writableIndexes.map(BigInt),
        readonly_indexes: lookup.readonlyIndexes.map(BigInt),
      })),
    },
  };
}

/** Reads a compiled message and insists it fills the bytes exactly: trailing bytes mean a mangled payload. */
function decodeWholeMessage(bytes: Uint8Array): CompiledMessage {
  let decoded: readonly [CompiledTransactionMessage & CompiledTransactionMessageWithLifetime, number];
  try {
    decoded = getCompiledTransactionMessageDecoder().read(bytes, 0);
  } catch (error) {
    throw new QkError('ENCODING_INVALID', `the Solana message is malformed: ${describeCause(error)}`);
  }
  const [message, end] = decoded;
  if (message.version !== 'legacy' && message.version !== 0) {
    throw new QkError('ENCODING_INVALID', `Solana message version ${String(message.version)} is not supported`);
  }
  if (end !== bytes.length) {
    throw new QkError('ENCODING_INVALID', `the Solana message is malformed: ${bytes.length - end} unexpected bytes after its end`);
  }
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
  if (
    numSignerAccounts === 0 ||
    numSignerAccounts > message.staticAccounts.length ||
    numReadonlySignerAccounts >= numSignerAccounts ||
    numReadonlyNonSignerAccounts > message.staticAccounts.length - numSignerAccounts
  ) {
    throw new QkError(
      'ENCODING_INVALID',
      `the Solana message header does not fit its ${message.staticAccounts.length} accounts ` +
        `(${numSignerAccounts} signers, ${numReadonlySignerAccounts} read-only signers, ` +
        `${numReadonlyNonSignerAccounts} read-only non-signers)`,
    );
  }
  // The runtime refuses an account listed twice; accepting one would also merge two signature slots into one.
  const duplicate = message.staticAccounts.find((account, index) => message.staticAccounts.indexOf(account) !== index);
  if (duplicate !== undefined) {
    throw new QkError('ENCODING_INVALID', `the Solana message lists account ${duplicate} twice`);
  }
  return message;
}

type ResolvedAccount = {
  /** The address, or for a lookup-table account a `table#index` label that never equals a real address. */
  readonly key: string;
  readonly signer: boolean;
  readonly writable: boolean;
  readonly lookup?: SolanaInstructionLookup;
};

/** Maps account indices to static accounts (flags from the header) or to lookup-table entries (v0). */
function accountTable(message: CompiledMessage): { at(index: number, instruction: number): ResolvedAccount } {
  const { staticAccounts, header } = message;
  const writableSigners = header.numSignerAccounts - header.numReadonlySignerAccounts;
  const writableNonSignersEnd = staticAccounts.length - header.numReadonlyNonSignerAccounts;
  const lookups = message.version === 0 ? (message.addressTableLookups ?? []) : [];
  // Loaded accounts follow the static ones: every table's writable entries, then every table's read-only ones.
  const loaded: ResolvedAccount[] = [
    ...lookups.flatMap((table) => table.writableIndexes.map((entry) => loadedAccount(table.lookupTableAddress, entry, true))),
    ...lookups.flatMap((table) => table.readonlyIndexes.map((entry) => loadedAccount(table.lookupTableAddress, entry, false))),
  ];
  return {
    at(index, instruction) {
      const key = staticAccounts[index];
      if (key !== undefined) {
        const signer = index < header.numSignerAccounts;
        const writable = signer ? index < writableSigners : index < writableNonSignersEnd;
        return { key, signer, writable };
      }
      const account = loaded[index - staticAccounts.length];
      if (account === undefined) {
        throw new QkError(
          'ENCODING_INVALID',
          `Solana instruction ${instruction} names account ${index}, but the message has only ` + `${staticAccounts.length + loaded.length} accounts`,
        );
      }
      return account;
    },
  };
}

function loadedAccount(table: string, entry: number, writable: boolean): ResolvedAccount {
  return {
    key: `${table}#${entry}`,
    signer: false,
    writable,
    lookup: { address_table_key: table, index: BigInt(entry), writable },
  };
}

function accountRole(account: ResolvedAccount): AccountRole {
  if (account.signer) return account.writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER;
  return account.writable ? AccountRole.WRITABLE : AccountRole.READONLY;
}

// ---- well-known programs ----

type ParsableInstruction = Instruction<string> & InstructionWithAccounts<readonly AccountMeta[]> & InstructionWithData<ReadonlyUint8Array>;

type ProgramParse = { instructionType: number; accounts?: object; data: object };

type KnownProgram = {
  readonly name: KnownSolanaInstruction['program'];
  /** The program's instruction enum: its reverse mapping names an instruction type. */
  readonly names: Readonly<Record<number, string>>;
  /** Throws on data the program's decoder refuses; undefined for instructions it deliberately leaves out. */
  readonly parse: (instruction: ParsableInstruction) => ProgramParse | undefined;
};

const knownPrograms: ReadonlyMap<string, KnownProgram> = new Map<string, KnownProgram>([
  [SYSTEM_PROGRAM_ADDRESS, { name: 'System', names: SystemInstruction, parse: parseSystemInstruction }],
  [TOKEN_PROGRAM_ADDRESS, { name: 'Token', names: TokenInstruction, parse: parseTokenInstruction }],
  [
    TOKEN_2022_PROGRAM_ADDRESS,
    {
      name: 'Token-2022',
      names: TokenInstruction,
      parse: (instruction: ParsableInstruction) => {
        const discriminator = instruction.data[0];
        if (discriminator === undefined || discriminator >= TOKEN_2022_SHARED_INSTRUCTIONS) return undefined;
        return parseTokenInstruction(instruction);
      },
    },
  ],
  [ASSOCIATED_TOKEN_PROGRAM_ADDRESS, { name: 'Associated Token', names: AssociatedTokenInstruction, parse: parseAssociatedTokenInstruction }],
  [COMPUTE_BUDGET_PROGRAM_ADDRESS, { name: 'Compute Budget', names: ComputeBudgetInstruction, parse: parseComputeBudgetInstruction }],
]);

/**
 * Names an instruction of a well-known program with its program's own decoder. Data the decoder refuses (unknown
 * discriminator, too few accounts) leaves the instruction undescribed: it still appears raw in the policy object.
 */
function describeKnownInstruction(instruction: ParsableInstruction, index: number): KnownSolanaInstruction | undefined {
  const program = knownPrograms.get(instruction.programAddress);
  if (program === undefined) return undefined;
  let parsed: ProgramParse | undefined;
  try {
    parsed = program.parse(instruction);
  } catch {
    return undefined;
  }
  if (parsed === undefined) return undefined;
  const accounts: Record<string, string> = {};
  for (const [name, meta] of Object.entries(parsed.accounts ?? {})) {
    if (isAccountMeta(meta)) accounts[name] = meta.address;
  }
  const { discriminator: _discriminator, ...args } = parsed.data as Record<string, unknown>;
  return {
    index,
    program: program.name,
    instruction: program.names[parsed.instructionType] ?? String(parsed.instructionType),
    accounts,
    args: toPolicyStruct(args),
  };
}

function isAccountMeta(value: unknown): value is AccountMeta {
  return typeof value === 'object' && value !== null && 'address' in value && typeof value.address === 'string';
}

function transferOf(known: KnownSolanaInstruction): SolanaTransfer | undefined {
  if (known.program !== 'System') return undefined;
  if (known.instruction !== 'TransferSol' && known.instruction !== 'TransferSolWithSeed') return undefined;
  const { source, destination } = known.accounts;
  const amount = known.args.amount;
  if (source === undefined || destination === undefined || typeof amount !== 'bigint') return undefined;
  return { from: source, to: destination, amount };
}

/** Token program transfers list a multisig owner's co-signers after their named accounts. */
function splTransferOf(known: KnownSolanaInstruction, accounts: readonly ResolvedAccount[]): SolanaSplTransfer | undefined {
  if (known.program !== 'Token' && known.program !== 'Token-2022') return undefined;
  if (known.instruction !== 'Transfer' && known.instruction !== 'TransferChecked') return undefined;
  const { source, destination, authority, mint } = known.accounts;
  const amount = known.args.amount;
  if (source === undefined || destination === undefined || authority === undefined || typeof amount !== 'bigint') {
    return undefined;
  }
  const signers = accounts.slice(Object.keys(known.accounts).length).map((account) => account.key);
  return {
    from: source,
    to: destination,
    amount,
    owner: authority,
    signers,
    ...(mint === undefined ? {} : { token_mint: mint }),
  };
}

// ---- uploaded IDLs ----

type IdlInstructionParser = {
  parse(data: Uint8Array, accounts: readonly ResolvedAccount[]): SolanaParsedInstructionData | undefined;
  /** Builds every instruction's codec now, throwing what decoding would meet later. */
  check(): void;
};

/**
 * Reads an uploaded Anchor IDL as decoding will, building each instruction's codec, so an IDL that could never
 * decode is refused when it is uploaded instead of failing every later signing request for its program.
 */
export function checkSolanaIdl(address: string, idl: unknown): void {
  idlParser(address, idl).check();
}

/**
 * Builds one parser per uploaded IDL. The IDL was validated when it was uploaded; one that Codama cannot read now
 * is reported rather than silently ignored, because a policy may depend on its fields.
 */
function idlsByProgram(idls: readonly SolanaIdl[]): Map<string, IdlInstructionParser> {
  const parsers = new Map<string, IdlInstructionParser>();
  for (const { address, idl } of idls) parsers.set(address, idlParser(address, idl));
  return parsers;
}

type CodamaRoot = ReturnType<typeof rootNodeFromAnchorWithoutDefaultVisitor>;
type CodamaInstruction = NonNullable<CodamaRoot['program']['instructions']>[number];

function unreadableIdl(address: string, reason: string): QkError {
  return new QkError('REQUEST_INVALID', `the IDL uploaded for program ${address} cannot be read: ${reason}`);
}

/** The IDL as Codama reads it: the instruction, argument and account names decoding uses. */
function codamaRootOf(address: string, idl: unknown): CodamaRoot {
  if (typeof idl !== 'object' || idl === null || !Array.isArray((idl as { instructions?: unknown }).instructions)) {
    throw unreadableIdl(address, 'an Anchor IDL is a JSON object with an "instructions" list');
  }
  try {
    // Codama's default visitors would flatten a struct argument's fields into the instruction's own arguments;
    // policies read arguments by the names the IDL gives them.
    return withListDefaults(rootNodeFromAnchorWithoutDefaultVisitor(idl as AnchorIdl));
  } catch (error) {
    throw unreadableIdl(address, describeCause(error));
  }
}

/** The keys decoding gives `program_call_args` and `named_accounts` for any instruction of the IDL (for the policy linter). */
export function solanaIdlNames(address: string, idl: unknown): { arguments: string[]; accounts: string[] } {
  const instructions = codamaRootOf(address, idl).program.instructions ?? [];
  const distinct = (names: string[]) => [...new Set(names)];
  return {
    arguments: distinct(
      instructions
        .flatMap((instruction) => (instruction.arguments ?? []).map((argument) => argument.name))
        .filter((name) => name !== 'discriminator'),
    ),
    accounts: distinct(instructions.flatMap((instruction) => (instruction.accounts ?? []).map((account) => account.name))),
  };
}

function idlParser(address: string, idl: unknown): IdlInstructionParser {
  const unreadable = (reason: string) => unreadableIdl(address, reason);
  const root = codamaRootOf(address, idl);
  const candidates = (root.program.instructions ?? []).flatMap((instruction) => {
    const discriminator = discriminatorOf(instruction);
    return discriminator === undefined ? [] : [{ instruction, discriminator }];
  });
  // The codec is typed for Codama's own node version; the IDL's nodes are the same shapes.
  const codecOf = (instruction: CodamaInstruction) =>
    getNodeCodec([root, root.program, instruction] as unknown as Parameters<typeof getNodeCodec>[0], { bytesEncoding: 'base16' });
  return {
    check() {
      for (const { instruction } of candidates) {
        try {
          codecOf(instruction);
        } catch (error) {
          throw unreadable(`instruction ${instruction.name}: ${describeCause(error)}`);
        }
      }
    },
    parse(data, accounts) {
      const match = candidates.find(({ discriminator }) => startsWith(data, discriminator));
      if (match === undefined) return undefined;
      const { instruction, discriminator } = match;
      let decoded: unknown;
      try {
        decoded = codecOf(instruction).decode(data);
      } catch {
        // Data that does not fit the IDL's layout is not that instruction: leave it unparsed.
        return undefined;
      }
      const { discriminator: _discriminator, ...args } = decoded as Record<string, unknown>;
      const namedAccounts: Record<string, string> = {};
      (instruction.accounts ?? []).forEach((account, position) => {
        const meta = accounts[position];
        if (meta !== undefined && meta.lookup === undefined) namedAccounts[account.name] = meta.key;
      });
      return {
        instruction_name: instruction.name,
        discriminator: bytesToHex(discriminator),
        named_accounts: namedAccounts,
        program_call_args: toPolicyStruct(args),
      };
    },
  };
}

/** Anchor IDLs put an 8-byte discriminator in a leading `discriminator` argument with a constant default. */
function discriminatorOf(instruction: CodamaInstruction): Uint8Array | undefined {
  const argument = (instruction.arguments ?? []).find((candidate) => candidate.name === 'discriminator');
  const value = argument?.defaultValue;
  if (value === undefined || value.kind !== 'bytesValueNode' || value.encoding !== 'base16') return undefined;
  return Uint8Array.from(value.data.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  return data.length >= prefix.length && prefix.every((byte, index) => data[index] === byte);
}

/**
 * nodes-from-anchor emits Codama nodes that leave empty lists out; the dynamic codecs walk an older node version
 * that expects every list present. These are the list fields that walk reads, per node kind.
 */
const listFieldsByKind: Readonly<Record<string, readonly string[]>> = {
  rootNode: ['additionalPrograms'],
  programNode: ['accounts', 'instructions', 'definedTypes', 'pdas', 'errors', 'events', 'constants'],
  instructionNode: ['accounts', 'arguments', 'extraArguments', 'remainingAccounts', 'byteDeltas', 'discriminators', 'subInstructions'],
  accountNode: ['discriminators'],
  eventNode: ['discriminators'],
  pdaNode: ['seeds'],
  structTypeNode: ['fields'],
  enumTypeNode: ['variants'],
  hiddenPrefixTypeNode: ['prefix'],
  hiddenSuffixTypeNode: ['suffix'],
  structValueNode: ['fields'],
};

function withListDefaults<T>(node: T): T {
  if (Array.isArray(node)) return node.map((item: unknown) => withListDefaults(item)) as T;
  if (typeof node !== 'object' || node === null) return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = withListDefaults(value);
  const kind = copy.kind;
  if (typeof kind === 'string') {
    for (const field of listFieldsByKind[kind] ?? []) copy[field] ??= [];
  }
  return copy as T;
}

// ---- values ----

/**
 * Turns decoder output into policy values: integers become bigints (so `program_call_args['amount'] < 100`
 * compares numbers), byte arrays hex, `None` options absent and `Some` options their value.
 */
function toPolicyValue(value: unknown): PolicyValue | undefined {
  switch (typeof value) {
    case 'bigint':
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      return Number.isInteger(value) ? BigInt(value) : String(value);
    case 'object': {
      if (value === null) return undefined;
      if (value instanceof Uint8Array) return bytesToHex(value);
      if (Array.isArray(value)) {
        return value.flatMap((item) => {
          const converted = toPolicyValue(item);
          return converted === undefined ? [] : [converted];
        });
      }
      const record = value as Record<string, unknown>;
      if (record.__option === 'None') return undefined;
      if (record.__option === 'Some') return toPolicyValue(record.value);
      return toPolicyStruct(record);
    }
    default:
      return undefined;
  }
}

function toPolicyStruct(record: Record<string, unknown>): PolicyStruct {
  const struct: Record<string, PolicyValue> = {};
  for (const [key, item] of Object.entries(record)) {
    const converted = toPolicyValue(item);
    if (converted !== undefined) struct[key] = converted;
  }
  return struct;
}

function describeCause(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
