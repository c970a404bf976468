/**
 * Writes a loaded seed into a new database, inside the bootstrap's transaction: the root organization and its
 * sub-organizations, each with its users and their API keys, root quorum, wallets, private keys and policies, with
 * the ids the file fixes. Every check that a request would get runs here too, named by the seed's field path; the
 * key files the seed generated are written only after all of them.
 */
import { checkPolicyExpression } from '../../shared/policy';
import { QkError } from '../../shared/errors';
import { apiKeyCredentialTypeByCurve } from '../auth/credentials';
import { stampPublicKeyOf } from '../auth/stamp-public-key';
import type { Enclave } from '../enclave';
import { checkNewKeys, insertPrivateKey } from '../families/private-keys';
import { checkNewWallet, insertWallet } from '../families/wallets';
import type { Repositories } from '../store';
import { userIdsNamedBy } from './consensus-users';
import { seedFieldError, writeKeyFiles, type ResolvedOrganization, type Seed } from './file';

interface SeedContext {
  tx: Repositories;
  enclave: Enclave;
  now: number;
  newId: () => string;
  file: string;
  /** Ids the file fixes, with where: one id names one thing across the whole seed. */
  fixedIds: Map<string, string>;
  /** API public keys seen so far, with where: a key authenticates one user. */
  publicKeys: Map<string, string>;
  /** The user ids the file fixes, each with the field of its user's organization: what a consensus may name. */
  fixedUserOrganizations: Map<string, string>;
}

function idFor(ctx: SeedContext, fixed: string | undefined, field: string): string {
  if (fixed === undefined) return ctx.newId();
  const earlier = ctx.fixedIds.get(fixed);
  if (earlier !== undefined) throw seedFieldError(ctx.file, field, `id ${fixed} is already given to ${earlier}`);
  ctx.fixedIds.set(fixed, field);
  return fixed;
}

/** Runs a check written for requests, moving its error under the seed's field path. */
function asSeedField<T>(ctx: SeedContext, field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof QkError) throw seedFieldError(ctx.file, field, error.message);
    throw error;
  }
}

