/**
 * The ERC-7730 formatter: given a call (or a typed-data message) and the descriptor that binds it, the intent, the
 * owner and the fields in the descriptor's order, each value formatted as its `format` says. A calldata field reads
 * the inner call with the descriptor bound to its callee, recursively. Anything a descriptor asks that the data does
 * not have is a QkError naming the field, never a guess.
 */
import { decodeFunctionData, getAddress, isAddress, type AbiFunction } from 'viem';
import { QkError } from '../../errors';
import { isObject } from './descriptor';
import {
  addressOf,
  chainText,
  dateText,
  durationText,
  integerOf,
  interoperableAddressText,
  nativeAmountText,
  rawText,
  tokenAmountText,
  unitText,
} from './formats';
import { parsePath, pathText, samePath, underBase, type Path } from './paths';
import type { DescriptorIndex } from './registry';
import type { Container, DescriptorReading, Erc7730DataProvider, Json, JsonObject, RegistryDescriptor, RenderedField, RenderedOutput } from './types';
import { fillWildcards, fromAbi, fromTypedData, select, type DataValue, type Selected, type TypedDataTypes } from './values';

/** Inner calls deeper than this are shown as their bytes: a descriptor cannot make the reader loop. */
const MAX_NESTING = 4;

interface Scope {
  entry: RegistryDescriptor;
  data: DataValue;
  container: Container;
  provider: Erc7730DataProvider;
  index: DescriptorIndex;
  depth: number;
}

/** A field as rendered, with the path it came from so `interpolatedIntent` can name it. */
interface Shown extends RenderedField {
  path?: Path;
  spec: JsonObject;
}

function lookupDescriptor(descriptor: JsonObject, path: Path, what: string): Json {
  let node: Json | undefined = descriptor;
  for (const step of path.steps) {
    if (step.kind === 'name' && isObject(node ?? null)) node = (node as JsonObject)[step.name];
    else if (step.kind === 'index' && Array.isArray(node)) node = node[step.index < 0 ? node.length + step.index : step.index];
    else node = undefined;
    if (node === undefined) break;
  }
  if (node === undefined) throw new QkError('REQUEST_INVALID', `${what}: the descriptor has nothing at ${pathText(path)}`);
  return node;
}

/** A `$ref` field: the definition, overridden by the field's own keys (its params merged over the definition's). */
function resolveReference(spec: JsonObject, descriptor: JsonObject, what: string): JsonObject {
  const reference = spec['$ref'];
  if (typeof reference !== 'string') return spec;
  const definition = lookupDescriptor(descriptor, parsePath(reference), what);
  if (!isObject(definition)) throw new QkError('REQUEST_INVALID', `${what}: ${reference} is not a field definition`);
  const { $ref: _reference, ...own } = spec;
  const params =
    isObject(definition['params'] ?? null) || isObject(own['params'] ?? null)
      ? { ...(definition['params'] as JsonObject | undefined), ...(own['params'] as JsonObject | undefined) }
      : undefined;
  return { ...definition, ...own, ...(params === undefined ? {} : { params }) };
}

function constantToValue(constant: Json, what: string): DataValue {
  if (typeof constant === 'number' && Number.isSafeInteger(constant)) return { kind: 'int', type: 'uint256', value: BigInt(constant) };
  if (typeof constant === 'boolean') return { kind: 'bool', value: constant };
  if (typeof constant === 'string') {
    if (isAddress(constant, { strict: false })) return { kind: 'address', value: getAddress(constant) };
    if (/^0x[0-9a-fA-F]*$/.test(constant))
      return constant.length === 2 ? { kind: 'bytes', type: 'bytes', value: '0x' } : { kind: 'int', type: 'uint256', value: BigInt(constant) };
    if (/^\d+$/.test(constant)) return { kind: 'int', type: 'uint256', value: BigInt(constant) };
    return { kind: 'string', value: constant };
  }
  throw new QkError('REQUEST_INVALID', `${what}: ${JSON.stringify(constant)} is not a value a field can show`);
}

