/**
 * The structured data a descriptor formats, as one tree: a decoded call's arguments or a typed-data message, each
 * leaf with its Solidity type. Paths (paths.ts) select nodes in it; array wildcards and slices select several.
 */
import type { AbiParameter } from 'viem';
import { bytesToHex, getAddress, hexToBytes, isAddress, numberToHex } from 'viem';
import { QkError } from '../../errors';
import type { Path, PathStep } from './paths';

export type DataValue =
  | { kind: 'int'; type: string; value: bigint }
  | { kind: 'bool'; value: boolean }
  | { kind: 'address'; value: string }
  | { kind: 'bytes'; type: string; value: string }
  | { kind: 'string'; value: string }
  | { kind: 'list'; items: DataValue[] }
  | { kind: 'struct'; fields: Record<string, DataValue> };

/** A node a path selected, with the array indexes its wildcards took (for parameters that name the same element). */
export interface Selected {
  value: DataValue;
  indexes: number[];
  /** The selected node's own path, wildcards replaced by their indexes. */
  steps: PathStep[];
}

function leaf(type: string, raw: unknown, where: string): DataValue {
  if (/^u?int\d*$/.test(type)) {
    if (typeof raw === 'bigint') return { kind: 'int', type, value: raw };
    if (typeof raw === 'number' && Number.isSafeInteger(raw)) return { kind: 'int', type, value: BigInt(raw) };
    if (typeof raw === 'string' && /^-?(?:0x[0-9a-fA-F]+|\d+)$/.test(raw.trim())) {
      const text = raw.trim();
      return { kind: 'int', type, value: text.startsWith('-') ? -BigInt(text.slice(1)) : BigInt(text) };
    }
    throw new QkError('REQUEST_INVALID', `${where}: ${String(raw)} is not an integer (${type})`);
  }
  if (type === 'bool') {
    if (typeof raw === 'boolean') return { kind: 'bool', value: raw };
    if (raw === 'true' || raw === 'false') return { kind: 'bool', value: raw === 'true' };
    throw new QkError('REQUEST_INVALID', `${where}: ${String(raw)} is not a bool`);
  }
  if (type === 'address') {
    if (typeof raw === 'string' && isAddress(raw, { strict: false })) return { kind: 'address', value: getAddress(raw) };
    throw new QkError('REQUEST_INVALID', `${where}: ${String(raw)} is not an address`);
  }
  if (/^bytes\d*$/.test(type)) {
    if (typeof raw === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(raw)) return { kind: 'bytes', type, value: raw.toLowerCase() };
    throw new QkError('REQUEST_INVALID', `${where}: ${String(raw)} is not 0x-hex bytes (${type})`);
  }
  if (type === 'string') {
    if (typeof raw === 'string') return { kind: 'string', value: raw };
    throw new QkError('REQUEST_INVALID', `${where}: ${String(raw)} is not a string`);
  }
  throw new QkError('REQUEST_INVALID', `${where}: the type ${type} is not a Solidity type`);
}

const ARRAY_SUFFIX = /^(.*)\[(\d*)\]$/;

/** A value viem decoded, typed by its ABI parameter. */
export function fromAbi(parameter: AbiParameter, raw: unknown, where: string): DataValue {
  const array = ARRAY_SUFFIX.exec(parameter.type);
  if (array !== null) {
    if (!Array.isArray(raw)) throw new QkError('REQUEST_INVALID', `${where}: expected an array`);
    const element: AbiParameter = { ...parameter, type: array[1] ?? '' };
    return { kind: 'list', items: raw.map((item, index) => fromAbi(element, item, `${where}[${index}]`)) };
  }
  if (parameter.type === 'tuple') {
    const components = 'components' in parameter ? parameter.components : [];
    const fields: Record<string, DataValue> = {};
    components.forEach((component, index) => {
      const name = component.name ?? String(index);
      const item: unknown = Array.isArray(raw) ? raw[index] : (raw as Record<string, unknown>)[name];
      fields[name] = fromAbi(component, item, `${where}.${name}`);
    });
    return { kind: 'struct', fields };
  }
  return leaf(parameter.type, raw, where);
}

export type TypedDataTypes = Record<string, readonly { name: string; type: string }[]>;

