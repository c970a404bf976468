/**
 * Ethereum payloads as the service signs them and as policies read them: unsigned transactions (legacy, EIP-2930,
 * EIP-1559, EIP-4844 body, EIP-7702) as `eth.tx`, EIP-712 typed data as `eth.eip_712` and EIP-7702 authorizations
 * as `eth.eip_7702_authorization`. Every format comes from viem; this module only decides what is acceptable and
 * names what is wrong.
 */
import {
  bytesToHex,
  concatHex,
  decodeFunctionData,
  getAddress,
  hashTypedData,
  isAddress,
  keccak256,
  numberToHex,
  parseTransaction,
  hexToBytes,
  serializeTransaction,
  toFunctionSelector,
  toFunctionSignature,
  toRlp,
  validateTypedData,
  type Abi,
  type AbiFunction,
  type AbiParameter,
  type Hex,
  type TransactionSerializable,
  type TypedDataDefinition,
} from 'viem';
import { QkError } from '../errors';
import type { PolicyStruct, PolicyValue } from '../policy/values';

/** `eth.tx.type`: Turnkey names typed transactions by their EIP-2718 type byte. */
/**
 * EIP-712 type names: an identifier with optional array suffixes, at most 256 characters. viem's checks strip one
 * suffix at a time with a backtracking pattern, quadratic or worse in the length of a hostile name, so names are
 * checked here first, by a pattern whose parts cannot trade characters.
 */
const MAX_TYPE_NAME_LENGTH = 256;
const TYPE_NAME = /^[A-Za-z_$][\w$]*(?:\[\d*\])*$/;

const POLICY_TYPE_NAMES = { legacy: 'LEGACY', eip2930: 'TYPE_1', eip1559: 'TYPE_2', eip4844: 'TYPE_3', eip7702: 'TYPE_4' } as const;

export type EthereumTransactionKind = keyof typeof POLICY_TYPE_NAMES;

export interface DecodedEthereumTransaction {
  kind: EthereumTransactionKind;
  /** What the signer signs: keccak-256 of the unsigned serialization exactly as submitted. */
  signingHash: Uint8Array;
  /** The fields viem parsed; the signed transaction is these plus the signature. */
  fields: TransactionSerializable;
  /** `eth.tx` without `from` (the signer's address, which the caller knows). */
  policy: PolicyStruct;
}

function invalid(what: string, problem: string, details?: Record<string, unknown>): QkError {
  return new QkError('ENCODING_INVALID', `${what} ${problem}`, { what, ...details });
}

/** Hex with or without `0x` (Turnkey's SDKs send both), even length, as a viem `Hex`. */
export function ethereumHex(text: string, what: string): Hex {
  const digits = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (digits.length === 0) throw invalid(what, 'is empty');
  if (digits.length % 2 !== 0) throw invalid(what, `is not valid hex: odd length ${digits.length}`);
  const position = [...digits].findIndex((char) => !/[0-9a-fA-F]/.test(char));
  if (position !== -1)
    throw invalid(what, `is not valid hex: unexpected character at position ${position + text.length - digits.length}`, { position });
  return `0x${digits.toLowerCase()}`;
}

function reason(error: unknown): string {
  const { shortMessage, message } = error as { shortMessage?: string; message?: string };
  return (shortMessage ?? message ?? String(error)).split('\n')[0]!;
}

/**
 * Decodes an unsigned transaction. Refused: anything viem cannot parse (truncated, trailing bytes, unknown type),
 * an encoding that does not serialize back to the same bytes, a transaction that already carries a signature, and an
 * EIP-7702 authorization for another chain than the transaction's.
 */
