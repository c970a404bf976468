/**
 * Service records reshaped into the IPC contract's views: timestamps as epoch milliseconds, votes one per user, and
 * only the fields the contract names (a loose service response may carry more; the strict output would refuse it).
 */
import type { Activity, Policy, PrivateKey, Timestamp, Wallet, WalletAccount } from '../../shared/api';
import type { ChannelOutput } from '../../shared/ipc/contract';
import { votersOf, type PendingActivity } from '../approvals/approvals';
import type { ActivityOutcome } from '../client/api-client';

type ActivityView = ChannelOutput<'activities.get'>;
type AddressView = ChannelOutput<'privateKeys.list'>[number]['addresses'][number];

export function epochMs(timestamp: Timestamp): number {
  return Number(timestamp.seconds) * 1000 + Math.floor(Number(timestamp.nanos) / 1e6);
}

/** `nowMs` decides which approvals have expired with their approval window. */
export function activityView(activity: Activity, nowMs: number): ActivityView {
  return {
    id: activity.id,
    organizationId: activity.organizationId,
    type: activity.type,
    status: activity.status,
    fingerprint: activity.fingerprint,
    intent: activity.intent,
    voters: votersOf(activity.votes, nowMs),
    canApprove: activity.canApprove,
    canReject: activity.canReject,
    createdAtMs: epochMs(activity.createdAt),
    updatedAtMs: epochMs(activity.updatedAt),
    ...(activity.failure === undefined ? {} : { failure: failureView(activity.failure) }),
  };
}

export function pendingApprovalView(pending: PendingActivity, nowMs: number): ChannelOutput<'approvals.pending'>[number] {
  return {
    activityId: pending.activityId,
    type: pending.type,
    fingerprint: pending.fingerprint,
    organizationId: pending.organizationId,
    createdAtMs: pending.createdAtMs,
    approvals: pending.approvals,
    ...(pending.required === undefined ? {} : { required: pending.required }),
    ...(pending.quorumUserIds === undefined ? {} : { quorumUserIds: pending.quorumUserIds }),
    voters: pending.voters,
    timeLeftMs: pending.timeLeftMs,
    canApprove: pending.canApprove,
    canReject: pending.canReject,
    activity: activityView(pending.activity, nowMs),
  };
}

/** A submitted activity's outcome with its result reshaped by `view`. */
export function outcomeView<R, V>(
  outcome: ActivityOutcome<R>,
  view: (result: R) => V,
  nowMs: number,
): { state: 'completed'; result: V; activity: ActivityView } | { state: 'consensus-needed' | 'pending' | 'rejected'; activity: ActivityView } {
  return outcome.state === 'completed'
    ? { state: 'completed', result: view(outcome.result), activity: activityView(outcome.activity, nowMs) }
    : { state: outcome.state, activity: activityView(outcome.activity, nowMs) };
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
