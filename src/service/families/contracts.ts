/**
 * Smart contract interfaces (docs/service.md#contracts-and-tvc): an Ethereum ABI or a Solana (Anchor) IDL uploaded as
 * JSON text for one contract or program address, so that policies can name decoded calls.
 */
import { base58 } from '@scure/base';
import type { Abi } from 'viem';
import { checkSolanaIdl, type SolanaIdl } from '../../shared/chains/solana';
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import { toTimestamp } from '../../shared/api/timestamps';
import type { Repositories } from '../store';
import type { SmartContractInterfaceRecord, SmartContractInterfaceType } from '../store/contracts';

/** Upload limit (docs/service.md#contracts-and-tvc: ≤ 400 kB). */
export const MAX_INTERFACE_BYTES = 400 * 1024;

const ETHEREUM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ABI_ENTRY_TYPES = new Set(['function', 'constructor', 'receive', 'fallback', 'event', 'error']);
const typeByIntent: Record<'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' | 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', SmartContractInterfaceType> = {
  SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM: 'ETHEREUM',
  SMART_CONTRACT_INTERFACE_TYPE_SOLANA: 'SOLANA',
};

function invalid(field: string, problem: string): QkError {
  return new QkError('REQUEST_INVALID', `parameters.${field} ${problem}`, { issues: [{ path: `parameters.${field}`, message: problem }] });
}

function checkAddress(type: SmartContractInterfaceType, address: string): void {
  if (type === 'ETHEREUM') {
    if (!ETHEREUM_ADDRESS.test(address))
      throw invalid('smartContractAddress', `must be a 0x-prefixed 20-byte hex Ethereum address, got "${address}"`);
    return;
  }
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    throw invalid('smartContractAddress', `must be a base58 Solana program id, got "${address}"`);
  }
  if (bytes.length !== 32) throw invalid('smartContractAddress', `must decode to 32 bytes (a Solana program id), got ${bytes.length}`);
}

/** An Ethereum ABI: a JSON array of entries, each with a known `type` (default "function") and a `name` where required. */
function checkAbi(abi: unknown): void {
  if (!Array.isArray(abi) || abi.length === 0) throw invalid('smartContractInterface', 'must be a non-empty JSON array (an Ethereum ABI)');
  abi.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw invalid('smartContractInterface', `ABI entry ${index} must be an object`);
    }
    const { type = 'function', name, inputs } = entry as Record<string, unknown>;
    if (typeof type !== 'string' || !ABI_ENTRY_TYPES.has(type)) {
      throw invalid(
        'smartContractInterface',
        `ABI entry ${index} has type ${JSON.stringify(type)}; expected one of ${[...ABI_ENTRY_TYPES].join(', ')}`,
      );
    }
    if (['function', 'event', 'error'].includes(type) && (typeof name !== 'string' || name === '')) {
      throw invalid('smartContractInterface', `ABI entry ${index} (${type}) must have a non-empty "name"`);
    }
    if (inputs !== undefined && !Array.isArray(inputs)) throw invalid('smartContractInterface', `ABI entry ${index} "inputs" must be an array`);
  });
}

function checkInterface(type: SmartContractInterfaceType, address: string, text: string): void {
  if (new TextEncoder().encode(text).length > MAX_INTERFACE_BYTES) {
    throw invalid('smartContractInterface', `is larger than ${MAX_INTERFACE_BYTES} bytes`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalid('smartContractInterface', `is not JSON: ${(error as Error).message}`);
  }
  if (type === 'ETHEREUM') checkAbi(parsed);
  else {
    try {
      checkSolanaIdl(address, parsed);
    } catch (error) {
      throw invalid('smartContractInterface', `is not a readable Anchor IDL (${(error as Error).message})`);
    }
  }
}

function interfaceView(record: SmartContractInterfaceRecord) {
  return {
    organizationId: record.organizationId,
    smartContractInterfaceId: record.id,
    smartContractAddress: record.address,
    smartContractInterface: record.interface,
    type: record.type,
    label: record.label,
    notes: record.notes,
    createdAt: toTimestamp(record.createdAt),
    updatedAt: toTimestamp(record.updatedAt),
  };
}

interface CreateParams {
  smartContractAddress: string;
  smartContractInterface: string;
  type: keyof typeof typeByIntent;
  label: string;
}

function checkCreate(params: CreateParams): SmartContractInterfaceType {
  const type = typeByIntent[params.type];
  checkAddress(type, params.smartContractAddress);
  checkInterface(type, params.smartContractAddress, params.smartContractInterface);
  if (params.label.trim() === '') throw invalid('label', 'must not be empty');
  return type;
}

/**
 * The organization's uploaded Ethereum ABIs by contract address (compared case-insensitively: a checksummed and a
 * lowercase address are the same contract). The newest upload for an address wins.
 */
export function ethereumAbiLookup(store: Repositories, organizationId: string): (to: string) => Abi | undefined {
  const byAddress = new Map<string, Abi>();
  for (const record of store.smartContractInterfaces.listByOrganization(organizationId)) {
    if (record.type === 'ETHEREUM') byAddress.set(record.address.toLowerCase(), JSON.parse(record.interface) as Abi);
  }
  return (to) => byAddress.get(to.toLowerCase());
}

/** The organization's uploaded Solana IDLs, each with its program id, for decoding instructions. */
export function solanaIdls(store: Repositories, organizationId: string): SolanaIdl[] {
  return store.smartContractInterfaces
    .listByOrganization(organizationId)
    .filter((record) => record.type === 'SOLANA')
    .map((record) => ({ address: record.address, idl: JSON.parse(record.interface) as unknown }));
}

export const contractsFamily: Family = {
  queries: {
    list_smart_contract_interfaces(ctx) {
      return { smartContractInterfaces: ctx.store.smartContractInterfaces.listByOrganization(ctx.organizationId).map(interfaceView) };
    },
    get_smart_contract_interface(ctx, request) {
      const record = ctx.store.smartContractInterfaces.get(ctx.organizationId, request.smartContractInterfaceId);
      if (record === undefined) {
        throw new QkError('NOT_FOUND', `no smart contract interface ${request.smartContractInterfaceId} in organization ${ctx.organizationId}`);
      }
      return { smartContractInterface: interfaceView(record) };
    },
  },
  activities: {
    create_smart_contract_interface: {
      validate: (_store, _organizationId, params) => void checkCreate(params),
      execute(ctx, params) {
        const id = ctx.newId();
        ctx.store.smartContractInterfaces.insert({
          id,
          organizationId: ctx.organizationId,
          address: params.smartContractAddress,
          interface: params.smartContractInterface,
          type: checkCreate(params),
          label: params.label,
          notes: params.notes ?? '',
          now: ctx.now,
        });
        return { smartContractInterfaceId: id };
      },
    },
    delete_smart_contract_interface: {
      validate(store, organizationId, params) {
        if (store.smartContractInterfaces.get(organizationId, params.smartContractInterfaceId) === undefined) {
          throw new QkError('NOT_FOUND', `no smart contract interface ${params.smartContractInterfaceId} in organization ${organizationId}`);
        }
      },
      execute(ctx, params) {
        if (ctx.store.smartContractInterfaces.get(ctx.organizationId, params.smartContractInterfaceId) === undefined) {
          throw new QkError('NOT_FOUND', `no smart contract interface ${params.smartContractInterfaceId} in organization ${ctx.organizationId}`);
        }
        ctx.store.smartContractInterfaces.delete(params.smartContractInterfaceId);
        return { smartContractInterfaceId: params.smartContractInterfaceId };
      },
    },
  },
};