export function decodeEthereumTransaction(unsignedTransaction: string, abiFor?: (to: string) => Abi | undefined): DecodedEthereumTransaction {
  const what = 'parameters.unsignedTransaction';
  const hex = ethereumHex(unsignedTransaction, what);
  let parsed: ReturnType<typeof parseTransaction>;
  try {
    parsed = parseTransaction(hex);
  } catch (error) {
    throw invalid(what, `is not an unsigned Ethereum transaction: ${reason(error)}`);
  }
  const kind = parsed.type;
  if (kind === undefined || !(kind in POLICY_TYPE_NAMES)) throw invalid(what, `has an unsupported transaction type ${String(parsed.type)}`);
  if (parsed.r !== undefined || parsed.s !== undefined || ('yParity' in parsed && parsed.yParity !== undefined && kind !== 'legacy')) {
    throw invalid(what, 'already carries a signature; send the unsigned serialization');
  }
  const fields = { ...parsed } as TransactionSerializable & { v?: bigint; yParity?: number };
  delete fields.v;
  delete fields.yParity;
  // viem reads a legacy transaction's EIP-155 chain id from its v field; an unsigned one carries (chainId, 0, 0).
  let reserialized: Hex;
  try {
    reserialized = serializeTransaction(fields);
  } catch (error) {
    throw invalid(what, `cannot be serialized again: ${reason(error)}`);
  }
  if (reserialized !== hex) throw invalid(what, 'is not in canonical RLP form (it does not serialize back to the same bytes)');
  if (fields.type === 'eip7702') {
    fields.authorizationList.forEach((authorization, index) => {
      if (authorization.chainId !== 0 && authorization.chainId !== fields.chainId) {
        throw invalid(what, `authorizationList[${index}] is for chain ${authorization.chainId} but the transaction is for chain ${fields.chainId}`, {
          index,
        });
      }
    });
  }
  return { kind, signingHash: hexToBytes(keccak256(hex)), fields, policy: transactionPolicy(kind, fields, abiFor) };
}

function transactionPolicy(kind: EthereumTransactionKind, tx: TransactionSerializable, abiFor?: (to: string) => Abi | undefined): PolicyStruct {
  const to = tx.to === undefined || tx.to === null ? undefined : getAddress(tx.to);
  const data = tx.data ?? '0x';
  const struct: Record<string, PolicyValue | undefined> = {
    type: POLICY_TYPE_NAMES[kind],
    to,
    data,
    value: tx.value ?? 0n,
    gas: tx.gas,
    nonce: tx.nonce === undefined ? undefined : BigInt(tx.nonce),
    chain_id: tx.chainId === undefined ? undefined : BigInt(tx.chainId),
    gas_price: tx.gasPrice,
    max_fee_per_gas: tx.maxFeePerGas,
    max_priority_fee_per_gas: tx.maxPriorityFeePerGas,
    max_fee_per_blob_gas: tx.maxFeePerBlobGas,
  };
  const call = to === undefined ? undefined : decodeCall(abiFor?.(to), data);
  if (call !== undefined) Object.assign(struct, call);
  return withoutAbsent(struct);
}

/** function_name, function_signature and contract_call_args from the uploaded ABI; undefined when it does not decode. */
function decodeCall(abi: Abi | undefined, data: Hex): PolicyStruct | undefined {
  if (abi === undefined || data.length < 10) return undefined;
  let decoded: { functionName: string; args?: readonly unknown[] | undefined };
  try {
    decoded = decodeFunctionData({ abi, data });
  } catch {
    return undefined;
  }
  const selector = data.slice(0, 10);
  const item = abi.find(
    (entry): entry is AbiFunction => entry.type === 'function' && entry.name === decoded.functionName && toFunctionSelector(entry) === selector,
  );
  if (item === undefined) return undefined;
  const args = decoded.args ?? [];
  return {
    function_name: item.name,
    function_signature: toFunctionSignature(item),
    contract_call_args: Object.fromEntries(item.inputs.map((input, index) => [input.name || String(index), abiValue(input, args[index])])),
  };
}

