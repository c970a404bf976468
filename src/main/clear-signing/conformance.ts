/**
 * The registry's conformance runner: one `*.tests.json` fixture (the testsv2 format) read with its descriptor, each
 * case rendered by QuorumKey's formatter and compared with the case's `expected`, written as the registry's
 * `results.json`. The fixture's `dataProvider` stands in for every lookup, so nothing is fetched.
 */
import { dirname, resolve } from 'node:path';
import { getAddress, parseTransaction, type Hex } from 'viem';
import { QkError } from '../../shared/errors';
import { isObject } from '../../shared/clear-signing/erc7730/descriptor';
import { DescriptorIndex, functionsOf } from '../../shared/clear-signing/erc7730/registry';
import { renderCall, renderTypedData, typedDataFormat, type TypedDataInput } from '../../shared/clear-signing/erc7730/render';
import type { Erc7730DataProvider, Json, JsonObject, RegistryDescriptor, RenderedOutput } from '../../shared/clear-signing/erc7730/types';
import { loadDescriptor, loadRegistry, readJsonObject, registryRootOf } from './registry-files';

/** The harness name the registry's result format fixes for every runner. */
export const RUNNER = '@ethereum-sourcify/clear-signing-test-runner';
/** This formatter, versioned apart from the app: bump it when a rendering changes. */
export const IMPLEMENTATION = 'quorumkey-erc7730@1.0.0';

export type CaseStatus = 'pass' | 'fail' | 'error' | 'skipped';

export interface CaseResult {
  description: string;
  status: CaseStatus;
  rendered?: RenderedOutput;
  message?: string;
}

export interface FixtureResults {
  runner: string;
  implementation: string;
  cases: CaseResult[];
}

function stringMap(value: Json | undefined, what: string): Map<string, string> {
  const map = new Map<string, string>();
  if (value === undefined) return map;
  if (!isObject(value)) throw new QkError('REQUEST_INVALID', `${what} must be an object`);
  for (const [key, item] of Object.entries(value)) if (typeof item === 'string') map.set(key.toLowerCase(), item);
  return map;
}

/** The fixture's `dataProvider` as the formatter's lookups; the descriptor's own token metadata is the formatter's. */
export function fixtureDataProvider(dataProvider: Json | undefined): Erc7730DataProvider {
  const block = isObject(dataProvider ?? null) ? (dataProvider as JsonObject) : {};
  const tokens = new Map<string, { symbol: string; decimals: number; name?: string }>();
  if (isObject(block['tokens'] ?? null)) {
    for (const [address, token] of Object.entries(block['tokens'] as JsonObject)) {
      if (isObject(token) && typeof token['symbol'] === 'string' && typeof token['decimals'] === 'number') {
        tokens.set(address.toLowerCase(), {
          symbol: token['symbol'],
          decimals: token['decimals'],
          ...(typeof token['name'] === 'string' ? { name: token['name'] } : {}),
        });
      }
    }
  }
  const local = stringMap(block['addressNames'], 'dataProvider.addressNames');
  const ens = stringMap(block['ensNames'], 'dataProvider.ensNames');
  const collections = stringMap(block['nftCollectionNames'], 'dataProvider.nftCollectionNames');
  const blocks = new Map<string, number>();
  if (isObject(block['blockTimestamps'] ?? null)) {
    for (const [height, seconds] of Object.entries(block['blockTimestamps'] as JsonObject))
      if (typeof seconds === 'number') blocks.set(height, seconds);
  }
  return {
    token: (_chainId, address) => tokens.get(address.toLowerCase()),
    addressName: (address, sources) => {
      const key = address.toLowerCase();
      if (sources === undefined) return local.get(key) ?? ens.get(key);
      for (const source of sources) {
        const name = source === 'local' ? local.get(key) : source === 'ens' ? ens.get(key) : undefined;
        if (name !== undefined) return name;
      }
      return undefined;
    },
    nftCollectionName: (_chainId, address) => collections.get(address.toLowerCase()),
    blockTimestamp: (height) => blocks.get(height.toString()),
  };
}

function bound(entry: RegistryDescriptor, kind: 'contract' | 'eip712', chainId: number, address: string | undefined): boolean {
  const context = entry.descriptor['context'];
  const binding = isObject(context ?? null) ? (context as JsonObject)[kind] : undefined;
  const deployments = isObject(binding ?? null) ? (binding as JsonObject)['deployments'] : undefined;
  if (!Array.isArray(deployments) || deployments.length === 0) return true;
  return deployments.some(
    (deployment) =>
      isObject(deployment) &&
      deployment['chainId'] === chainId &&
      typeof deployment['address'] === 'string' &&
      deployment['address'].toLowerCase() === address?.toLowerCase(),
  );
}

function renderCalldataCase(entry: RegistryDescriptor, test: JsonObject, provider: Erc7730DataProvider, index: DescriptorIndex): RenderedOutput {
  const rawTx = test['rawTx'];
  if (typeof rawTx !== 'string' || !/^0x[0-9a-fA-F]+$/.test(rawTx)) throw new QkError('REQUEST_INVALID', 'rawTx must be 0x-hex');
  const transaction = parseTransaction(rawTx as Hex);
  if (transaction.to === undefined || transaction.to === null)
    throw new QkError('REQUEST_INVALID', 'rawTx deploys a contract: there is no call to read');
  const chainId = transaction.chainId ?? 1;
  const data = transaction.data ?? '0x';
  if (!bound(entry, 'contract', chainId, transaction.to)) {
    throw new QkError(
      'REQUEST_INVALID',
      `the transaction calls ${transaction.to} on chain ${chainId}, which is not one of the descriptor's deployments`,
    );
  }
  const found = functionsOf(entry.descriptor).get(data.slice(0, 10).toLowerCase());
  if (found === undefined) throw new QkError('REQUEST_INVALID', `the descriptor has no format for the selector ${data.slice(0, 10)}`);
  const from = typeof test['from'] === 'string' ? getAddress(test['from']) : undefined;
  return renderCall(entry, found.format, found.fn, { chainId, to: transaction.to, from, value: transaction.value ?? 0n }, data, provider, index)
    .rendered;
}

