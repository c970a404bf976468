/**
 * Policies in words, read in main for every surface that shows a policy: the Policies list, an approval's policy
 * lines (the describer's `readPolicy` hook), the review of an update, and why a request is denied or waits. The
 * organization's names and the declared tokens come from one read; the window renders what this answers.
 */
import type { Policy, PrivateKey, Tag, User, Wallet } from '../../shared/api';
import type { KnownToken } from '../../shared/clear-signing/types';
import { effectInWords, type OrganizationLookup, type PolicyReader } from '../../shared/describe';
import { diffPolicyText } from '../../shared/describe/policy-diff';
import { piecesInText, policyGlosses, readPolicyExpression, readPolicyPart } from '../../shared/describe/policy-reading';
import type { ChannelInput, ChannelOutput } from '../../shared/ipc/contract';
import type { PolicyReadingView, PolicyWhyView } from '../../shared/ipc/policy-words';
import type { PolicyExpressionKind, PolicyWhy } from '../../shared/policy';
import type { ApiClient } from '../client/api-client';
import type { DeclaredTokens } from '../tokens/declared-tokens';

/** What a policy's ids can name and its amounts be read with: users, tags, wallets, keys, policies, tokens. */
export async function readPolicyNames(client: Pick<ApiClient, 'query'>, tokens: Pick<DeclaredTokens, 'list'>): Promise<OrganizationLookup> {
  const [{ organizationData: data }, declaredTokens] = await Promise.all([client.query('get_organization', {}), tokens.list()]);
  return policyNamesOf(
    {
      users: data.users ?? [],
      tags: data.tags ?? [],
      wallets: data.wallets ?? [],
      privateKeys: data.privateKeys ?? [],
      policies: data.policies ?? [],
    },
    declaredTokens,
  );
}

/** The organization as a policy reading names it, from what the service answered. */
export function policyNamesOf(
  organization: {
    users: readonly User[];
    tags: readonly Tag[];
    wallets: readonly Wallet[];
    privateKeys: readonly PrivateKey[];
    policies: readonly Policy[];
  },
  declaredTokens: readonly KnownToken[],
): OrganizationLookup {
  return {
    users: organization.users.map((user) => ({
      userId: user.userId,
      userName: user.userName,
      userTags: user.userTags,
      apiKeys: [],
      authenticators: [],
      oauthProviders: [],
    })),
    tags: organization.tags.map(({ tagId, tagName }) => ({ tagId, tagName })),
    wallets: organization.wallets.map(({ walletId, walletName, exported }) => ({ walletId, walletName, exported })),
    privateKeys: organization.privateKeys.map(({ privateKeyId, privateKeyName, exported }) => ({
      privateKeyId,
      privateKeyName,
      exported,
      addresses: [],
    })),
    policies: organization.policies.map(({ policyId, policyName, effect, condition, consensus, notes }) => ({
      policyId,
      policyName,
      effect,
      condition,
      consensus,
      notes,
    })),
    declaredTokens,
  };
}

export function policyReadingOf(policy: { condition: string; consensus: string; time: string }, lookup: OrganizationLookup): PolicyReadingView {
  return {
    condition: readPolicyExpression(policy.condition, 'condition', lookup),
    consensus: readPolicyExpression(policy.consensus, 'consensus', lookup),
    time: readPolicyExpression(policy.time, 'time', lookup),
  };
}

/** The describer's hook: an expression as one line, names and units in brackets. */
export function policyReader(lookup: OrganizationLookup): PolicyReader {
  return (text, kind) => piecesInText(readPolicyExpression(text, kind, lookup));
}

type Draft = ChannelInput<'policies.review'>['after'];

const FIELDS: readonly { field: keyof Draft; label: string; kind?: PolicyExpressionKind }[] = [
  { field: 'name', label: 'Name' },
  { field: 'effect', label: 'Effect' },
  { field: 'condition', label: 'Condition', kind: 'condition' },
  { field: 'consensus', label: 'Consensus', kind: 'consensus' },
  { field: 'time', label: 'Time window', kind: 'time' },
  { field: 'notes', label: 'Notes' },
];

/** The fields an update changes, each token by token: names and units kept, an expression's digits grouped. */
export function policyReview(before: Draft, after: Draft, lookup: OrganizationLookup): ChannelOutput<'policies.review'> {
  return FIELDS.filter(({ field }) => before[field] !== after[field]).map(({ field, label, kind }) => {
    const side = (draft: Draft) => {
      const text = field === 'effect' ? effectInWords(draft.effect) : draft[field];
      return { text, glosses: kind === undefined ? [] : policyGlosses(text, kind, lookup) };
    };
    return { field, label, pieces: diffPolicyText(side(before), side(after), { groupDigits: kind !== undefined }) };
  });
}

/** A quoted id in a value a policy read. */
const QUOTED = /'([^']*)'/g;

/** Each id the organization has, as a policy read in text names it: `«user Bea»`. */
function policyGlossNames(lookup: OrganizationLookup): [string, string][] {
  return [
    ...(lookup.users ?? []).map((user): [string, string] => [user.userId, `«user ${user.userName}»`]),
    ...(lookup.tags ?? []).map((tag): [string, string] => [tag.tagId, `«tag ${tag.tagName}»`]),
    ...(lookup.wallets ?? []).map((wallet): [string, string] => [wallet.walletId, `«wallet ${wallet.walletName}»`]),
  ];
}

/** Why, as the window shows it: each deciding part in pieces (names, units) and the values it read, ids named. */
export function policyWhyView(
  why: readonly PolicyWhy[],
  policies: readonly { policyId: string; policyName: string; condition: string; consensus: string; time?: string | undefined }[],
  lookup: OrganizationLookup,
): PolicyWhyView[] {
  const names = new Map(policyGlossNames(lookup));
  const named = (value: string) => value.replace(QUOTED, (quoted, id: string) => names.get(id) ?? quoted);
  return why.flatMap(({ policyId, field, explanation }) => {
    const policy = policies.find((candidate) => candidate.policyId === policyId);
    if (policy === undefined) return [];
    const text = field === 'time' ? (policy.time ?? '') : policy[field];
    return [
      {
        policyId,
        policyName: policy.policyName,
        field,
        outcome: explanation.outcome,
        parts: explanation.parts.map((part) => ({
          pieces: readPolicyPart(text, field, part.span, lookup),
          line: part.span.line,
          column: part.span.column,
          outcome: part.outcome,
          reads: part.reads.map((read) => ({
            expression: read.span === undefined ? read.expression : piecesInText(readPolicyPart(text, field, read.span, lookup)),
            value: named(read.value),
          })),
          ...(part.error === undefined ? {} : { error: part.error }),
        })),
      },
    ];
  });
}