/** A decoded ABI value as a policy value: integers as bigints, addresses checksummed, bytes as 0x-hex, tuples as structs. */
function abiValue(parameter: AbiParameter, value: unknown): PolicyValue {
  if (parameter.type.endsWith(']')) {
    const element = { ...parameter, type: parameter.type.slice(0, parameter.type.lastIndexOf('[')) };
    return (value as readonly unknown[]).map((item) => abiValue(element, item));
  }
  if (parameter.type === 'tuple') {
    const components = (parameter as { components: readonly AbiParameter[] }).components;
    return Object.fromEntries(
      components.map((component, index) => {
        const key = component.name || String(index);
        const item = Array.isArray(value) ? (value as unknown[])[index] : (value as Record<string, unknown>)[key];
        return [key, abiValue(component, item)];
      }),
    );
  }
  if (typeof value === 'bigint' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return BigInt(value);
  if (parameter.type === 'address') return getAddress(value as string);
  return String(value);
}

function withoutAbsent(struct: Record<string, PolicyValue | undefined>): PolicyStruct {
  return Object.fromEntries(Object.entries(struct).filter((entry): entry is [string, PolicyValue] => entry[1] !== undefined));
}

/** The signed transaction, 0x-less hex as Turnkey returns it: the submitted fields plus (r, s, y-parity). */
export function serializeSignedTransaction(tx: TransactionSerializable, signature: { r: Uint8Array; s: Uint8Array; recovery: number }): string {
  const yParity = signature.recovery;
  // viem's legacy serializer turns v = 27 + y-parity into the EIP-155 value when the transaction has a chain id.
  return serializeTransaction(tx, { r: bytesToHex(signature.r), s: bytesToHex(signature.s), yParity, v: 27n + BigInt(yParity) }).slice(2);
}

// ─── EIP-712 ──────────────────────────────────────────────────────────────────────────────────

/** A member of an EIP-712 struct type. */
export interface TypedField {
  name: string;
  type: string;
}

/** The struct types by name: a Map, so that names such as `constructor` or `__proto__` are only ever the document's. */
export type TypedFields = ReadonlyMap<string, readonly TypedField[]>;

/** The members EIP-712 defines for a domain, in its order, with the types it gives them. */
export const EIP712_DOMAIN_FIELDS: readonly TypedField[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
];
const DOMAIN_FIELD_NAMES = EIP712_DOMAIN_FIELDS.map((field) => field.name).join(', ');

/**
 * The deepest nesting of objects and arrays a typed-data document may have, and the most struct types it may define:
 * checking, hashing and reading it recurse along both, so both are bounded before any recursion starts.
 */
export const MAX_TYPED_DATA_DEPTH = 32;
export const MAX_TYPED_DATA_TYPES = 64;

export interface DecodedTypedData {
  digest: Uint8Array;
  /** `eth.eip_712`. */
  policy: PolicyStruct;
  /** The checked document; `domainFields` are exactly the domain members the digest covers. */
  types: TypedFields;
  primaryType: string;
  domainFields: readonly TypedField[];
  domain: Readonly<Record<string, unknown>>;
  message: Readonly<Record<string, unknown>>;
}

function isFieldList(value: unknown): value is TypedField[] {
  return (
    Array.isArray(value) &&
    value.every((field: unknown) => {
      if (typeof field !== 'object' || field === null) return false;
      const { name, type } = field as Partial<Record<keyof TypedField, unknown>>;
      return typeof name === 'string' && typeof type === 'string';
    })
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The nesting depth of parsed JSON, walked with an explicit stack; stops counting past `limit`. */
function jsonDepth(root: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[root, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * A typed-data JSON document ({types, primaryType, domain, message}, as viem's serializeTypedData and ethers'
 * TypedDataEncoder.getPayload write it), checked against its own types and hashed per EIP-712. What is signed is
 * exactly what the policy view holds: every value is checked against its declared type (integers within their
 * uintN/intN range), and the domain's members must be those `types.EIP712Domain` lists (docs/service.md#signing).
 */
export function decodeTypedData(payload: string, what: string): DecodedTypedData {
  let document: unknown;
  try {
    document = JSON.parse(payload);
  } catch (error) {
    throw invalid(what, `is not EIP-712 typed data: not JSON (${(error as Error).message})`);
  }
  if (!isRecord(document)) throw invalid(what, 'is not EIP-712 typed data: not a JSON object');
  const depth = jsonDepth(document, MAX_TYPED_DATA_DEPTH);
  if (depth > MAX_TYPED_DATA_DEPTH)
    throw invalid(what, `is nested more than ${MAX_TYPED_DATA_DEPTH} levels deep; typed data is limited to ${MAX_TYPED_DATA_DEPTH}`);
  const { types, primaryType, domain = {}, message } = document;
  if (!isRecord(types)) throw invalid(what, 'is not EIP-712 typed data: "types" must be an object');
  if (typeof primaryType !== 'string') throw invalid(what, 'is not EIP-712 typed data: "primaryType" must be a string');
  if (!isRecord(domain)) throw invalid(what, 'is not EIP-712 typed data: "domain" must be an object');
  if (!isRecord(message)) throw invalid(what, 'is not EIP-712 typed data: "message" must be an object');
  const typeTable = readTypes(types, what);
  if (primaryType !== 'EIP712Domain' && !typeTable.has(primaryType)) {
    throw invalid(
      what,
      `does not match its types: primaryType "${primaryType.slice(0, 40)}" is not among types (${[...typeTable.keys()].join(', ')})`,
    );
  }
  // primaryType EIP712Domain signs the domain alone: a message beside it would be shown but not signed.
  if (primaryType === 'EIP712Domain' && Object.keys(message).length > 0) {
    throw invalid(what, 'does not match its types: with primaryType "EIP712Domain" only the domain is signed, so "message" must be {}');
  }
  const domainFields = domainFieldsOf(typeTable, domain, what);
  const hashedTypes = new Map(typeTable).set('EIP712Domain', domainFields);
  checkValue(hashedTypes, 'EIP712Domain', domain, `${what} domain`);
  if (primaryType !== 'EIP712Domain') checkValue(hashedTypes, primaryType, message, `${what} message`);
  const definition = { types: Object.fromEntries(hashedTypes), primaryType, domain, message } as unknown as TypedDataDefinition;
  let digest: Hex;
  try {
    validateTypedData(definition);
    digest = hashTypedData(definition);
  } catch (error) {
    throw invalid(what, `does not match its types: ${reason(error)}`);
  }
  return {
    digest: hexToBytes(digest),
    policy: {
      primary_type: primaryType,
      domain: withoutAbsent({
        name: domain.name as string | undefined,
        version: domain.version as string | undefined,
        chain_id: domain.chainId === undefined ? undefined : BigInt(domain.chainId as string | number),
        verifying_contract: domain.verifyingContract === undefined ? undefined : getAddress(domain.verifyingContract as string),
      }),
      message: primaryType === 'EIP712Domain' ? {} : typedValue(hashedTypes, primaryType, message),
    },
    types: typeTable,
    primaryType,
    domainFields,
    domain,
    message,
  };
}

/** `types` as a table of struct types, each name and member type checked before anything looks them up. */
function readTypes(types: Record<string, unknown>, what: string): Map<string, readonly TypedField[]> {
  const entries = Object.entries(types);
  if (entries.length > MAX_TYPED_DATA_TYPES) throw invalid(what, `defines ${entries.length} types; typed data is limited to ${MAX_TYPED_DATA_TYPES}`);
  for (const [name, fields] of entries) {
    if (!isFieldList(fields)) {
      throw invalid(what, `does not match its types: types.${name.slice(0, 40)} must be a list of {name, type}`);
    }
    const badName = [name, ...fields.map((field) => field.type)].find((type) => type.length > MAX_TYPE_NAME_LENGTH || !TYPE_NAME.test(type));
    if (badName !== undefined) {
      const shown = badName.length > 40 ? `${badName.slice(0, 40)}… (${badName.length} characters)` : badName;
      throw invalid(
        what,
        `does not match its types: "${shown}" in types.${name.slice(0, 40)} is not a type name (an identifier with optional [] or [n] suffixes, at most ${MAX_TYPE_NAME_LENGTH} characters)`,
      );
    }
  }
  return new Map(entries as [string, TypedField[]][]);
}

/**
 * The domain members the digest covers. With `types.EIP712Domain` they are the ones it lists, and the domain object
 * must hold exactly those; without it, the ones the domain holds (viem's rule). Either way only EIP-712's five members
 * with their standard types: a member that is not hashed must never reach the view or the policy.
 */
function domainFieldsOf(types: TypedFields, domain: Record<string, unknown>, what: string): readonly TypedField[] {
  const present = Object.keys(domain);
  const nullMember = present.find((name) => domain[name] === null);
  if (nullMember !== undefined) throw invalid(what, `does not match its types: domain.${nullMember.slice(0, 40)} is null; leave it out instead`);
  const declared = types.get('EIP712Domain');
  const fields = declared ?? EIP712_DOMAIN_FIELDS.filter((field) => Object.hasOwn(domain, field.name));
  const listed = declared === undefined ? 'the domain' : 'types.EIP712Domain';
  const seen = new Set<string>();
  for (const field of fields) {
    const standard = EIP712_DOMAIN_FIELDS.find((known) => known.name === field.name);
    if (standard === undefined) {
      throw invalid(
        what,
        `does not match its types: "${field.name.slice(0, 40)}" in ${listed} is not an EIP-712 domain member (${DOMAIN_FIELD_NAMES})`,
      );
    }
    if (field.type !== standard.type) {
      throw invalid(
        what,
        `does not match its types: types.EIP712Domain declares ${field.name} as ${field.type.slice(0, 40)}; EIP-712 declares it ${standard.type}`,
      );
    }
    if (seen.has(field.name)) throw invalid(what, `does not match its types: types.EIP712Domain lists ${field.name} twice`);
    seen.add(field.name);
    if (!Object.hasOwn(domain, field.name))
      throw invalid(what, `does not match its types: types.EIP712Domain lists ${field.name} but the domain has no value for it`);
  }
  const unsigned = present.find((name) => !seen.has(name));
  if (unsigned !== undefined) {
    const known = EIP712_DOMAIN_FIELDS.some((field) => field.name === unsigned);
    throw invalid(
      what,
      known
        ? `does not match its types: domain.${unsigned} is not listed in types.EIP712Domain, so it would not be signed; list it there or leave it out of the domain`
        : `does not match its types: domain.${unsigned.slice(0, 40)} is not an EIP-712 domain member (${DOMAIN_FIELD_NAMES})`,
    );
  }
  return fields;
}

/** An EIP-712 array type's element type and fixed length (`Mail[2][]` → `Mail[2]`, any length); undefined otherwise. */
function arrayOf(type: string): { element: string; length?: number } | undefined {
  if (!type.endsWith(']')) return undefined;
  const open = type.lastIndexOf('[');
  const size = type.slice(open + 1, -1);
  return { element: type.slice(0, open), ...(size === '' ? {} : { length: Number(size) }) };
}

/**
 * The value matches its declared type, all the way down: structs have exactly their members (own properties only),
 * arrays their length, atomic values the JSON kind and range their type allows. The depth bound keeps this recursion
 * (and viem's) short.
 */
function checkValue(types: TypedFields, type: string, value: unknown, where: string): void {
  const mismatch = (problem: string) => invalid(where, `does not match its types: ${problem}`);
  const array = arrayOf(type);
  if (array !== undefined) {
    if (!Array.isArray(value)) throw mismatch(`it must be a list (${type})`);
    if (array.length !== undefined && value.length !== array.length) throw mismatch(`${type} holds ${array.length} items, not ${value.length}`);
    value.forEach((item, index) => checkValue(types, array.element, item, `${where}[${index}]`));
    return;
  }
  const fields = types.get(type);
  if (fields !== undefined) {
    if (!isRecord(value)) throw mismatch(`it must be a ${type} object`);
    for (const field of fields) {
      if (!Object.hasOwn(value, field.name)) throw mismatch(`${type} needs "${field.name}" (${field.type})`);
      checkValue(types, field.type, value[field.name], `${where}.${field.name}`);
    }
    const declared = new Set(fields.map((field) => field.name));
    const extra = Object.keys(value).find((key) => !declared.has(key));
    if (extra !== undefined) throw mismatch(`"${extra.slice(0, 40)}" is not a member of ${type}`);
    return;
  }
  checkAtomic(type, value, mismatch);
}

/**
 * The longest integer text read: a uint256 has 78 decimal digits. BigInt parses decimal text in quadratic time, so a
 * megabyte of digits is refused by its length rather than parsed.
 */
const MAX_INTEGER_TEXT = 80;
const INTEGER_TYPE = /^(u?)int(\d+)$/;
const BYTES_TYPE = /^bytes(\d*)$/;
const INTEGER_TEXT = /^(?:-?(?:0|[1-9]\d*)|0x[0-9a-fA-F]+)$/;

/** An atomic EIP-712 value: the JSON kind its type needs, integers as numbers or decimal / 0x strings within range. */
function checkAtomic(type: string, value: unknown, mismatch: (problem: string) => QkError): void {
  const shown = () => JSON.stringify(value)?.slice(0, 80);
  const integerType = INTEGER_TYPE.exec(type);
  if (integerType !== null) {
    const bits = Number(integerType[2]);
    if (bits < 8 || bits > 256 || bits % 8 !== 0) throw mismatch(`"${type}" is not an EIP-712 type`);
    let number: bigint;
    if (typeof value === 'number' && Number.isInteger(value)) number = BigInt(value);
    else if (typeof value === 'string' && value.length > MAX_INTEGER_TEXT)
      throw mismatch(`a ${value.length}-character integer is too long for ${type}`);
    else if (typeof value === 'string' && INTEGER_TEXT.test(value)) number = BigInt(value);
    else throw mismatch(`${shown()} is not an integer (${type}: a JSON integer or a decimal or 0x string)`);
    const signed = integerType[1] === '';
    const [low, high] = signed ? [-(1n << BigInt(bits - 1)), (1n << BigInt(bits - 1)) - 1n] : [0n, (1n << BigInt(bits)) - 1n];
    if (number < low || number > high) throw mismatch(`${number} is outside the range of ${type} (${low} to ${high})`);
    return;
  }
  const bytesType = BYTES_TYPE.exec(type);
  if (bytesType !== null) {
    const size = bytesType[1] === '' ? undefined : Number(bytesType[1]);
    if (size !== undefined && (size < 1 || size > 32)) throw mismatch(`"${type}" is not an EIP-712 type`);
    if (typeof value !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(value)) throw mismatch(`${shown()} is not 0x hex bytes (${type})`);
    if (size !== undefined && value.length !== 2 + 2 * size) throw mismatch(`${shown()} is ${(value.length - 2) / 2} bytes; ${type} holds ${size}`);
    return;
  }
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw mismatch(`${shown()} is not a string`);
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw mismatch(`${shown()} is not true or false`);
      return;
    case 'address':
      if (typeof value !== 'string' || !isAddress(value, { strict: false })) throw mismatch(`Address ${shown()} is invalid (a 20-byte 0x address)`);
      return;
    default:
      throw mismatch(`"${type.slice(0, 40)}" is neither a type in types nor an EIP-712 atomic type`);
  }
}

/** The checked value as a policy value: integers as bigints, addresses checksummed, structs as maps. */
function typedValue(types: TypedFields, type: string, value: unknown): PolicyValue {
  const array = arrayOf(type);
  if (array !== undefined) return (value as unknown[]).map((item) => typedValue(types, array.element, item));
  const fields = types.get(type);
  if (fields !== undefined) {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(fields.map((field) => [field.name, typedValue(types, field.type, record[field.name])]));
  }
  if (INTEGER_TYPE.test(type)) return BigInt(value as string | number);
  if (type === 'bool') return value as boolean;
  if (type === 'address') return getAddress(value as string);
  return value as string;
}

// ─── EIP-7702 ─────────────────────────────────────────────────────────────────────────────────

export interface DecodedAuthorization {
  digest: Uint8Array;
  /** `eth.eip_7702_authorization`. */
  policy: PolicyStruct;
}

/** The JSON {address, chainId, nonce} @turnkey/viem's signAuthorization sends, hashed per EIP-7702. */
export function decodeAuthorization(payload: string, what: string): DecodedAuthorization {
  let document: unknown;
  try {
    document = JSON.parse(payload);
  } catch (error) {
    throw invalid(what, `is not an EIP-7702 authorization: not JSON (${(error as Error).message})`);
  }
  const { address, chainId, nonce } = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
  if (typeof address !== 'string' || !isAddress(address, { strict: false })) {
    throw invalid(what, 'is not an EIP-7702 authorization: "address" must be a 20-byte 0x address');
  }
  const integer = (value: unknown, name: string, bits: number): bigint => {
    let parsed: bigint | undefined;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) parsed = BigInt(value);
    else if (typeof value === 'string' && value.length <= MAX_INTEGER_TEXT && /^(?:0|[1-9]\d*|0x[0-9a-fA-F]+)$/.test(value)) parsed = BigInt(value);
    if (parsed === undefined) {
      const hint =
        typeof value === 'number' && Number.isInteger(value) && value > 0
          ? ' (above 2^53 - 1 JSON numbers lose precision: send it as a decimal string)'
          : typeof value === 'string' && value.length > MAX_INTEGER_TEXT
            ? ` of at most ${MAX_INTEGER_TEXT} characters`
            : '';
      throw invalid(what, `is not an EIP-7702 authorization: "${name}" must be a non-negative integer${hint}`);
    }
    if (parsed >= 1n << BigInt(bits)) throw invalid(what, `is not an EIP-7702 authorization: "${name}" ${parsed} does not fit in uint${bits}`);
    return parsed;
  };
  const chain = integer(chainId, 'chainId', 256);
  const count = integer(nonce, 'nonce', 64);
  // EIP-7702's keccak256(0x05 ‖ rlp([chain_id, address, nonce])) over the exact integers: viem's hashAuthorization
  // takes JavaScript numbers, which cannot hold every uint64 nonce.
  const rlpInteger = (value: bigint): Hex => (value === 0n ? '0x' : numberToHex(value));
  const digest = keccak256(concatHex(['0x05', toRlp([rlpInteger(chain), getAddress(address), rlpInteger(count)])]));
  return { digest: hexToBytes(digest), policy: { address: getAddress(address), chain_id: chain, nonce: count } };
}
