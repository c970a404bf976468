/**
 * App proofs (docs/formats.md#app-proofs). An activity submitted with `generateAppProofs: true` completes with proofs
 * signed by the enclave's app-proof key, made by one pipeline hook (appProofsHook) for every activity type:
 * - one APP_PROOF_TYPE_POLICY_OUTCOME proof of the decision that let it execute, and
 * - one APP_PROOF_TYPE_ADDRESS_DERIVATION proof per address its handler reports (`derivedAddresses`).
 * Besides Turnkey's proof members, each payload binds the activity: its id, type and the SHA-256 of its result
 * member as recorded (`activity.result.<resultKey>`, JSON).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8Encode } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import type { ActivityOperation } from '../../shared/api';
import type { ActivityContext, Completion, Family } from '../activities/context';
import { toTimestamp } from '../../shared/api/timestamps';
import type { BootProof } from '../enclave';
import type { Repositories } from '../store';
import type { ActivityRecord, VoteRecord } from '../store/activities';

/** An executed activity was allowed: denials are refused before anything is recorded. */
const EXECUTED_OUTCOME = 'OUTCOME_ALLOW';

/** `v1BootProof` of the enclave's boot proof. */
function bootProofView(boot: BootProof) {
  const { createdAtMs, ...fields } = boot;
  return { ...fields, createdAt: toTimestamp(createdAtMs) };
}

function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8Encode(text)));
}

/**
 * SHA-256 of the organization data a policy decision depends on, as JSON with a fixed member order: the root
 * quorum and every policy in creation order. A client can recompute it from get_organization_configs and
 * list_policies read at the time of the decision.
 */
export function organizationDataDigest(store: Repositories, organizationId: string): string {
  const quorum = store.organizations.rootQuorum(organizationId);
  return sha256Hex(
    JSON.stringify({
      organizationId,
      rootQuorum: { threshold: quorum.threshold, userIds: quorum.userIds },
      policies: store.policies.listByOrganization(organizationId).map((policy) => ({
        policyId: policy.id,
        effect: policy.effect,
        condition: policy.condition,
        consensus: policy.consensus,
      })),
    }),
  );
}

/** Each approval that counted, with what its stamp signed: the request body, digested. */
function userRequestApprovals(approvals: readonly VoteRecord[]) {
  return approvals.map((vote) => ({
    userId: vote.userId,
    credentialId: vote.credentialId,
    publicKey: vote.publicKey,
    scheme: vote.scheme,
    signature: vote.signature,
    requestDigest: sha256Hex(vote.message),
  }));
}

/**
 * The pipeline's hook before an activity's handler runs. Unless the operation takes app proofs and the request asked
 * for them, returns undefined; otherwise digests the decision as it is being made (before the handler can change the
 * organization) and returns the function that signs and stores the proofs once the handler has succeeded.
 */
function appProofsHook(
  ctx: ActivityContext,
  activity: ActivityRecord,
  op: ActivityOperation,
): ((completion: Completion) => Promise<void>) | undefined {
  if (!op.acceptsAppProofs) return undefined;
  const body = JSON.parse(activity.body) as { generateAppProofs?: unknown };
  if (body.generateAppProofs !== true) return undefined;
  const { organization } = ctx;
  const decision = {
    organizationId: organization.id,
    outcome: EXECUTED_OUTCOME,
    // What the proposer's stamp signed; each approval's requestDigest of a byte-identical body equals it.
    decisionContextDigest: sha256Hex(activity.body),
    organizationDataDigest: organizationDataDigest(ctx.store, organization.id),
    ...(organization.parentId === undefined ? {} : { parentOrganizationDataDigest: organizationDataDigest(ctx.store, organization.parentId) }),
  };
  return async ({ result, derivedAddresses, approvals }) => {
    const binding = {
      timestampMs: String(ctx.now),
      activityId: activity.id,
      activityType: activity.type,
      resultDigest: sha256Hex(JSON.stringify(result ?? {})),
    };
    const payloads = [
      {
        type: 'APP_PROOF_TYPE_POLICY_OUTCOME',
        ...binding,
        policyOutcomeProof: { ...decision, userRequestApprovals: userRequestApprovals(approvals) },
      },
      ...derivedAddresses.map((derived) => ({
        type: 'APP_PROOF_TYPE_ADDRESS_DERIVATION',
        ...binding,
        addressDerivationProof: {
          organizationId: organization.id,
          ...(derived.walletId === undefined ? {} : { walletId: derived.walletId }),
          ...(derived.derivationPath === undefined ? {} : { derivationPath: derived.derivationPath }),
          address: derived.address,
        },
      })),
    ];
    for (const payload of payloads) ctx.store.appProofs.insert(activity.id, await ctx.enclave.signAppProof(payload));
  };
}

export const appProofsFamily: Family = {
  hooks: { beforeExecution: appProofsHook },
  queries: {
    list_app_proofs(ctx, request) {
      if (ctx.store.activities.get(ctx.organizationId, request.activityId) === undefined) {
        throw new QkError('ACTIVITY_NOT_FOUND', `no activity ${request.activityId} in organization ${ctx.organizationId}`, {
          activityId: request.activityId,
        });
      }
      return { appProofs: ctx.store.appProofs.listByActivity(request.activityId) };
    },
    get_boot_proof(ctx, request) {
      const boot = ctx.enclave.bootProof();
      if (request.ephemeralKey.toLowerCase() !== boot.ephemeralPublicKeyHex) {
        throw new QkError(
          'NOT_FOUND',
          `no boot proof for ephemeral key ${request.ephemeralKey}; this service's app-proof key is ${boot.ephemeralPublicKeyHex}`,
          { ephemeralKey: request.ephemeralKey },
        );
      }
      return { bootProof: bootProofView(boot) };
    },
    get_latest_boot_proof(ctx, request) {
      const boot = ctx.enclave.bootProof();
      if (request.appName !== boot.enclaveApp) {
        throw new QkError('NOT_FOUND', `no boot proof for enclave app ${request.appName}; this service runs one enclave app, ${boot.enclaveApp}`, {
          appName: request.appName,
        });
      }
      return { bootProof: bootProofView(boot) };
    },
  },
};
