/**
 * What the app reads from the service to explain a signing request: the organization's wallets and accounts, private
 * keys, uploaded contract interfaces, policies, users and tags, root quorum, and who is looking. Read once per card,
 * all at the same time.
 */
import type { Policy, PrivateKey, SmartContractInterface, Tag, User, Wallet, WalletAccount } from '../../shared/api';
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

/** The service pages wallet accounts; this is the most it answers at once. */
const ACCOUNT_PAGE = 100;

export async function readOrganization(client: ApiClient): Promise<OrganizationSnapshot> {
  const [whoami, wallets, accounts, privateKeys, contracts, policies, users, tags, rootQuorum] = await Promise.all([
    client.query('whoami', {}),
    client.query('list_wallets', {}),
    allWalletAccounts(client),
    client.query('list_private_keys', {}),
    client.query('list_smart_contract_interfaces', {}),
    client.query('list_policies', {}),
    client.query('list_users', {}),
    client.query('list_user_tags', {}),
    readRootQuorum(client),
  ]);
  return {
    viewer: { userId: whoami.userId, username: whoami.username, organizationId: whoami.organizationId, organizationName: whoami.organizationName },
    wallets: wallets.wallets,
    accounts,
    privateKeys: privateKeys.privateKeys,
    contracts: contracts.smartContractInterfaces,
    policies: policies.policies,
    users: users.users,
    tags: tags.userTags,
    rootQuorum,
  };
}

async function allWalletAccounts(client: ApiClient): Promise<WalletAccount[]> {
  const accounts: WalletAccount[] = [];
  for (;;) {
    const after = accounts.at(-1)?.walletAccountId;
    const page = await client.query('list_wallet_accounts', {
      paginationOptions: { limit: String(ACCOUNT_PAGE), ...(after === undefined ? {} : { after }) },
    });
    accounts.push(...page.accounts);
    if (page.accounts.length < ACCOUNT_PAGE) return accounts;
  }
}

async function readRootQuorum(client: ApiClient): Promise<OrganizationSnapshot['rootQuorum']> {
  try {
    return (await client.query('get_organization_configs', {})).configs.quorum;
  } catch (error) {
    // A service without the configs query still has requests to explain; the root quorum part stays unknown.
    if (error instanceof QkError && error.code === 'OPERATION_NOT_FOUND') return undefined;
    throw error;
  }
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
