/**
 * Ethereum payloads as the service signs them and as policies read them: unsigned transactions (legacy, EIP-2930,
 * EIP-1559, EIP-4844 body, EIP-7702) as `eth.tx`, EIP-712 typed data as `eth.eip_712` and EIP-7702 authorizations
 * as `eth.eip_7702_authorization`. Every format comes from viem; this module only decides what is acceptable and
 * names what is wrong.
 */
import {
  bytesToHex,
  decodeFunctionData,
  getAddress,
  hashTypedData,
  isAddress,
  keccak256,
  parseTransaction,
  hexToBytes,
  serializeTransaction,
  toFunctionSelector,
  toFunctionSignature,
  validateTypedData,
  type Abi,
  type AbiFunction,
  type AbiParameter,
  type Hex,
  type TransactionSerializable,
  type TypedDataDefinition,
} from 'viem';
import { hashAuthorization } from 'viem/utils';
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
  if (position !== -1) throw invalid(what, `is not valid hex: unexpected character at position ${position + text.length - digits.length}`, { position });
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
    (entry): entry is AbiFunction =>
      entry.type === 'function' && entry.name === decoded.functionName && toFunctionSelector(entry) === selector,
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

export interface DecodedTypedData {
  digest: Uint8Array;
  /** `eth.eip_712`. */
  policy: PolicyStruct;
}

type TypedFields = Record<string, readonly TypedField[]>;
type TypedField = { name: string; type: string };

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

/**
 * A typed-data JSON document ({types, primaryType, domain, message}, as viem's serializeTypedData and ethers'
 * TypedDataEncoder.getPayload write it), checked against its own types and hashed per EIP-712.
 */
