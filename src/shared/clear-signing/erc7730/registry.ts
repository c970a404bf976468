/**
 * Finding the descriptor for a call or a message. Calls match by chain id and contract address (a deployment) and by
 * selector; messages by their domain (name, version, chain id and verifying contract, as the descriptor binds them) and
 * by the primary type's encoding. Descriptors without a deployment of their own (the registry's generic ERC files) are
 * read only for calls nested in another call, by selector, when no bound descriptor matches.
 * Factory bindings (contracts a factory deployed) cannot be checked offline: the transaction's logs are not known
 * when signing, so such descriptors match only their own deployments.
 */
import { toFunctionSelector, type AbiFunction } from 'viem';
import { functionOfFormat, isObject } from './descriptor';
import type { Json, JsonObject, RegistryDescriptor } from './types';

export interface CalldataMatch {
  entry: RegistryDescriptor;
  format: string;
  fn: AbiFunction;
}

interface Deployment {
  chainId: number;
  address: string;
}

function deploymentsOf(binding: Json | undefined): Deployment[] {
  if (!isObject(binding) || !Array.isArray(binding['deployments'])) return [];
  return binding['deployments'].flatMap((deployment) =>
    isObject(deployment) && typeof deployment['chainId'] === 'number' && typeof deployment['address'] === 'string'
      ? [{ chainId: deployment['chainId'], address: deployment['address'].toLowerCase() }]
      : [],
  );
}

function formatsOf(descriptor: JsonObject): JsonObject {
  const display = descriptor['display'];
  return isObject(display) && isObject(display['formats']) ? display['formats'] : {};
}

const key = (chainId: number, address: string): string => `${chainId}:${address.toLowerCase()}`;

/** The functions of one descriptor, keyed by selector, parsed on first use. */
const selectorCache = new WeakMap<JsonObject, Map<string, { format: string; fn: AbiFunction }>>();

export function functionsOf(descriptor: JsonObject): Map<string, { format: string; fn: AbiFunction }> {
  let functions = selectorCache.get(descriptor);
  if (functions === undefined) {
    functions = new Map();
    for (const format of Object.keys(formatsOf(descriptor))) {
      try {
        const fn = functionOfFormat(format);
        functions.set(toFunctionSelector(fn), { format, fn });
      } catch {
        // A key that is not a signature was refused when the data was built; a fixture's own descriptor may still hold one.
      }
    }
    selectorCache.set(descriptor, functions);
  }
  return functions;
}

/** Domain values as compared: addresses and names case-insensitively, numbers whatever their spelling. */
function comparable(value: unknown): string {
  if (typeof value === 'string') return /^\d+$/.test(value) ? value : value.toLowerCase();
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

function domainMatches(binding: JsonObject, domain: Record<string, unknown>): boolean {
  const wanted = binding['domain'];
  if (isObject(wanted)) {
    for (const [name, value] of Object.entries(wanted)) {
      const actual = domain[name];
      if (comparable(value) !== comparable(actual)) return false;
    }
  }
  const deployments = deploymentsOf(binding);
  if (deployments.length === 0) return true;
  const chainId = Number(domain['chainId']);
  const contract = typeof domain['verifyingContract'] === 'string' ? domain['verifyingContract'].toLowerCase() : undefined;
  return deployments.some((deployment) => deployment.chainId === chainId && deployment.address === contract);
}

export class DescriptorIndex {
  private readonly byDeployment = new Map<string, RegistryDescriptor[]>();
  private readonly unbound: RegistryDescriptor[] = [];
  private readonly messages: RegistryDescriptor[] = [];

  constructor(readonly entries: readonly RegistryDescriptor[]) {
    for (const entry of entries) {
      const context = entry.descriptor['context'];
      if (!isObject(context)) continue;
      if (isObject(context['eip712'])) {
        // A generic message format (the registry's ERC files) binds no domain: it is read only when included.
        const binding = context['eip712'];
        if (isObject(binding['domain'] ?? null) || deploymentsOf(binding).length > 0) this.messages.push(entry);
        continue;
      }
      const deployments = deploymentsOf(context['contract']);
      if (deployments.length === 0) this.unbound.push(entry);
      for (const deployment of deployments) {
        const at = key(deployment.chainId, deployment.address);
        this.byDeployment.set(at, [...(this.byDeployment.get(at) ?? []), entry]);
      }
    }
  }

  /** The descriptor bound to this contract on this chain that describes this selector. */
  calldata(chainId: number, address: string, selector: string, nested = false): CalldataMatch | undefined {
    const wanted = selector.toLowerCase();
    const candidates = [...(this.byDeployment.get(key(chainId, address)) ?? []), ...(nested ? this.unbound : [])];
    for (const entry of candidates) {
      const found = functionsOf(entry.descriptor).get(wanted);
      if (found !== undefined) return { entry, ...found };
    }
    return undefined;
  }

  /** The descriptors whose EIP-712 binding this domain satisfies. */
  typedData(domain: Record<string, unknown>): RegistryDescriptor[] {
    return this.messages.filter((entry) => {
      const context = entry.descriptor['context'];
      return isObject(context) && isObject(context['eip712']) && domainMatches(context['eip712'], domain);
    });
  }
}