function containerValue(container: Container, path: Path, what: string): DataValue {
  const [step] = path.steps;
  const name = step?.kind === 'name' ? step.name : '';
  switch (name) {
    case 'value':
      return { kind: 'int', type: 'uint256', value: container.value };
    case 'chainId':
      return { kind: 'int', type: 'uint256', value: BigInt(container.chainId) };
    case 'to':
    case 'from': {
      const address = container[name];
      if (address === undefined)
        throw new QkError('REQUEST_INVALID', `${what}: @.${name} is not known for this ${name === 'from' ? 'signer' : 'call'}`);
      return { kind: 'address', value: getAddress(address) };
    }
    default:
      throw new QkError('REQUEST_INVALID', `${what}: ${pathText(path)} is not a container value (@.from, @.to, @.value, @.chainId)`);
  }
}

/** Every node a path selects: in the data (under the group's base), the container, or the descriptor's constants. */
function resolve(scope: Scope, path: Path, base: Path, what: string): Selected[] {
  if (path.root === '@') return [{ value: containerValue(scope.container, path, what), indexes: [], steps: [] }];
  if (path.root === '$') return [{ value: constantToValue(lookupDescriptor(scope.entry.descriptor, path, what), what), indexes: [], steps: [] }];
  const absolute = underBase(path, base);
  return select(scope.data, absolute.steps, `${what} (${pathText(absolute)})`);
}

/**
 * A parameter given as a constant (`token`), a `$.` reference, a map reference, or a path (`tokenPath`) into the data;
 * an array path takes the element at the field's own index.
 */
function parameter(scope: Scope, params: JsonObject, name: string, field: Selected, base: Path, what: string): DataValue | undefined {
  const pathParameter = params[`${name}Path`];
  if (typeof pathParameter === 'string') {
    const path = fillWildcards(parsePath(pathParameter), field.indexes);
    const [first, ...more] = resolve(scope, path, base, `${what}: ${name}Path`);
    if (first === undefined || more.length > 0) throw new QkError('REQUEST_INVALID', `${what}: ${name}Path ${pathParameter} must select one value`);
    return first.value;
  }
  const constant = params[name];
  if (constant === undefined) return undefined;
  return constantToValue(constantOf(scope, constant, base, what), what);
}

/** A constant parameter: literal, `$.` reference, or `{map, keyPath}`. */
function constantOf(scope: Scope, constant: Json, base: Path, what: string): Json {
  if (typeof constant === 'string' && constant.startsWith('$.')) return lookupDescriptor(scope.entry.descriptor, parsePath(constant), what);
  if (isObject(constant) && typeof constant['map'] === 'string' && typeof constant['keyPath'] === 'string') {
    const map = lookupDescriptor(scope.entry.descriptor, parsePath(constant['map']), what);
    const [keyNode] = resolve(scope, parsePath(constant['keyPath']), base, what);
    const values = isObject(map) ? map['values'] : undefined;
    if (keyNode === undefined || !isObject(values ?? null)) throw new QkError('REQUEST_INVALID', `${what}: the map ${constant['map']} has no values`);
    const keyText = rawText(keyNode.value);
    const found = (values as JsonObject)[keyText] ?? (values as JsonObject)[keyText.toLowerCase()];
    if (found === undefined) throw new QkError('REQUEST_INVALID', `${what}: the map ${constant['map']} has no value for ${keyText}`);
    return found;
  }
  return constant;
}

