/**
 * Service records reshaped into the IPC contract's views: timestamps as epoch milliseconds, votes one per user, and
 * only the fields the contract names (a loose service response may carry more; the strict output would refuse it).
 */
import type { Activity, Policy, PrivateKey, Timestamp, Vote, Wallet, WalletAccount } from '../../shared/api';
import type { ChannelOutput } from '../../shared/ipc/contract';
import type { PendingActivity, Voter } from '../approvals/approvals';
import type { ActivityOutcome } from '../client/api-client';

type ActivityView = ChannelOutput<'activities.get'>;
type AddressView = ChannelOutput<'privateKeys.list'>[number]['addresses'][number];

export function epochMs(timestamp: Timestamp): number {
  return Number(timestamp.seconds) * 1000 + Math.floor(Number(timestamp.nanos) / 1e6);
}

export function activityView(activity: Activity): ActivityView {
  return {
    id: activity.id,
    organizationId: activity.organizationId,
    type: activity.type,
    status: activity.status,
    fingerprint: activity.fingerprint,
    intent: activity.intent,
    voters: votersOf(activity.votes),
    canApprove: activity.canApprove,
    canReject: activity.canReject,
    createdAtMs: epochMs(activity.createdAt),
    updatedAtMs: epochMs(activity.updatedAt),
    ...(activity.failure === undefined ? {} : { failure: failureView(activity.failure) }),
  };
}

export function pendingApprovalView(pending: PendingActivity): ChannelOutput<'approvals.pending'>[number] {
  return {
    activityId: pending.activityId,
    type: pending.type,
    fingerprint: pending.fingerprint,
    organizationId: pending.organizationId,
    createdAtMs: pending.createdAtMs,
    approvals: pending.approvals,
    ...(pending.required === undefined ? {} : { required: pending.required }),
    ...(pending.quorumUserIds === undefined ? {} : { quorumUserIds: pending.quorumUserIds }),
    voters: pending.voters.map(voterView),
    timeLeftMs: pending.timeLeftMs,
    canApprove: pending.canApprove,
    canReject: pending.canReject,
    activity: activityView(pending.activity),
  };
}

/** A submitted activity's outcome with its result reshaped by `view`. */
export function outcomeView<R, V>(
  outcome: ActivityOutcome<R>,
  view: (result: R) => V,
): { state: 'completed'; result: V; activity: ActivityView } | { state: 'consensus-needed' | 'pending' | 'rejected'; activity: ActivityView } {
  return outcome.state === 'completed'
    ? { state: 'completed', result: view(outcome.result), activity: activityView(outcome.activity) }
    : { state: outcome.state, activity: activityView(outcome.activity) };
}

export function policyView(policy: Policy): ChannelOutput<'policies.get'> {
  return {
    policyId: policy.policyId,
    policyName: policy.policyName,
    effect: policy.effect,
    condition: policy.condition,
    consensus: policy.consensus,
    time: policy.time ?? '',
    notes: policy.notes,
    createdAtMs: epochMs(policy.createdAt),
    updatedAtMs: epochMs(policy.updatedAt),
  };
}

export function walletView(wallet: Wallet): ChannelOutput<'wallets.list'>[number] {
  return {
    walletId: wallet.walletId,
    walletName: wallet.walletName,
    createdAtMs: epochMs(wallet.createdAt),
    updatedAtMs: epochMs(wallet.updatedAt),
    exported: wallet.exported,
    imported: wallet.imported,
  };
}

export function walletAccountView(account: WalletAccount): ChannelOutput<'wallets.accounts'>[number] {
  return {
    walletAccountId: account.walletAccountId,
    walletId: account.walletId,
    curve: account.curve,
    pathFormat: account.pathFormat,
    path: account.path,
    addressFormat: account.addressFormat,
    address: account.address,
    ...(account.publicKey === undefined ? {} : { publicKey: account.publicKey }),
    ...(account.name === undefined ? {} : { name: account.name }),
    createdAtMs: epochMs(account.createdAt),
  };
}

export function privateKeyView(key: PrivateKey): ChannelOutput<'privateKeys.list'>[number] {
  return {
    privateKeyId: key.privateKeyId,
    privateKeyName: key.privateKeyName,
    curve: key.curve,
    publicKey: key.publicKey,
    addresses: addressViews(key.addresses),
    tags: key.privateKeyTags,
    createdAtMs: epochMs(key.createdAt),
    exported: key.exported,
    imported: key.imported,
  };
}

/** Addresses with both a format and an address (the wire schema makes both optional). */
export function addressViews(addresses: readonly { format?: AddressView['format']; address?: string }[]): AddressView[] {
  return addresses.flatMap(({ format, address }) => (format === undefined || address === undefined ? [] : [{ format, address }]));
}

function failureView({ code, message }: { code?: number; message?: string }): { code?: number; message?: string } {
  return { ...(code === undefined ? {} : { code }), ...(message === undefined ? {} : { message }) };
}

function voterView(voter: Voter): Voter {
  return { userId: voter.userId, userName: voter.userName, selection: voter.selection, votedAtMs: voter.votedAtMs };
}

/** One entry per user: a later vote by the same user replaces an earlier one. */
function votersOf(votes: readonly Vote[]): Voter[] {
  const byUser = new Map<string, Voter>();
  for (const vote of [...votes].sort((a, b) => epochMs(a.createdAt) - epochMs(b.createdAt))) {
    byUser.set(vote.userId, {
      userId: vote.userId,
      userName: vote.user.userName,
      selection: vote.selection === 'VOTE_SELECTION_APPROVED' ? 'approved' : 'rejected',
      votedAtMs: epochMs(vote.createdAt),
    });
  }
  return [...byUser.values()];
}
