/**
 * The organization as main reads it from the service: its wallets and accounts, private keys, uploaded contract
 * interfaces, policies, users and tags, root quorum, and who is looking. Each profile keeps one read
 * (OrganizationReads, read-model.ts) that every reading shares until something changes.
 */
import type { Activity, Policy, PrivateKey, SmartContractInterface, Tag, User, Wallet, WalletAccount } from '../../shared/api';
import type { ContractInterface } from '../../shared/clear-signing';
import { chainIdOfNotes } from '../../shared/clear-signing/contract-networks';
import { QkError } from '../../shared/errors';
import type { ApiClient } from '../client/api-client';

export interface OrganizationSnapshot {
  viewer: { userId: string; username: string; organizationId: string; organizationName: string };
  wallets: Wallet[];
  accounts: WalletAccount[];
  privateKeys: PrivateKey[];
  contracts: SmartContractInterface[];
  policies: Policy[];
  users: User[];
  tags: Tag[];
  rootQuorum: { threshold: number; userIds: string[] } | undefined;
}

/** The service answers at most this many accounts per page. */
const ACCOUNT_PAGE_SIZE = 100;
/** Enough for any organization a person reviews by eye; beyond it names stop resolving for the rest. */
const MAX_ACCOUNT_PAGES = 50;

/**
 * The organization in four requests: who is looking, the organization's own record (users with their credentials and
 * tags, policies, wallets, private keys, the root quorum), its wallet accounts page by page, and its uploaded
 * interfaces. Every reading main makes (the list rows, the cards, main's confirmation, the inbox) starts from one.
 */
export async function readOrganization(client: Pick<ApiClient, 'query'>): Promise<OrganizationSnapshot> {
  const [viewer, { organizationName: _named, ...data }] = await Promise.all([readViewer(client), readOrganizationData(client)]);
  return { viewer, ...data };
}

/** Who is looking: the one part of the snapshot that differs between profiles of the same organization. */
export async function readViewer(client: Pick<ApiClient, 'query'>): Promise<OrganizationSnapshot['viewer']> {
  const { userId, username, organizationId, organizationName } = await client.query('whoami', {});
  return { userId, username, organizationId, organizationName };
}

/** Everything but who is looking, in three requests: the same whichever user of the organization asks. */
export async function readOrganizationData(
  client: Pick<ApiClient, 'query'>,
): Promise<Omit<OrganizationSnapshot, 'viewer'> & { organizationName: string | undefined }> {
  const [{ organizationData: data }, accounts, contracts] = await Promise.all([
    client.query('get_organization', {}),
    allWalletAccounts(client),
    client.query('list_smart_contract_interfaces', {}),
  ]);
  return {
    organizationName: data.name,
    wallets: data.wallets ?? [],
    accounts,
    privateKeys: data.privateKeys ?? [],
    contracts: contracts.smartContractInterfaces,
    policies: data.policies ?? [],
    users: data.users ?? [],
    tags: data.tags ?? [],
    rootQuorum: data.rootQuorum === undefined ? undefined : { threshold: data.rootQuorum.threshold, userIds: data.rootQuorum.userIds },
  };
}

/** How many recent completed signatures are read for "recipient never seen before". */
export const RECENT_SIGNATURES = 100;

/** The activity type whose completions are the organization's past recipients. */
const SIGNATURE_TYPE = 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2';

/** The organization's newest completed signed transactions, newest first: who it paid or called before. */
export async function readRecentSignatures(client: Pick<ApiClient, 'query'>): Promise<Activity[]> {
  const { activities } = await client.query('list_activities', {
    filterByStatus: ['ACTIVITY_STATUS_COMPLETED'],
    filterByType: [SIGNATURE_TYPE],
    paginationOptions: { limit: String(RECENT_SIGNATURES) },
  });
  return activities;
}

/** Whether `activity` is one readRecentSignatures lists: a signed transaction that completed. */
export function isRecentSignature(activity: Pick<Activity, 'type' | 'status'>): boolean {
  return activity.type === SIGNATURE_TYPE && activity.status === 'ACTIVITY_STATUS_COMPLETED';
}

/** Every wallet account of the organization, oldest first, page by page. */
async function allWalletAccounts(client: Pick<ApiClient, 'query'>): Promise<WalletAccount[]> {
  const accounts: WalletAccount[] = [];
  for (let page = 0; page < MAX_ACCOUNT_PAGES; page += 1) {
    const after = accounts.at(-1)?.walletAccountId;
    const { accounts: batch } = await client.query('list_wallet_accounts', {
      paginationOptions: { limit: String(ACCOUNT_PAGE_SIZE), ...(after === undefined ? {} : { after }) },
    });
    accounts.push(...batch);
    if (batch.length < ACCOUNT_PAGE_SIZE) break;
  }
  return accounts;
}

/** An uploaded interface's JSON, parsed; one that no longer parses is reported with its address. */
export function parsedDefinition(contract: SmartContractInterface): unknown {
  try {
    return JSON.parse(contract.smartContractInterface);
  } catch {
    throw new QkError('RESPONSE_INVALID', `the interface uploaded for ${contract.smartContractAddress} (${contract.label}) is not valid JSON`, {
      smartContractInterfaceId: contract.smartContractInterfaceId,
    });
  }
}

/** Services spell the stored type either way ("SOLANA" or "SMART_CONTRACT_INTERFACE_TYPE_SOLANA"). */
export function contractInterfaceTypeOf(
  contract: SmartContractInterface,
): 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' | 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' {
  return contract.type.endsWith('SOLANA') ? 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' : 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM';
}

/** Uploaded interfaces as the clear-signing reader names contracts: label, chain and parsed definition. */
export function contractsForReading(contracts: readonly SmartContractInterface[]): ContractInterface[] {
  return contracts.map((contract) => {
    const chainId = chainIdOfNotes(contract.notes);
    return {
      address: contract.smartContractAddress,
      type: contractInterfaceTypeOf(contract) === 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' ? 'SOLANA' : 'ETHEREUM',
      label: contract.label,
      definition: parsedDefinition(contract),
      ...(chainId === undefined ? {} : { chainId }),
    };
  });
}
