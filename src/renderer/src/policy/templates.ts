/**
 * Policy templates: fill in ids, get a name, effect, condition and consensus that the shared checker accepts (always
 * active: no time window).
 * Quoted values escape backslashes and quotes, so an id can never end the string literal early.
 */
import type { PolicyDraft } from './draft';

export function quote(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** Any `threshold` of `userIds` must approve the activities the condition selects (all activities when empty). */
export function anyOfUsersTemplate(userIds: readonly string[], threshold: number, condition = ''): PolicyDraft {
  const members = userIds.map((id) => `user.id == ${quote(id)}`).join(' || ');
  return {
    name: `Any ${threshold} of ${userIds.length} users`,
    effect: 'EFFECT_ALLOW',
    condition,
    consensus: `approvers.filter(user, ${members}).count() >= ${threshold}`,
    time: '',
    notes: `Allows what the condition selects once ${threshold} of these users approve: ${userIds.join(', ')}.`,
  };
}

/** `userId` alone may export the wallet `walletId`. */
export function userMayExportWalletTemplate(userId: string, walletId: string): PolicyDraft {
  return {
    name: `User ${userId} may export wallet ${walletId}`,
    effect: 'EFFECT_ALLOW',
    condition: `activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET' && wallet.id == ${quote(walletId)}`,
    consensus: `approvers.any(user, user.id == ${quote(userId)})`,
    time: '',
    notes: `Lets user ${userId} export wallet ${walletId} without other approvals.`,
  };
}