function stringList(value: Json | undefined): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function tokenAmount(scope: Scope, value: DataValue, params: JsonObject, field: Selected, base: Path, what: string): string {
  const amount = integerOf(value, what);
  const token = parameter(scope, params, 'token', field, base, what);
  const chainValue = parameter(scope, params, 'chainId', field, base, what);
  const chainId = chainValue === undefined ? scope.container.chainId : Number(integerOf(chainValue, what));
  const native = stringList(constantOf(scope, params['nativeCurrencyAddress'] ?? [], base, what)).map((address) => address.toLowerCase());
  const tokenAddress = token === undefined ? undefined : addressOf(token, `${what}: token`);
  const isNative = tokenAddress !== undefined && native.includes(tokenAddress.toLowerCase());
  const metadata = isNative
    ? { symbol: nativeAmountText(0n, chainId).replace(/^0 /, ''), decimals: 18 }
    : tokenAddress === undefined
      ? undefined
      : (scope.provider.token(chainId, tokenAddress) ?? ownToken(scope, chainId, tokenAddress));
  const thresholdParameter = params['threshold'];
  if (metadata !== undefined && thresholdParameter !== undefined) {
    const threshold = integerOf(constantToValue(constantOf(scope, thresholdParameter, base, what), what), `${what}: threshold`);
    if (amount >= threshold) {
      const message = params['message'];
      return `${typeof message === 'string' ? message : 'Unlimited'} ${metadata.symbol}`;
    }
  }
  if (metadata === undefined) return amount.toString();
  return tokenAmountText(amount, metadata.decimals, metadata.symbol);
}

/** The descriptor's own `metadata.token`, for amounts of the contract it describes. */
function ownToken(scope: Scope, chainId: number, address: string): { symbol: string; decimals: number } | undefined {
  const metadata = scope.entry.descriptor['metadata'];
  const token = isObject(metadata ?? null) ? (metadata as JsonObject)['token'] : undefined;
  if (!isObject(token ?? null) || scope.container.to === undefined || chainId !== scope.container.chainId) return undefined;
  if (scope.container.to.toLowerCase() !== address.toLowerCase()) return undefined;
  const { ticker, decimals } = token as JsonObject;
  return typeof ticker === 'string' && typeof decimals === 'number' ? { symbol: ticker, decimals } : undefined;
}

function addressName(scope: Scope, value: DataValue, params: JsonObject, base: Path, what: string): string {
  const address = addressOf(value, what);
  const senders = stringList(constantOf(scope, params['senderAddress'] ?? [], base, what)).map((sender) => sender.toLowerCase());
  if (senders.includes(address.toLowerCase())) {
    if (scope.container.from === undefined) return 'Sender';
    return addressName(scope, { kind: 'address', value: scope.container.from }, { ...params, senderAddress: [] }, base, what);
  }
  const sources = params['sources'] === undefined ? undefined : stringList(params['sources']);
  return scope.provider.addressName(address, sources) ?? address;
}

/** Constant parameters given as `$.` references (a unit's symbol in `metadata.constants`) read as their values. */
function constantParams(scope: Scope, params: JsonObject, what: string): JsonObject {
  const resolved: JsonObject = {};
  for (const [name, value] of Object.entries(params)) {
    const isReference = typeof value === 'string' && value.startsWith('$.') && name !== '$ref' && !name.endsWith('Path');
    resolved[name] = isReference ? lookupDescriptor(scope.entry.descriptor, parsePath(value), what) : value;
  }
  return resolved;
}

