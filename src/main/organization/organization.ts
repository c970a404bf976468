/**
 * The organization as it stands, read in one go for describing activities (names for ids, the "before" of a change)
 * and for the Users and Root quorum screens: users with their tags and credentials, the root quorum, policies,
 * wallets with their accounts, private keys, uploaded contract interfaces, and this desktop's export keys and
 * declared tokens. Each policy says whether its time window holds now by main's clock, so the renderer, which keeps
 * no clock for rules, can leave out policies that cannot allow anything now.
 */
import type { Policy } from '../../shared/api';
import { evaluatePolicyExpression, timeContextAt } from '../../shared/policy';
import type { ChannelOutput } from '../../shared/ipc/contract';
import type { Keychain } from '../keychain/keychain';
import { policyView } from '../policies/policies.ipc';
import { walletView } from '../wallets/wallet-views';
import { contractInterfaceTypeOf, type OrganizationSnapshot } from '../signing/organization';
import type { DeclaredTokens } from '../tokens/declared-tokens';

export type OrganizationLookupView = ChannelOutput<'organization.lookup'>;

/** How an export's reading names the one-time key this desktop holds for it. */
export const HELD_ONE_TIME_KEY = 'the one-time key this desktop holds for it';

/**
 * The lookup of `snapshot` (read once per profile, read-model.ts) with what this desktop holds: its export keys, the
 * one-time keys of exports it asked for, and the tokens operators declared. No service request of its own.
 */
export async function lookupOf(
  snapshot: OrganizationSnapshot,
  // A keychain that holds one-time keys (the app's) names them too; a reader's without them reads the stored keys only.
  keychain: Pick<Keychain, 'listEncryptionKeys'> & Partial<Pick<Keychain, 'listOneTimeKeys'>>,
  tokens: Pick<DeclaredTokens, 'list'>,
  nowMs: number,
): Promise<OrganizationLookupView> {
  const [exportKeys, oneTimeKeys, declaredTokens] = await Promise.all([
    keychain.listEncryptionKeys(),
    keychain.listOneTimeKeys?.() ?? [],
    tokens.list(),
  ]);
  return {
    organizationId: snapshot.viewer.organizationId,
    organizationName: snapshot.viewer.organizationName,
    users: snapshot.users.map((user) => ({
      userId: user.userId,
      userName: user.userName,
      ...(user.userEmail === undefined ? {} : { userEmail: user.userEmail }),
      userTags: user.userTags,
      apiKeys: user.apiKeys.map((key) => ({
        apiKeyId: key.apiKeyId,
        apiKeyName: key.apiKeyName,
        publicKey: key.credential.publicKey,
        credentialType: key.credential.type,
      })),
      authenticators: user.authenticators.map(({ authenticatorId, authenticatorName, credential }) => ({
        authenticatorId,
        authenticatorName,
        publicKey: credential.publicKey,
        credentialType: credential.type,
      })),
      oauthProviders: user.oauthProviders.map(({ providerId, providerName }) => ({ providerId, providerName })),
    })),
    tags: snapshot.tags.map(({ tagId, tagName }) => ({ tagId, tagName })),
    ...(snapshot.rootQuorum === undefined ? {} : { rootQuorum: { userIds: snapshot.rootQuorum.userIds, threshold: snapshot.rootQuorum.threshold } }),
    policies: snapshot.policies.map((policy) => ({ ...policyView(policy), activeNow: timeWindowHolds(policy, nowMs) })),
    wallets: snapshot.wallets.map(walletView),
    walletAccounts: snapshot.accounts.map(({ walletId, address, path, addressFormat }) => ({ walletId, address, path, addressFormat })),
    privateKeys: snapshot.privateKeys.map((key) => ({
      privateKeyId: key.privateKeyId,
      privateKeyName: key.privateKeyName,
      exported: key.exported,
      addresses: key.addresses.flatMap((address) => (address.address === undefined ? [] : [address.address])),
    })),
    // A key whose secret the OS keychain lost cannot open anything: it is not "this desktop's" any more.
    localExportKeys: [
      ...exportKeys.filter((key) => !key.missing).map(({ name, publicKey }) => ({ name, publicKey })),
      // An export this desktop asked for that waits for votes is sealed to the one-time key held for it: this desktop's.
      ...oneTimeKeys.map(({ publicKey }) => ({ name: HELD_ONE_TIME_KEY, publicKey })),
    ],
    contracts: snapshot.contracts.map((contract) => ({
      address: contract.smartContractAddress,
      type: contractInterfaceTypeOf(contract) === 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' ? 'SOLANA' : 'ETHEREUM',
      label: contract.label,
      definition: contract.smartContractInterface,
    })),
    declaredTokens,
  };
}

/** As the service reads it: no time expression means always active; one that cannot be evaluated, never. */
function timeWindowHolds(policy: Pick<Policy, 'time'>, nowMs: number): boolean {
  const time = policy.time ?? '';
  if (time.trim() === '') return true;
  const result = evaluatePolicyExpression(time, 'time', timeContextAt(nowMs));
  return result.ok && result.value;
}
