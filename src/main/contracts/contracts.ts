/**
 * The organization's smart contract interfaces (an Ethereum ABI or a Solana Anchor IDL per address): listed, checked
 * before upload, uploaded and deleted. Checking reads the text the way decoding will: an ABI entry by entry through
 * viem's ABI parser, an IDL through the shared Solana decoder's own IDL reader, so a definition that would later fail
 * to decode a call is refused with the entry that is wrong.
 */
import { isAddress as isSolanaAddress } from '@solana/kit';
import { isAddress, parseAbiItem } from 'viem';
import { formatAbiItem } from 'viem/utils';
import { timestampMs, type SmartContractInterface } from '../../shared/api';
import { checkSolanaIdl } from '../../shared/chains/solana';
import { chainIdOfNotes, notesWithChainId, notesWithoutChainId } from '../../shared/clear-signing/contract-networks';
import { ethereumNetwork } from '../../shared/clear-signing/networks';
import { QkError } from '../../shared/errors';
import type { ContractInterfaceView } from '../../shared/ipc/signing';
import type { ActivityOutcome, ApiClient } from '../client/api-client';
import { contractInterfaceTypeOf } from '../signing/organization';

export type ContractInterfaceType = ContractInterfaceView['type'];

export interface ContractInterfaceInput {
  type: ContractInterfaceType;
  address: string;
  label: string;
  notes?: string | undefined;
  definition: string;
  /** Required for an Ethereum interface: the chain its contract is on. */
  chainId?: number | undefined;
}

function invalid(field: string, message: string): QkError {
  return new QkError('REQUEST_INVALID', `${field}: ${message}`, { field });
}

/** Checks an upload as it will be read; answers a one-line summary of what it defines. */
export function checkContractInterface({ type, address, definition }: Pick<ContractInterfaceInput, 'type' | 'address' | 'definition'>): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(definition);
  } catch (error) {
    throw invalid('definition', `is not JSON: ${(error as Error).message}`);
  }
  if (type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM') {
    if (!isAddress(address, { strict: false }))
      throw invalid('address', `${JSON.stringify(address.slice(0, 80))} is not an Ethereum address (0x and 40 hex digits)`);
    return checkAbi(parsed);
  }
  if (!isSolanaAddress(address)) throw invalid('address', `${JSON.stringify(address.slice(0, 80))} is not a Solana program id (base58, 32 bytes)`);
  return checkIdl(address, parsed);
}

const ABI_KEYWORD: Record<string, string> = { function: 'function', event: 'event', error: 'error' };

function checkAbi(abi: unknown): string {
  if (!Array.isArray(abi) || abi.length === 0) throw invalid('definition', 'an Ethereum ABI is a non-empty JSON array of entries');
  const counts = new Map<string, number>();
  abi.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalid('definition', `ABI entry ${index} is not an object`);
    const type = (entry as { type?: unknown }).type ?? 'function';
    if (typeof type !== 'string' || !['function', 'event', 'error', 'constructor', 'fallback', 'receive'].includes(type)) {
      throw invalid(
        'definition',
        `ABI entry ${index} has type ${JSON.stringify(type)}; expected function, event, error, constructor, fallback or receive`,
      );
    }
    counts.set(type, (counts.get(type) ?? 0) + 1);
    const keyword = ABI_KEYWORD[type];
    if (keyword === undefined) return;
    const name = (entry as { name?: unknown }).name;
    if (typeof name !== 'string' || name === '') throw invalid('definition', `ABI entry ${index} (${type}) has no name`);
    try {
      parseAbiItem(`${keyword} ${formatAbiItem({ inputs: [], ...entry, type } as unknown as Parameters<typeof formatAbiItem>[0])}`);
    } catch (error) {
      throw invalid('definition', `ABI entry ${index} (${type} ${name}) is not valid: ${shortMessage(error)}`);
    }
  });
  const functions = counts.get('function') ?? 0;
  if (functions === 0) throw invalid('definition', 'the ABI defines no function, so no call to this contract could be decoded with it');
  return [...counts].map(([type, count]) => `${count} ${type}${count === 1 ? '' : type === 'error' ? 's' : 's'}`).join(', ');
}

function checkIdl(address: string, idl: unknown): string {
  try {
    checkSolanaIdl(address, idl);
  } catch (error) {
    throw invalid('definition', shortMessage(error));
  }
  const { instructions, metadata, name } = idl as { instructions: unknown[]; metadata?: { name?: unknown }; name?: unknown };
  if (instructions.length === 0) throw invalid('definition', 'the IDL defines no instruction');
  const program = typeof metadata?.name === 'string' ? metadata.name : typeof name === 'string' ? name : '';
  return `${instructions.length} instruction${instructions.length === 1 ? '' : 's'}${program === '' ? '' : ` (${program})`}`;
}

function shortMessage(error: unknown): string {
  const message = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error);
  return message.split('\n')[0]!.slice(0, 300);
}

export class ContractInterfaces {
  constructor(private readonly client: ApiClient) {}

  async list(): Promise<ContractInterfaceView[]> {
    const { smartContractInterfaces } = await this.client.query('list_smart_contract_interfaces', {});
    return smartContractInterfaces.map(contractInterfaceView);
  }

  /** Checks, then uploads; an upload that needs votes comes back as `consensus-needed`. */
  async create(input: ContractInterfaceInput): Promise<ActivityOutcome<{ smartContractInterfaceId: string }>> {
    checkContractInterface(input);
    if (input.label.trim() === '') throw invalid('label', 'give the contract a label people will recognize');
    const ethereum = input.type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM';
    if (ethereum && input.chainId === undefined) {
      throw invalid('chainId', 'name the network this contract is on: the same address on another chain may be another contract');
    }
    if (!ethereum && input.chainId !== undefined) throw invalid('chainId', 'a Solana program is named by its address alone; leave the chain id out');
    const notes = ethereum ? notesWithChainId(input.chainId!, input.notes) : (input.notes ?? '').trim();
    return this.client.submit('create_smart_contract_interface', {
      smartContractAddress: input.address,
      smartContractInterface: input.definition,
      type: input.type,
      label: input.label.trim(),
      ...(notes === '' ? {} : { notes }),
    });
  }

  async delete(smartContractInterfaceId: string): Promise<ActivityOutcome<{ smartContractInterfaceId: string }>> {
    return this.client.submit('delete_smart_contract_interface', { smartContractInterfaceId });
  }
}

function networkOfInterface(type: ContractInterfaceType, notes: string): string {
  if (type === 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA') return 'Solana';
  const chainId = chainIdOfNotes(notes);
  return chainId === undefined ? 'every chain (no network stated)' : `${ethereumNetwork(chainId).name} (chain id ${chainId})`;
}

export function contractInterfaceView(contract: SmartContractInterface): ContractInterfaceView {
  const type = contractInterfaceTypeOf(contract);
  let summary: string;
  try {
    summary = checkContractInterface({ type, address: contract.smartContractAddress, definition: contract.smartContractInterface });
  } catch (error) {
    summary = `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
  return {
    smartContractInterfaceId: contract.smartContractInterfaceId,
    type,
    address: contract.smartContractAddress,
    label: contract.label,
    notes: notesWithoutChainId(contract.notes),
    network: networkOfInterface(type, contract.notes),
    summary,
    definition: contract.smartContractInterface,
    createdAtMs: timestampMs(contract.createdAt),
  };
}