function formatValue(scope: Scope, spec: JsonObject, field: Selected, base: Path, what: string): string | RenderedOutput {
  const format = typeof spec['format'] === 'string' ? spec['format'] : 'raw';
  const params = constantParams(scope, isObject(spec['params'] ?? null) ? (spec['params'] as JsonObject) : {}, what);
  const { value } = field;
  const encryption = spec['encryption'];
  if (isObject(encryption ?? null)) {
    // No decryption scheme is supported: the placeholder the descriptor names, never the ciphertext read as a value.
    const fallback = (encryption as JsonObject)['fallbackLabel'];
    return typeof fallback === 'string' ? fallback : '[encrypted]';
  }
  switch (format) {
    case 'raw':
      return rawText(value);
    case 'amount':
      return nativeAmountText(integerOf(value, what), scope.container.chainId);
    case 'tokenAmount':
      return tokenAmount(scope, value, params, field, base, what);
    case 'date': {
      const encoding = params['encoding'];
      if (encoding === 'blockheight') {
        const height = integerOf(value, what);
        const seconds = scope.provider.blockTimestamp(height);
        if (seconds === undefined) return `block ${height}`;
        return dateText(BigInt(seconds));
      }
      return dateText(integerOf(value, what));
    }
    case 'duration':
      return durationText(integerOf(value, what));
    case 'unit': {
      const decimals = typeof params['decimals'] === 'number' ? params['decimals'] : 0;
      const unitBase = typeof params['base'] === 'string' ? params['base'] : '';
      return unitText(integerOf(value, what), decimals, unitBase, params['prefix'] === true);
    }
    case 'enum': {
      const reference = typeof params['$ref'] === 'string' ? params['$ref'] : undefined;
      if (reference === undefined) throw new QkError('REQUEST_INVALID', `${what}: an enum field needs params.$ref`);
      const values = lookupDescriptor(scope.entry.descriptor, parsePath(reference), what);
      if (!isObject(values)) throw new QkError('REQUEST_INVALID', `${what}: ${reference} is not an enumeration`);
      // Keys are written as the value's text; a bool's may be capitalised ("True").
      const key = rawText(value).toLowerCase();
      const shown = Object.entries(values).find(([name]) => name.toLowerCase() === key)?.[1];
      return typeof shown === 'string' ? shown : rawText(value);
    }
    case 'chainId':
      return chainText(integerOf(value, what));
    case 'addressName':
      return addressName(scope, value, params, base, what);
    case 'tokenTicker': {
      const address = addressOf(value, what);
      const chainValue = parameter(scope, params, 'chainId', field, base, what);
      const chainId = chainValue === undefined ? scope.container.chainId : Number(integerOf(chainValue, what));
      return scope.provider.token(chainId, address)?.symbol ?? ownToken(scope, chainId, address)?.symbol ?? address;
    }
    case 'nftName': {
      const collection = parameter(scope, params, 'collection', field, base, what);
      const id = integerOf(value, what);
      if (collection === undefined) return id.toString();
      const name = scope.provider.nftCollectionName(scope.container.chainId, addressOf(collection, `${what}: collection`));
      return name === undefined ? id.toString() : `${name} #${id}`;
    }
    case 'interoperableAddressName': {
      if (value.kind !== 'bytes') throw new QkError('REQUEST_INVALID', `${what}: an interoperable address must be bytes`);
      const sources = params['sources'] === undefined ? undefined : stringList(params['sources']);
      return interoperableAddressText(value.value, (address) => scope.provider.addressName(address, sources) ?? address);
    }
    case 'calldata':
      return innerCall(scope, value, params, field, base, what);
    default:
      throw new QkError('REQUEST_INVALID', `${what}: the format “${format}” is not an ERC-7730 format`);
  }
}

function innerCall(scope: Scope, value: DataValue, params: JsonObject, field: Selected, base: Path, what: string): string | RenderedOutput {
  if (value.kind !== 'bytes') throw new QkError('REQUEST_INVALID', `${what}: calldata must be bytes`);
  const callee = parameter(scope, params, 'callee', field, base, what);
  if (callee === undefined) throw new QkError('REQUEST_INVALID', `${what}: a calldata field needs callee or calleePath`);
  const selectorValue = parameter(scope, params, 'selector', field, base, what);
  const chainValue = parameter(scope, params, 'chainId', field, base, what);
  const amount = parameter(scope, params, 'amount', field, base, what);
  const spender = parameter(scope, params, 'spender', field, base, what);
  const container: Container = {
    chainId: chainValue === undefined ? scope.container.chainId : Number(integerOf(chainValue, what)),
    to: addressOf(callee, `${what}: callee`),
    from: spender === undefined ? scope.container.from : addressOf(spender, `${what}: spender`),
    value: amount === undefined ? 0n : integerOf(amount, `${what}: amount`),
  };
  const selector = selectorValue === undefined ? value.value.slice(0, 10) : `0x${integerOf(selectorValue, what).toString(16).padStart(8, '0')}`;
  const data = selectorValue === undefined ? value.value : `${selector}${value.value.slice(2)}`;
  if (scope.depth >= MAX_NESTING || container.to === undefined) return value.value;
  const match = scope.index.calldata(container.chainId, container.to, selector, true);
  if (match === undefined) return value.value;
  return renderCall(match.entry, match.format, match.fn, { ...container, to: container.to }, data, scope.provider, scope.index, scope.depth + 1)
    .rendered;
}