function renderTypedDataCase(entry: RegistryDescriptor, test: JsonObject, provider: Erc7730DataProvider, index: DescriptorIndex): RenderedOutput {
  const data = test['data'];
  if (!isObject(data ?? null)) throw new QkError('REQUEST_INVALID', 'data must be a typed-data object');
  const typedData = data as unknown as TypedDataInput;
  if (
    !isObject(typedData.types as unknown as Json) ||
    typeof typedData.primaryType !== 'string' ||
    !isObject(typedData.domain as Json) ||
    !isObject(typedData.message as Json)
  ) {
    throw new QkError('REQUEST_INVALID', 'data needs types, primaryType, domain and message');
  }
  const chainId = Number(typedData.domain['chainId']);
  const verifyingContract = typeof typedData.domain['verifyingContract'] === 'string' ? typedData.domain['verifyingContract'] : undefined;
  if (!bound(entry, 'eip712', chainId, verifyingContract)) {
    throw new QkError(
      'REQUEST_INVALID',
      `the message's domain (chain ${chainId}, ${verifyingContract ?? 'no verifying contract'}) is not one of the descriptor's deployments`,
    );
  }
  const format = typedDataFormat(entry.descriptor, typedData);
  if (format === undefined) throw new QkError('REQUEST_INVALID', `the descriptor has no format for the primary type ${typedData.primaryType}`);
  return renderTypedData(entry, format, typedData, provider, index).rendered;
}

/** Whether the rendering says what `expected` says; an interpolated intent is compared only where the case states one. */
export function matchesExpected(rendered: RenderedOutput, expected: Json): boolean {
  if (!isObject(expected)) return false;
  if (expected['intent'] !== rendered.intent) return false;
  if (expected['owner'] !== undefined && expected['owner'] !== rendered.owner) return false;
  if (expected['interpolatedIntent'] !== undefined && expected['interpolatedIntent'] !== rendered.interpolatedIntent) return false;
  const fields = expected['fields'];
  if (!Array.isArray(fields) || fields.length !== rendered.fields.length) return false;
  return fields.every((field, position) => {
    const ours = rendered.fields[position];
    if (!isObject(field) || ours === undefined || field['label'] !== ours.label) return false;
    const value = field['value'];
    return typeof ours.value === 'string' ? value === ours.value : matchesExpected(ours.value, value ?? null);
  });
}

/** Descriptors of a registry folder, read once per process for the fixtures run in it. */
const registries = new Map<string, DescriptorIndex>();

function indexAround(entry: RegistryDescriptor, descriptorFile: string): DescriptorIndex {
  const root = registryRootOf(descriptorFile);
  let others: readonly RegistryDescriptor[] = [];
  if (root !== undefined) {
    let index = registries.get(root);
    if (index === undefined) {
      index = new DescriptorIndex(loadRegistry(root).descriptors);
      registries.set(root, index);
    }
    others = index.entries;
  }
  // The fixture's own descriptor is looked up first, so an inner call to the same contract reads it.
  return new DescriptorIndex([entry, ...others]);
}

export function runFixture(fixtureFile: string): FixtureResults {
  const fixture = readJsonObject(fixtureFile);
  const descriptorName = fixture['descriptor'];
  const tests = fixture['tests'];
  if (typeof descriptorName !== 'string' || descriptorName === '')
    throw new QkError('REQUEST_INVALID', `${fixtureFile}: “descriptor” must name the descriptor file`);
  if (!Array.isArray(tests) || tests.length === 0) throw new QkError('REQUEST_INVALID', `${fixtureFile}: “tests” must be a non-empty array`);
  const descriptorFile = resolve(dirname(fixtureFile), descriptorName);
  const provider = fixtureDataProvider(fixture['dataProvider']);
  let entry: RegistryDescriptor | undefined;
  let loadError: string | undefined;
  try {
    entry = loadDescriptor(descriptorFile, registryRootOf(descriptorFile));
  } catch (error) {
    loadError = (error as Error).message;
  }
  const index = entry === undefined ? undefined : indexAround(entry, descriptorFile);
  const cases = tests.map((test, position): CaseResult => {
    const description = isObject(test) && typeof test['description'] === 'string' ? test['description'] : `tests[${position}]`;
    if (entry === undefined || index === undefined)
      return { description, status: 'error', message: `the descriptor could not be read: ${loadError ?? 'unknown'}` };
    if (!isObject(test)) return { description, status: 'error', message: 'a test case must be an object' };
    try {
      const rendered =
        test['rawTx'] !== undefined ? renderCalldataCase(entry, test, provider, index) : renderTypedDataCase(entry, test, provider, index);
      return matchesExpected(rendered, test['expected'] ?? null)
        ? { description, status: 'pass', rendered }
        : { description, status: 'fail', rendered };
    } catch (error) {
      return { description, status: 'error', message: (error as Error).message.split('\n')[0] ?? 'failed' };
    }
  });
  return { runner: RUNNER, implementation: IMPLEMENTATION, cases };
}
