/**
 * The ERC-7730 descriptors the app ships (erc7730-registry.generated.ts, written by `clear-signing refresh`), parsed
 * once on first use into the index clear signing looks calls and messages up in.
 */
import { isObject } from '../../shared/clear-signing/erc7730/descriptor';
import { DescriptorIndex } from '../../shared/clear-signing/erc7730/registry';
import type { Json } from '../../shared/clear-signing/erc7730/types';
import { QkError } from '../../shared/errors';
import type { ShippedRegistry } from './refresh';

export interface ShippedDescriptors {
  index: DescriptorIndex;
  registryCommit: string;
}

let loaded: Promise<ShippedDescriptors> | undefined;

export function parseShippedRegistry(text: string): ShippedDescriptors {
  const parsed = JSON.parse(text) as Json;
  if (!isObject(parsed) || typeof parsed['registryCommit'] !== 'string' || !Array.isArray(parsed['descriptors'])) {
    throw new QkError('INTERNAL', 'the shipped ERC-7730 registry data is malformed: run clear-signing refresh again');
  }
  const shipped = parsed as unknown as ShippedRegistry;
  const entries = shipped.descriptors.map(({ entity, file, descriptor }) => ({ source: { entity, file }, descriptor }));
  return { index: new DescriptorIndex(entries), registryCommit: shipped.registryCommit };
}

/** The shipped descriptors; the module holding them is loaded only when a reading first needs it. */
export function shippedDescriptors(): Promise<ShippedDescriptors> {
  loaded ??= import('./erc7730-registry.generated').then(({ SHIPPED_REGISTRY_JSON }) => parseShippedRegistry(SHIPPED_REGISTRY_JSON));
  return loaded;
}