function isVisible(spec: JsonObject, value: DataValue, what: string): boolean {
  const visible = spec['visible'];
  if (visible === undefined || visible === 'always' || visible === 'optional') return true;
  if (visible === 'never') return false;
  if (isObject(visible)) {
    const text = rawText(value).toLowerCase();
    const listed = (key: string): string[] =>
      stringList(visible[key] ?? [])
        .concat((Array.isArray(visible[key]) ? visible[key] : []).filter((item) => typeof item === 'number').map(String))
        .map((item) => (item.startsWith('0x') && /^\d+$/.test(text) ? BigInt(item).toString() : item.toLowerCase()));
    if (visible['mustMatch'] !== undefined) {
      if (!listed('mustMatch').includes(text))
        throw new QkError('REQUEST_INVALID', `${what}: ${rawText(value)} is not a value the descriptor accepts here`);
      return false;
    }
    if (visible['ifNotIn'] !== undefined) return !listed('ifNotIn').includes(text);
  }
  return true;
}

/** A path that ends in a wildcard or slice selects each element: the group's fields repeat per element. */
function hasWildcard(path: Path): boolean {
  return path.steps.some((step) => step.kind === 'slice');
}

function renderFields(scope: Scope, specs: Json, base: Path, shown: Shown[], where: string): void {
  if (!Array.isArray(specs)) throw new QkError('REQUEST_INVALID', `${where}: “fields” must be an array`);
  specs.forEach((raw, position) => {
    const what = `${where}.fields[${position}]`;
    if (!isObject(raw)) throw new QkError('REQUEST_INVALID', `${what}: a field must be an object`);
    const spec = resolveReference(raw, scope.entry.descriptor, what);
    const label = typeof spec['label'] === 'string' ? spec['label'] : '';
    if (spec['fields'] !== undefined) {
      if (spec['visible'] === 'never') return;
      const groupPath = typeof spec['path'] === 'string' ? underBase(parsePath(spec['path']), base) : base;
      if (!hasWildcard(groupPath)) {
        renderGroup(scope, spec, groupPath, shown, what);
        return;
      }
      for (const element of select(scope.data, groupPath.steps, what))
        renderFields(scope, spec['fields'], { root: groupPath.root, steps: element.steps }, shown, what);
      return;
    }
    if (spec['value'] !== undefined && spec['path'] === undefined) {
      const constant = constantToValue(constantOf(scope, spec['value'], base, what), what);
      if (!isVisible(spec, constant, what)) return;
      shown.push({ label, value: formatValue(scope, spec, { value: constant, indexes: [], steps: [] }, base, what), spec });
      return;
    }
    if (typeof spec['path'] !== 'string') throw new QkError('REQUEST_INVALID', `${what}: a field needs a path or a value`);
    const path = parsePath(spec['path']);
    if (spec['visible'] === 'never') return;
    const selected = resolve(scope, path, base, what);
    const separator = typeof spec['separator'] === 'string' ? spec['separator'] : undefined;
    selected.forEach((field, index) => {
      if (!isVisible(spec, field.value, what)) return;
      const itemLabel = separator === undefined ? label : separator.replaceAll('{index}', String(index));
      shown.push({ label: itemLabel, value: formatValue(scope, spec, field, base, what), path: underBase(path, base), spec });
    });
  });
}