export function decodeTypedData(payload: string, what: string): DecodedTypedData {
  let document: unknown;
  try {
    document = JSON.parse(payload);
  } catch (error) {
    throw invalid(what, `is not EIP-712 typed data: not JSON (${(error as Error).message})`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw invalid(what, 'is not EIP-712 typed data: not a JSON object');
  const { types, primaryType, domain = {}, message } = document as Record<string, unknown>;
  if (typeof types !== 'object' || types === null || Array.isArray(types)) throw invalid(what, 'is not EIP-712 typed data: "types" must be an object');
  if (typeof primaryType !== 'string') throw invalid(what, 'is not EIP-712 typed data: "primaryType" must be a string');
  if (typeof domain !== 'object' || domain === null) throw invalid(what, 'is not EIP-712 typed data: "domain" must be an object');
  if (typeof message !== 'object' || message === null) throw invalid(what, 'is not EIP-712 typed data: "message" must be an object');
  const typeTable = types as TypedFields;
  for (const [name, fields] of Object.entries(types)) {
    if (!isFieldList(fields)) {
      throw invalid(what, `does not match its types: types.${name} must be a list of {name, type}`);
    }
    const badName = [name, ...fields.map((field) => field.type)].find((type) => type.length > MAX_TYPE_NAME_LENGTH || !TYPE_NAME.test(type));
    if (badName !== undefined) {
      const shown = badName.length > 40 ? `${badName.slice(0, 40)}… (${badName.length} characters)` : badName;
      throw invalid(what, `does not match its types: "${shown}" in types.${name.slice(0, 40)} is not a type name (an identifier with optional [] or [n] suffixes, at most ${MAX_TYPE_NAME_LENGTH} characters)`);
    }
  }
  if (primaryType !== 'EIP712Domain' && typeTable[primaryType] === undefined) {
    throw invalid(what, `does not match its types: primaryType "${primaryType}" is not among types (${Object.keys(typeTable).join(', ')})`);
  }
  checkStruct(typeTable, primaryType, message as Record<string, unknown>, `${what} message`);
  const definition = { types: typeTable, primaryType, domain, message } as unknown as TypedDataDefinition;
  let digest: Hex;
  try {
    validateTypedData(definition);
    digest = hashTypedData(definition);
  } catch (error) {
    throw invalid(what, `does not match its types: ${reason(error)}`);
  }
  const domainFields = domain as Record<string, unknown>;
  return {
    digest: hexToBytes(digest),
    policy: {
      primary_type: primaryType,
      domain: withoutAbsent({
        name: typeof domainFields.name === 'string' ? domainFields.name : undefined,
        version: typeof domainFields.version === 'string' ? domainFields.version : undefined,
        chain_id: domainFields.chainId === undefined ? undefined : BigInt(domainFields.chainId as string),
        verifying_contract: typeof domainFields.verifyingContract === 'string' ? getAddress(domainFields.verifyingContract) : undefined,
      }),
      message: typedValue(typeTable, primaryType, message),
    },
  };
}

/**
 * An EIP-712 type without its array suffixes (`Mail[2][]` → `Mail`), in one pass from the end: the pattern
 * `/(\[\d*\])+$/` rescans the run of suffixes from every bracket of a hostile type name, in quadratic time.
 */
function withoutArraySuffixes(type: string): string {
  let end = type.length;
  while (type[end - 1] === ']') {
    const open = type.lastIndexOf('[', end - 2);
    if (open === -1 || !/^\d*$/.test(type.slice(open + 1, end - 1))) break;
    end = open;
  }
  return type.slice(0, end);
}

/** Every member the struct type declares is present, and no other; viem's own check covers the values. */
function checkStruct(types: TypedFields, type: string, value: Record<string, unknown>, where: string): void {
  const fields = types[type];
  if (fields === undefined) return;
  const declared = new Set(fields.map((field) => field.name));
  for (const field of fields) {
    if (!(field.name in value)) throw invalid(where, `does not match its types: ${type} needs "${field.name}" (${field.type})`);
    const inner = withoutArraySuffixes(field.type);
    const item = value[field.name];
    if (types[inner] !== undefined) {
      const items = field.type === inner ? [item] : (item as unknown[]);
      if (!Array.isArray(items)) throw invalid(where, `does not match its types: "${field.name}" must be a list (${field.type})`);
      items.forEach((entry, index) => {
        if (typeof entry !== 'object' || entry === null) throw invalid(where, `does not match its types: "${field.name}" must be a ${inner} object`);
        checkStruct(types, inner, entry as Record<string, unknown>, `${where}.${field.name}${field.type === inner ? '' : `[${index}]`}`);
      });
    }
  }
  const extra = Object.keys(value).find((key) => !declared.has(key));
  if (extra !== undefined) throw invalid(where, `does not match its types: "${extra}" is not a member of ${type}`);
}

function typedValue(types: TypedFields, type: string, value: unknown): PolicyValue {
  const list = /^(.*)\[\d*\]$/.exec(type);
  if (list) return (value as unknown[]).map((item) => typedValue(types, list[1]!, item));
  const fields = types[type];
  if (fields !== undefined) {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(fields.map((field) => [field.name, typedValue(types, field.type, record[field.name])]));
  }
  if (/^u?int\d*$/.test(type)) return BigInt(value as string);
  if (type === 'bool') return value === true || value === 'true';
  if (type === 'address' && typeof value === 'string' && isAddress(value, { strict: false })) return getAddress(value);
  return String(value);
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
  const integer = (value: unknown, name: string): bigint => {
    if ((typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) || (typeof value === 'string' && /^(?:0|[1-9]\d*|0x[0-9a-fA-F]+)$/.test(value))) {
      return BigInt(value);
    }
    throw invalid(what, `is not an EIP-7702 authorization: "${name}" must be a non-negative integer`);
  };
  const chain = integer(chainId, 'chainId');
  const count = integer(nonce, 'nonce');
  const digest = hashAuthorization({ address: getAddress(address), chainId: Number(chain), nonce: Number(count) });
  return { digest: hexToBytes(digest), policy: { address: getAddress(address), chain_id: chain, nonce: count } };
}
