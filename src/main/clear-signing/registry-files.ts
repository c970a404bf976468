/**
 * Reading an ERC-7730 registry from disk: a checkout's folder (or one unpacked from a .tar.gz) with `registry/<entity>/`
 * and `ercs/`. Descriptors are the `calldata-*.json` and `eip712-*.json` files at an entity's top level; `includes`
 * are read relative to the file that names them and merged in.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { QkError } from '../../shared/errors';
import { descriptorProblems, isObject, mergeIncludes } from '../../shared/clear-signing/erc7730/descriptor';
import type { JsonObject, RegistryDescriptor } from '../../shared/clear-signing/erc7730/types';

export function readJsonObject(file: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new QkError('REQUEST_INVALID', `${file}: not readable JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed as JsonObject)) throw new QkError('REQUEST_INVALID', `${file}: expected a JSON object`);
  return parsed as JsonObject;
}

/** A descriptor file with its includes merged, named by where it sits in the registry. */
export function loadDescriptor(file: string, root: string | undefined): RegistryDescriptor {
  const absolute = resolve(file);
  const merged = mergeIncludes(readJsonObject(absolute), absolute, (reference, from) => {
    const included = resolve(dirname(from), reference);
    if (!existsSync(included)) throw new QkError('REQUEST_INVALID', `${from}: includes ${reference}, which is not there`);
    return { json: readJsonObject(included), name: included };
  });
  return { source: sourceOf(absolute, root), descriptor: merged };
}

function sourceOf(file: string, root: string | undefined): RegistryDescriptor['source'] {
  const parts = (root === undefined ? file : relative(root, file)).split(sep);
  const name = parts.at(-1) ?? file;
  if (parts[0] === 'registry' && parts.length >= 3) return { entity: parts[1] ?? '', file: name };
  if (parts[0] === 'ercs') return { entity: 'ercs', file: name };
  return { entity: parts.at(-2) ?? '', file: name };
}

/** The registry folder above a file: the first ancestor holding `registry/` or `ercs/`. */
export function registryRootOf(file: string): string | undefined {
  let folder = dirname(resolve(file));
  for (;;) {
    if (existsSync(join(folder, 'registry')) || existsSync(join(folder, 'ercs'))) return folder;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

const DESCRIPTOR_FILE = /^(?:calldata|eip712)-.*\.json$/;

/** Every descriptor file of a registry folder, in a stable order. */
export function descriptorFiles(root: string): string[] {
  const files: string[] = [];
  const registry = join(root, 'registry');
  if (existsSync(registry)) {
    for (const entity of readdirSync(registry).sort()) {
      const folder = join(registry, entity);
      if (!statSync(folder).isDirectory()) continue;
      for (const name of readdirSync(folder).sort()) if (DESCRIPTOR_FILE.test(name) && !name.endsWith('.tests.json')) files.push(join(folder, name));
    }
  }
  const ercs = join(root, 'ercs');
  if (existsSync(ercs)) for (const name of readdirSync(ercs).sort()) if (DESCRIPTOR_FILE.test(name)) files.push(join(ercs, name));
  return files;
}

export interface RegistryLoad {
  descriptors: RegistryDescriptor[];
  /** Descriptors left out, each with why. */
  refused: { file: string; problems: string[] }[];
}

/** Every descriptor of a registry folder that passes the checks, and the ones that do not with their problems. */
export function loadRegistry(root: string): RegistryLoad {
  const descriptors: RegistryDescriptor[] = [];
  const refused: RegistryLoad['refused'] = [];
  for (const file of descriptorFiles(root)) {
    const name = relative(root, file);
    try {
      const entry = loadDescriptor(file, root);
      const problems = descriptorProblems(entry.descriptor);
      if (problems.length > 0) refused.push({ file: name, problems });
      else descriptors.push(entry);
    } catch (error) {
      refused.push({ file: name, problems: [(error as Error).message] });
    }
  }
  return { descriptors, refused };
}
