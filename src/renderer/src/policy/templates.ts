/**
 * Policy templates: choose users, tags and wallets by name, get a name, effect, condition and consensus that the
 * shared checker accepts (always active: no time window). The expressions hold ids, as the service compares ids;
 * names go into the policy's name and notes for people.
 * Quoted values escape backslashes and quotes, so an id can never end the string literal early.
 */
import type { PolicyDraft } from './draft';

export function quote(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** What a consensus over approvers means for the proposer, said in every template that counts them. */
export const PROPOSER_COUNTS = 'The proposer’s own approval counts: one of them who proposes it is one of those approvals already.';

export interface Named {
  id: string;
  name: string;
}

/** Any `threshold` of `users` must approve the activities the condition selects (all activities when empty). */
export function anyOfUsersTemplate(users: readonly Named[], threshold: number, condition = ''): PolicyDraft {
  const members = users.map((user) => `user.id == ${quote(user.id)}`).join(' || ');
  const names = users.map((user) => user.name).join(', ');
  return {
    name: `Any ${threshold} of ${names}`,
    effect: 'EFFECT_ALLOW',
    condition,
    consensus: `approvers.filter(user, ${members}).count() >= ${threshold}`,
    time: '',
    notes: `Allows what the condition selects once ${threshold} of these users approve: ${names}. ${PROPOSER_COUNTS}`,
  };
}

/**
 * The proposer's submission is their approval, and a user approves once in a window, so two approvers are always the
 * proposer and someone else: `approvers.count() >= 2` is "one approver other than the proposer", whoever proposes.
 */
export function anotherApproverTemplate(condition = ''): PolicyDraft {
  return {
    name: 'One approver other than the proposer',
    effect: 'EFFECT_ALLOW',
    condition,
    consensus: 'approvers.count() >= 2',
    time: '',
    notes:
      'Allows what the condition selects once one user other than the proposer approves: the proposal is the ' +
      'proposer’s own approval, and a second approval can only be someone else’s.',
  };
}

/** Any `threshold` users with `tag` must approve the activities the condition selects. */
export function anyWithTagTemplate(tag: Named, threshold: number, condition = ''): PolicyDraft {
  return {
    name: `Any ${threshold} tagged ${tag.name}`,
    effect: 'EFFECT_ALLOW',
    condition,
    consensus: `approvers.filter(user, user.tags.contains(${quote(tag.id)})).count() >= ${threshold}`,
    time: '',
    notes: `Allows what the condition selects once ${threshold} users tagged ${tag.name} approve. ${PROPOSER_COUNTS}`,
  };
}

/** `user` alone may export `wallet`. */
export function userMayExportWalletTemplate(user: Named, wallet: Named): PolicyDraft {
  return {
    name: `${user.name} may export ${wallet.name}`,
    effect: 'EFFECT_ALLOW',
    condition: `activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET' && wallet.id == ${quote(wallet.id)}`,
    consensus: `approvers.any(user, user.id == ${quote(user.id)})`,
    time: '',
    notes: `Lets ${user.name} export wallet ${wallet.name} without other approvals.`,
  };
}
