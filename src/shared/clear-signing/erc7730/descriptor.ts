/**
 * Descriptor files: merging `includes` (the including file wins; `fields` merge by path, as the spec says) and the
 * checks a descriptor must pass before the app ships it: a binding context, well-formed format keys with unique
 * selectors, and fields whose paths parse.
 */
import { parseAbiItem, toFunctionSelector, type AbiFunction } from 'viem';
import { QkError } from '../../errors';
import { parsePath } from './paths';
import type { Json, JsonObject } from './types';

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldKey(field: Json): string | undefined {
  return isObject(field) && typeof field['path'] === 'string' ? field['path'] : undefined;
}

function mergeFields(included: Json[], including: Json[]): Json[] {
  const merged = included.map((field) => {
    const key = fieldKey(field);
    const override = key === undefined ? undefined : including.find((candidate) => fieldKey(candidate) === key);
    return override === undefined ? field : mergeJson(field, override);
  });
  const includedKeys = new Set(included.map(fieldKey).filter((key) => key !== undefined));
  return [
    ...merged,
    ...including.filter((field) => {
      const key = fieldKey(field);
      return key === undefined || !includedKeys.has(key);
    }),
  ];
}

function mergeJson(included: Json, including: Json, key?: string): Json {
  if (key === 'fields' && Array.isArray(included) && Array.isArray(including)) return mergeFields(included, including);
  if (!isObject(included) || !isObject(including)) return including;
  const merged: JsonObject = { ...included };
  for (const [name, value] of Object.entries(including)) {
    const base = included[name];
    merged[name] = base === undefined ? value : mergeJson(base, value, name);
  }
  return merged;
}

/**
 * A descriptor with its `includes` chain merged. `load` reads an included file named relative to the one including it
 * and answers its JSON and the name later includes are relative to.
 */
export function mergeIncludes(
  descriptor: JsonObject,
  name: string,
  load: (reference: string, from: string) => { json: JsonObject; name: string },
  seen: readonly string[] = [],
): JsonObject {
  const reference = descriptor['includes'];
  if (reference === undefined) return descriptor;
  if (typeof reference !== 'string') throw new QkError('REQUEST_INVALID', `${name}: “includes” must name one file`);
  const included = load(reference, name);
  if (seen.includes(included.name)) throw new QkError('REQUEST_INVALID', `${name}: includes ${included.name} in a cycle`);
  const base = mergeIncludes(included.json, included.name, load, [...seen, name]);
  const { includes: _including, ...rest } = descriptor;
  const merged = mergeJson(base, rest);
  if (!isObject(merged)) throw new QkError('REQUEST_INVALID', `${name}: the merged descriptor is not an object`);
  return merged;
}

/** A `display.formats` key as viem's ABI item; the spec allows `type name` pairs, with or without spaces after commas. */
export function functionOfFormat(key: string): AbiFunction {
  const item = parseAbiItem(`function ${key}`) as unknown;
  if (typeof item !== 'object' || item === null || (item as { type?: unknown }).type !== 'function') {
    throw new QkError('REQUEST_INVALID', `the format key “${key}” is not a function signature`);
  }
  return item as AbiFunction;
}

function checkFields(fields: Json, where: string, problems: string[]): void {
  if (!Array.isArray(fields)) {
    problems.push(`${where}: “fields” must be an array`);
    return;
  }
  fields.forEach((field, index) => {
    const at = `${where}.fields[${index}]`;
    if (!isObject(field)) {
      problems.push(`${at}: a field must be an object`);
      return;
    }
    for (const key of ['path'] as const) {
      const path = field[key];
      if (path === undefined) continue;
      if (typeof path !== 'string') problems.push(`${at}: “${key}” must be a string`);
      else {
        try {
          parsePath(path);
        } catch (error) {
          problems.push(`${at}: ${(error as Error).message}`);
        }
      }
    }
    if (field['fields'] !== undefined) checkFields(field['fields'], at, problems);
    else if (field['path'] === undefined && field['value'] === undefined && field['$ref'] === undefined)
      problems.push(`${at}: a field needs a path, a value or a $ref`);
  });
}

/** What is wrong with a merged descriptor, in words; empty when it can be shipped. */
export function descriptorProblems(descriptor: JsonObject): string[] {
  const problems: string[] = [];
  const context = descriptor['context'];
  const display = descriptor['display'];
  if (!isObject(context)) problems.push('context: missing');
  if (!isObject(display) || !isObject(display['formats'])) {
    problems.push('display.formats: missing');
    return problems;
  }
  const isCalldata = isObject(context) && isObject(context['contract']);
  if (isObject(context) && !isCalldata && !isObject(context['eip712'])) problems.push('context: binds neither a contract nor EIP-712 messages');
  const selectors = new Map<string, string>();
  for (const [key, format] of Object.entries(display['formats'])) {
    if (!isObject(format)) {
      problems.push(`display.formats["${key}"]: must be an object`);
      continue;
    }
    if (isCalldata) {
      try {
        const selector = toFunctionSelector(functionOfFormat(key));
        const other = selectors.get(selector);
        if (other !== undefined) problems.push(`display.formats["${key}"]: same selector ${selector} as “${other}”`);
        selectors.set(selector, key);
      } catch (error) {
        problems.push(`display.formats["${key}"]: ${(error as Error).message.split('\n')[0] ?? 'not a function signature'}`);
      }
    }
    if (format['fields'] !== undefined) checkFields(format['fields'], `display.formats["${key}"]`, problems);
  }
  return problems;
}