async function seedOrganization(ctx: SeedContext, org: ResolvedOrganization, field: string, parentId: string | undefined) {
  const { tx, now } = ctx;
  const organizationId = idFor(ctx, org.organizationId, `${field}.organizationId`);
  tx.organizations.insert({
    id: organizationId,
    ...(parentId === undefined ? {} : { parentId }),
    name: org.organizationName,
    rootQuorumThreshold: org.rootQuorum.threshold,
    now,
  });

  const userIdsByName = new Map<string, string>();
  org.users.forEach((user, userIndex) => {
    const userField = `${field}.users[${userIndex}]`;
    if (userIdsByName.has(user.userName))
      throw seedFieldError(ctx.file, `${userField}.userName`, `"${user.userName}" is taken; user names are unique within an organization`);
    const userId = idFor(ctx, user.userId, `${userField}.userId`);
    userIdsByName.set(user.userName, userId);
    tx.users.insert({ id: userId, organizationId, name: user.userName, ...(user.userEmail === undefined ? {} : { email: user.userEmail }), now });
    user.apiKeys.forEach((key, keyIndex) => {
      const keyField = `${userField}.apiKeys[${keyIndex}]`;
      const publicKey = asSeedField(ctx, `${keyField}.publicKey`, () => stampPublicKeyOf(key));
      const earlier = ctx.publicKeys.get(publicKey);
      if (earlier !== undefined) throw seedFieldError(ctx.file, `${keyField}.publicKey`, `the same key is already ${earlier}`);
      ctx.publicKeys.set(publicKey, keyField);
      tx.apiKeys.insert({
        id: ctx.newId(),
        organizationId,
        userId,
        name: key.apiKeyName,
        publicKey,
        credentialType: apiKeyCredentialTypeByCurve[key.curve],
        expirationSeconds: undefined,
        sessionProfileId: undefined,
        now,
      });
    });
  });

  const quorumField = `${field}.rootQuorum`;
  const quorumUserIds = org.rootQuorum.userNames.map((name, index) => {
    const userId = userIdsByName.get(name);
    if (userId === undefined) throw seedFieldError(ctx.file, `${quorumField}.userNames[${index}]`, `no user named "${name}" in this organization`);
    if (org.rootQuorum.userNames.indexOf(name) !== index)
      throw seedFieldError(ctx.file, `${quorumField}.userNames[${index}]`, `"${name}" appears twice`);
    return userId;
  });
  if (org.rootQuorum.threshold > quorumUserIds.length) {
    throw seedFieldError(ctx.file, `${quorumField}.threshold`, `${org.rootQuorum.threshold} exceeds the ${quorumUserIds.length} quorum member(s)`);
  }
  tx.organizations.setRootQuorum(organizationId, { threshold: org.rootQuorum.threshold, userIds: quorumUserIds }, now);

  const target = { store: tx, organizationId, now, newId: ctx.newId };
  for (const [index, wallet] of org.wallets.entries()) {
    const walletField = `${field}.wallets[${index}]`;
    const { walletId: fixedWalletId, ...params } = wallet;
    const checked = asSeedField(ctx, walletField, () => checkNewWallet(tx, organizationId, params, ''));
    const walletId = idFor(ctx, fixedWalletId, `${walletField}.walletId`);
    const created = await ctx.enclave.createWallet({ walletId, ...checked });
    insertWallet(
      target,
      { id: walletId, name: wallet.walletName, sealedSecret: created.sealedSecret, imported: false },
      created.accounts,
      wallet.accounts.map((account) => account.name),
    );
  }

  org.privateKeys.forEach((key, index) => {
    const keyField = `${field}.privateKeys[${index}]`;
    asSeedField(ctx, keyField, () => checkNewKeys(tx, organizationId, [key], () => ''));
    const privateKeyId = idFor(ctx, key.privateKeyId, `${keyField}.privateKeyId`);
    const sealed = asSeedField(ctx, keyField, () =>
      ctx.enclave.createPrivateKey({ privateKeyId, curve: key.curve, addressFormats: key.addressFormats }),
    );
    insertPrivateKey(target, { id: privateKeyId, name: key.privateKeyName, curve: key.curve, tags: [], imported: false }, sealed);
  });

  const policyNames = new Set<string>();
  org.policies.forEach((policy, index) => {
    const policyField = `${field}.policies[${index}]`;
    if (policyNames.has(policy.policyName))
      throw seedFieldError(ctx.file, `${policyField}.policyName`, `"${policy.policyName}" is taken; policy names are unique within an organization`);
    policyNames.add(policy.policyName);
    const checkedExpression = (kind: 'condition' | 'consensus') => {
      const checked = checkPolicyExpression(policy[kind], kind);
      if (!checked.ok) throw seedFieldError(ctx.file, `${policyField}.${kind}`, checked.error.message);
      return checked.ast;
    };
    checkedExpression('condition');
    for (const userId of userIdsNamedBy(checkedExpression('consensus'))) {
      const userOrganization = ctx.fixedUserOrganizations.get(userId);
      if (userOrganization === field) continue;
      const why =
        userOrganization === undefined
          ? 'but no user in this seed has that userId (fix it as the userId of the user meant)'
          : `a user of ${userOrganization}, but a consensus counts only its own organization's approvers`;
      throw seedFieldError(ctx.file, `${policyField}.consensus`, `policy "${policy.policyName}" names user ${userId}, ${why}`);
    }
    tx.policies.insert({
      id: idFor(ctx, policy.policyId, `${policyField}.policyId`),
      organizationId,
      name: policy.policyName,
      effect: policy.effect,
      condition: policy.condition ?? '',
      consensus: policy.consensus ?? '',
      time: '',
      notes: policy.notes,
      now,
    });
  });

  return { organizationId, rootUserId: quorumUserIds[0]! };
}

/** Seeds an empty database; the root organization's first quorum member stands as its root user. */
export async function applySeed(
  tx: Repositories,
  seed: Seed,
  deps: { enclave: Enclave; now: number; newId: () => string },
): Promise<{ organizationId: string; rootUserId: string }> {
  const { subOrganizations, ...root } = seed.organization;
  const subs = subOrganizations.map((org, index) => ({ org, field: `organization.subOrganizations[${index}]` }));
  // The first to fix an id keeps it: a second is refused as given twice when its organization is seeded.
  const fixedUserOrganizations = new Map<string, string>();
  for (const { org, field } of [{ org: root, field: 'organization' }, ...subs]) {
    for (const { userId } of org.users) if (userId !== undefined && !fixedUserOrganizations.has(userId)) fixedUserOrganizations.set(userId, field);
  }
  const ctx: SeedContext = { tx, ...deps, file: seed.file, fixedIds: new Map(), publicKeys: new Map(), fixedUserOrganizations };
  const created = await seedOrganization(ctx, root, 'organization', undefined);
  for (const { org, field } of subs) await seedOrganization(ctx, org, field, created.organizationId);
  tx.seeds.insert({
    fingerprint: seed.fingerprint,
    content: JSON.stringify(seed.content),
    organizationId: created.organizationId,
    appliedAt: deps.now,
  });
  // Last, inside the transaction: a seed refused above writes no key file, and one that cannot be written seeds nothing.
  writeKeyFiles(seed);
  return created;
}
