/**
 * A recorded organization to rehearse policies against, as `readRehearsalHistory` reads one from a service: users
 * root and bea (bea tagged ops), each with one API key; one wallet with one Ethereum account; a root quorum of root;
 * no recorded per-policy outcomes. The unit tests record activities one by one, `mixedHistory` any number of them.
 */
import { serializeTransaction } from 'viem';
import type { Activity, Policy, User } from '../../src/shared/api';
import type { RehearsalHistory } from '../../src/main/policies/rehearsal';

export const ROOT = 'user-root';
export const BEA = 'user-bea';
export const ACCOUNT = '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23';
const RECIPIENT = '0x000000000000000000000000000000000000bEEF';
const WALLET = 'wallet-1';
const FIRST_RECORDED_SECONDS = 1_700_000_000;

const at = (seconds: number) => ({ seconds: String(seconds), nanos: '0' });

/** A user whose one API key's public key is `pub-<userId>`, the key its recorded votes carry. */
export function fixtureUser(userId: string, tags: string[]): User {
  return {
    userId,
    userName: userId,
    authenticators: [],
    apiKeys: [
      {
        apiKeyId: `key-${userId}`,
        apiKeyName: 'k',
        credential: { publicKey: `pub-${userId}`, type: 'CREDENTIAL_TYPE_API_KEY_P256' },
        createdAt: at(0),
        updatedAt: at(0),
      },
    ],
    userTags: tags,
    oauthProviders: [],
    mfaPolicies: [],
    createdAt: at(0),
    updatedAt: at(0),
  };
}

/** A current policy named by its id. */
export function fixturePolicy(policyId: string, condition: string, consensus: string, effect: Policy['effect'] = 'EFFECT_ALLOW'): Policy {
  return { policyId, policyName: policyId, effect, condition, consensus, notes: '', createdAt: at(0), updatedAt: at(0) };
}

/** The intent's member name as the service names it: `ACTIVITY_TYPE_SIGN_TRANSACTION_V2` → `signTransactionIntentV2`. */
function intentKeyOf(type: string): string {
  const [, name = '', version = ''] = /^ACTIVITY_TYPE_(.+?)(?:_(V\d+))?$/.exec(type) ?? [];
  return `${name.toLowerCase().replace(/_([a-z0-9])/g, (_underscore, letter: string) => letter.toUpperCase())}Intent${version}`;
}

let recorded = 0;
/** An activity recorded with `status` and approved by `voters`; ids, fingerprints and times follow the recording order. */
export function recordedActivity(
  type: string,
  params: Record<string, unknown>,
  status: Activity['status'] = 'ACTIVITY_STATUS_COMPLETED',
  voters: readonly string[] = [BEA],
): Activity {
  recorded += 1;
  const id = `activity-${recorded}`;
  const createdAt = at(FIRST_RECORDED_SECONDS + recorded);
  return {
    id,
    organizationId: 'org',
    status,
    type,
    intent: { [intentKeyOf(type)]: params },
    result: {},
    votes: voters.map((voter, index) => ({
      id: `vote-${recorded}-${index}`,
      userId: voter,
      user: {},
      activityId: id,
      selection: 'VOTE_SELECTION_APPROVED',
      message: '',
      publicKey: `pub-${voter}`,
      signature: '',
      scheme: 'SIGNATURE_SCHEME_TK_API_P256',
      createdAt,
    })),
    fingerprint: `fp-${recorded}`,
    canApprove: false,
    canReject: false,
    createdAt,
    updatedAt: createdAt,
  } as Activity;
}

export interface TransferRecord {
  status?: Activity['status'];
  voters?: readonly string[];
  chainId?: number;
  nonce?: number;
}

/** A recorded signing of an Ethereum transfer of `value` wei from ACCOUNT. */
export function recordedTransfer(value: bigint, { status, voters, chainId = 1, nonce = 0 }: TransferRecord = {}): Activity {
  const unsignedTransaction = serializeTransaction({
    type: 'eip1559',
    chainId,
    nonce,
    to: RECIPIENT,
    value,
    gas: 21_000n,
    maxFeePerGas: 1n,
    maxPriorityFeePerGas: 1n,
  });
  return recordedActivity(
    'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
    { signWith: ACCOUNT, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' },
    status,
    voters,
  );
}

/** The organization around `activities` and `policies`; `overrides` replaces any part of it. */
export function rehearsalHistory(activities: Activity[], policies: Policy[], overrides: Partial<RehearsalHistory> = {}): RehearsalHistory {
  return {
    activities,
    recordedEvaluations: new Map(),
    policies,
    users: [fixtureUser(ROOT, []), fixtureUser(BEA, ['ops'])],
    tags: [{ tagId: 'ops', tagName: 'ops', tagType: 'TAG_TYPE_USER', createdAt: at(0), updatedAt: at(0) }],
    wallets: [{ walletId: WALLET, walletName: 'Treasury', exported: false, imported: false, createdAt: at(0), updatedAt: at(0) }],
    walletAccounts: [
      {
        walletAccountId: 'account-1',
        organizationId: 'org',
        walletId: WALLET,
        curve: 'CURVE_SECP256K1',
        pathFormat: 'PATH_FORMAT_BIP32',
        path: "m/44'/60'/0'/0/0",
        addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
        address: ACCOUNT,
        createdAt: at(0),
        updatedAt: at(0),
      },
    ] as RehearsalHistory['walletAccounts'],
    privateKeys: [],
    contractInterfaces: [],
    rootQuorum: { userIds: [ROOT], threshold: 1 },
    ...overrides,
  };
}

/** Transfer limit `index`: a transfer on chain index % 3 + 1 of at most `maxWei`, with an ops approval. */
function transferLimit(index: number, maxWei: number): Policy {
  return fixturePolicy(
    `limit-${index}`,
    `activity.action == 'SIGN' && eth.tx.value <= ${maxWei} && eth.tx.chain_id == ${(index % 3) + 1}`,
    "approvers.any(user, user.tags.contains('ops'))",
  );
}

/**
 * `size.activities` activities recorded in turn as two Ethereum transfers (n-th: n % 1000 wei on chain n % 3 + 1), a
 * wallet rename and a user rename, all approved by bea; policies: `size.limits` transfer limits (limit n: up to
 * 1000 + n wei) that allow every transfer, and one for wallet, policy and user changes.
 */
export function mixedHistory(size: { activities: number; limits: number }): RehearsalHistory {
  const activities = Array.from({ length: size.activities }, (_, index) => {
    switch (index % 4) {
      case 2:
        return recordedActivity('ACTIVITY_TYPE_UPDATE_WALLET', { walletId: WALLET, walletName: `Treasury ${index}` });
      case 3:
        return recordedActivity('ACTIVITY_TYPE_UPDATE_USER_NAME', { userId: BEA, userName: `Bea ${index}` });
      default:
        return recordedTransfer(BigInt(index % 1000), { chainId: (index % 3) + 1, nonce: index });
    }
  });
  const limits = Array.from({ length: size.limits }, (_, index) => transferLimit(index, 1000 + index));
  const changes = fixturePolicy(
    'changes',
    "activity.resource in ['WALLET', 'POLICY', 'USER'] && activity.action != 'SIGN'",
    'approvers.count() >= 1',
  );
  return rehearsalHistory(activities, [...limits, changes]);
}

/** A draft of a mixed history's `limits` transfer limits, each lowered by 900 wei: limit n then allows up to 100 + n. */
export function loweredLimits(limits: number): Policy[] {
  return Array.from({ length: limits }, (_, index) => transferLimit(index, 100 + index));
}