/** A typed-data value, typed by the message's own `types`. */
export function fromTypedData(type: string, raw: unknown, types: TypedDataTypes, where: string): DataValue {
  const array = ARRAY_SUFFIX.exec(type);
  if (array !== null) {
    if (!Array.isArray(raw)) throw new QkError('REQUEST_INVALID', `${where}: expected an array of ${array[1]}`);
    return { kind: 'list', items: raw.map((item, index) => fromTypedData(array[1] ?? '', item, types, `${where}[${index}]`)) };
  }
  const members = types[type];
  if (members !== undefined) {
    if (typeof raw !== 'object' || raw === null) throw new QkError('REQUEST_INVALID', `${where}: expected a ${type} object`);
    const fields: Record<string, DataValue> = {};
    for (const member of members)
      fields[member.name] = fromTypedData(member.type, (raw as Record<string, unknown>)[member.name], types, `${where}.${member.name}`);
    return { kind: 'struct', fields };
  }
  return leaf(type, raw, where);
}

/** Bytes of a leaf, for slices: ints as their 32-byte encoding, as the ABI holds them. */
function bytesOf(value: DataValue): Uint8Array | undefined {
  if (value.kind === 'bytes') return hexToBytes(value.value as `0x${string}`);
  if (value.kind === 'address') return hexToBytes(value.value as `0x${string}`);
  if (value.kind === 'string') return new TextEncoder().encode(value.value);
  if (value.kind === 'int') return hexToBytes(numberToHex(BigInt.asUintN(256, value.value), { size: 32 }));
  return undefined;
}

function sliceBounds(length: number, step: Extract<PathStep, { kind: 'slice' }>): [number, number] {
  const at = (index: number | undefined, fallback: number): number =>
    index === undefined ? fallback : index < 0 ? Math.max(0, length + index) : Math.min(index, length);
  return [at(step.start, 0), at(step.end, length)];
}

/** Every node the steps select under `value`. */
export function select(value: DataValue, steps: readonly PathStep[], where: string, taken: Selected = { value, indexes: [], steps: [] }): Selected[] {
  const [step, ...rest] = steps;
  if (step === undefined) return [taken];
  const next = (child: DataValue, extra: { index?: number; step: PathStep }): Selected[] =>
    select(child, rest, where, {
      value: child,
      indexes: extra.index === undefined ? taken.indexes : [...taken.indexes, extra.index],
      steps: [...taken.steps, extra.step],
    });
  if (step.kind === 'name') {
    if (value.kind !== 'struct' || !(step.name in value.fields)) throw new QkError('REQUEST_INVALID', `${where}: no field “${step.name}” here`);
    const child = value.fields[step.name];
    if (child === undefined) throw new QkError('REQUEST_INVALID', `${where}: no field “${step.name}” here`);
    return next(child, { step });
  }
  if (value.kind === 'list') {
    if (step.kind === 'index') {
      const index = step.index < 0 ? value.items.length + step.index : step.index;
      const child = value.items[index];
      if (child === undefined) throw new QkError('REQUEST_INVALID', `${where}: index ${step.index} is outside an array of ${value.items.length}`);
      return next(child, { step: { kind: 'index', index } });
    }
    const [start, end] = sliceBounds(value.items.length, step);
    return value.items
      .slice(start, end)
      .flatMap((child, offset) => next(child, { index: start + offset, step: { kind: 'index', index: start + offset } }));
  }
  const bytes = bytesOf(value);
  if (bytes === undefined) throw new QkError('REQUEST_INVALID', `${where}: a ${value.kind} value cannot be indexed`);
  const [start, end] =
    step.kind === 'index'
      ? sliceBounds(bytes.length, step.index === -1 ? { kind: 'slice', start: -1 } : { kind: 'slice', start: step.index, end: step.index + 1 })
      : sliceBounds(bytes.length, step);
  const part: DataValue = { kind: 'bytes', type: 'bytes', value: bytesToHex(bytes.slice(start, end)) };
  return next(part, { step });
}

/** The selected path with the wildcards of `path` filled by `indexes`, in order (an array parameter follows its field). */
export function fillWildcards(path: Path, indexes: readonly number[]): Path {
  let next = 0;
  const steps = path.steps.map((step): PathStep => {
    if (step.kind === 'slice' && step.start === undefined && step.end === undefined && next < indexes.length) {
      return { kind: 'index', index: indexes[next++] ?? 0 };
    }
    return step;
  });
  return { root: path.root, steps };
}