/** A group without a wildcard: its fields in order, or its arrays element by element (`iteration: bundled`). */
function renderGroup(scope: Scope, spec: JsonObject, base: Path, shown: Shown[], what: string): void {
  if (spec['iteration'] !== 'bundled') {
    renderFields(scope, spec['fields'] ?? [], base, shown, what);
    return;
  }
  const perField: Shown[][] = [];
  for (const field of Array.isArray(spec['fields']) ? spec['fields'] : []) {
    const own: Shown[] = [];
    renderFields(scope, [field], base, own, what);
    perField.push(own);
  }
  const length = perField[0]?.length ?? 0;
  if (perField.some((list) => list.length !== length))
    throw new QkError('REQUEST_INVALID', `${what}: a bundled group's arrays must have the same length`);
  for (let index = 0; index < length; index++)
    for (const list of perField) {
      const item = list[index];
      if (item !== undefined) shown.push(item);
    }
}

function intentText(intent: Json | undefined): string {
  if (typeof intent === 'string') return intent;
  if (isObject(intent ?? null))
    return Object.entries(intent as JsonObject)
      .map(([label, value]) => `${label}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(', ');
  return '';
}

/** `{path}` placeholders replaced by their fields' formatted values; `{{` and `}}` are literal braces. */
function interpolate(scope: Scope, template: string, shown: readonly Shown[], base: Path, what: string): string {
  return template.replace(/\{\{|\}\}|\{([^{}]+)\}/g, (whole, inner: string | undefined) => {
    if (inner === undefined) return whole[0] ?? '';
    const path = parsePath(inner);
    const absolute = underBase(path, base);
    const field = shown.find((candidate) => candidate.path !== undefined && samePath(candidate.path, absolute));
    if (field !== undefined && typeof field.value === 'string') return field.value;
    const [selected] = resolve(scope, path, base, `${what}: {${inner}}`);
    if (selected === undefined) throw new QkError('REQUEST_INVALID', `${what}: {${inner}} selects nothing`);
    const spec = field?.spec ?? {};
    const value = formatValue(scope, spec, selected, base, `${what}: {${inner}}`);
    return typeof value === 'string' ? value : value.intent;
  });
}

function renderFormat(scope: Scope, format: string): RenderedOutput {
  const display = scope.entry.descriptor['display'];
  const formats = isObject(display ?? null) ? (display as JsonObject)['formats'] : undefined;
  const spec = isObject(formats ?? null) ? (formats as JsonObject)[format] : undefined;
  if (!isObject(spec ?? null)) throw new QkError('REQUEST_INVALID', `the descriptor has no format “${format}”`);
  const what = `${scope.entry.source.file} “${format}”`;
  const base: Path = { root: '#', steps: [] };
  const shown: Shown[] = [];
  renderFields(scope, (spec as JsonObject)['fields'] ?? [], base, shown, what);
  const metadata = scope.entry.descriptor['metadata'];
  const owner = isObject(metadata ?? null) ? ((metadata as JsonObject)['owner'] ?? (metadata as JsonObject)['contractName']) : undefined;
  const rendered: RenderedOutput = {
    intent: intentText((spec as JsonObject)['intent']),
    owner: typeof owner === 'string' ? owner : '',
    fields: shown.map(({ label, value }) => ({ label, value })),
  };
  const template = (spec as JsonObject)['interpolatedIntent'];
  if (typeof template === 'string') {
    try {
      rendered.interpolatedIntent = interpolate(scope, template, shown, base, what);
    } catch {
      // The spec's fallback: a placeholder that cannot be filled leaves the plain intent alone.
    }
  }
  return rendered;
}

export function renderCall(
  entry: RegistryDescriptor,
  format: string,
  fn: AbiFunction,
  container: Container & { to: string },
  data: string,
  provider: Erc7730DataProvider,
  index: DescriptorIndex,
  depth = 0,
): DescriptorReading {
  const decoded = decodeFunctionData({ abi: [fn], data: data as `0x${string}` });
  const fields: Record<string, DataValue> = {};
  fn.inputs.forEach((input, position) => {
    const name = input.name ?? String(position);
    fields[name] = fromAbi(input, (decoded.args ?? [])[position], `${fn.name}.${name}`);
  });
  const scope: Scope = { entry, data: { kind: 'struct', fields }, container, provider, index, depth };
  return { source: entry.source, format, rendered: renderFormat(scope, format) };
}

export interface CallInput {
  chainId: number;
  to: string;
  data: string;
  value: bigint;
  from?: string | undefined;
}

/** The reading of a contract call by the descriptor bound to its contract, or undefined when none describes it. */
export function readCall(index: DescriptorIndex, call: CallInput, provider: Erc7730DataProvider): DescriptorReading | undefined {
  if (call.data.length < 10) return undefined;
  const match = index.calldata(call.chainId, call.to, call.data.slice(0, 10));
  if (match === undefined) return undefined;
  return renderCall(match.entry, match.format, match.fn, call, call.data, provider, index);
}

export interface TypedDataInput {
  types: TypedDataTypes;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

/** EIP-712's encodeType: the primary type, then the types it references, sorted by name. */
export function encodeType(types: TypedDataTypes, primaryType: string): string {
  const found = new Set<string>();
  const visit = (type: string): void => {
    const name = type.replace(/\[\d*\]$/g, '').replace(/\[\d*\]/g, '');
    if (found.has(name) || types[name] === undefined) return;
    found.add(name);
    for (const member of types[name]) visit(member.type);
  };
  visit(primaryType);
  found.delete(primaryType);
  const line = (name: string): string => `${name}(${(types[name] ?? []).map((member) => `${member.type} ${member.name}`).join(',')})`;
  return [primaryType, ...[...found].sort()].map(line).join('');
}

const compact = (text: string): string =>
  text
    .split(/([(),])/)
    .map((part) => part.trim())
    .join('');

/** The format key describing this message: its exact type encoding, or else the one format for its primary type. */
export function typedDataFormat(descriptor: JsonObject, typedData: TypedDataInput): string | undefined {
  const display = descriptor['display'];
  const formats =
    isObject(display ?? null) && isObject((display as JsonObject)['formats'] ?? null)
      ? Object.keys((display as JsonObject)['formats'] as JsonObject)
      : [];
  const encoded = encodeType(typedData.types, typedData.primaryType);
  const exact = formats.find((format) => compact(format) === encoded);
  if (exact !== undefined) return exact;
  const byName = formats.filter((format) => format.split('(')[0]?.trim() === typedData.primaryType);
  return byName.length === 1 ? byName[0] : undefined;
}

export function renderTypedData(
  entry: RegistryDescriptor,
  format: string,
  typedData: TypedDataInput,
  provider: Erc7730DataProvider,
  index: DescriptorIndex,
  from?: string,
): DescriptorReading {
  const chainId = typedData.domain['chainId'];
  const verifyingContract = typedData.domain['verifyingContract'];
  const container: Container = {
    chainId: chainId === undefined ? 0 : Number(chainId),
    to: typeof verifyingContract === 'string' ? verifyingContract : undefined,
    from,
    value: 0n,
  };
  const data = fromTypedData(typedData.primaryType, typedData.message, typedData.types, typedData.primaryType);
  const scope: Scope = { entry, data, container, provider, index, depth: 0 };
  return { source: entry.source, format, rendered: renderFormat(scope, format) };
}

/** The reading of a typed-data message by the descriptor its domain binds, or undefined when none describes it. */
export function readTypedData(
  index: DescriptorIndex,
  typedData: TypedDataInput,
  provider: Erc7730DataProvider,
  from?: string,
): DescriptorReading | undefined {
  for (const entry of index.typedData(typedData.domain)) {
    const format = typedDataFormat(entry.descriptor, typedData);
    if (format !== undefined) return renderTypedData(entry, format, typedData, provider, index, from);
  }
  return undefined;
}
