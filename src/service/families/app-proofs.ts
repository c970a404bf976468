/**
 * App proofs (crypto-formats §6). An activity submitted with `generateAppProofs: true` whose result derives
 * addresses gets one APP_PROOF_TYPE_ADDRESS_DERIVATION proof per address, signed by the enclave's app-proof
 * key. Besides Turnkey's `addressDerivationProof`, each payload binds the activity: its id, type and the
 * SHA-256 of its result member as recorded (`activity.result.<resultKey>`, JSON).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8Encode } from '../../shared/crypto/encoding';
import { QkError } from '../../shared/errors';
import type { ActivityContext, ActivityHandler, ActivityName, Family } from '../activities/context';
import { toTimestamp } from '../activities/timestamps';

export interface DerivedAddress {
  address: string;
  walletId?: string;
  derivationPath?: string;
}

type ActivityResultOf<N extends ActivityName> = Awaited<ReturnType<ActivityHandler<N>['execute']>>;

function requestedAppProofs(ctx: ActivityContext): { type: string } | undefined {
  const activity = ctx.store.activities.get(ctx.organizationId, ctx.activityId);
  if (activity === undefined) throw new QkError('INTERNAL', `activity ${ctx.activityId} is executing but not recorded`);
  const body = JSON.parse(activity.body) as { generateAppProofs?: unknown };
  return body.generateAppProofs === true ? { type: activity.type } : undefined;
}

/** Wraps an address-deriving handler so that its activity carries app proofs when the request asked for them. */
export function withAppProofs<N extends ActivityName>(
  handler: ActivityHandler<N>,
  addressesOf: (result: ActivityResultOf<N>) => DerivedAddress[],
): ActivityHandler<N> {
  return {
    ...handler,
    async execute(ctx, params) {
      const result = await handler.execute(ctx, params);
      const requested = requestedAppProofs(ctx);
      if (requested === undefined) return result;
      const resultDigest = bytesToHex(sha256(utf8Encode(JSON.stringify(result))));
      // The handler's result is the operation's result type; TypeScript cannot see through the deferred generic.
      for (const derived of addressesOf(result as ActivityResultOf<N>)) {
        const proof = await ctx.enclave.signAppProof({
          type: 'APP_PROOF_TYPE_ADDRESS_DERIVATION',
          timestampMs: String(ctx.now),
          activityId: ctx.activityId,
          activityType: requested.type,
          resultDigest,
          addressDerivationProof: {
            organizationId: ctx.organizationId,
            ...(derived.walletId === undefined ? {} : { walletId: derived.walletId }),
            ...(derived.derivationPath === undefined ? {} : { derivationPath: derived.derivationPath }),
            address: derived.address,
          },
        });
        ctx.store.keyMaterial.appProofs.insert(ctx.activityId, proof);
      }
      return result;
    },
  };
}

export const appProofsFamily: Family = {
  queries: {
    list_app_proofs(ctx, request) {
      if (ctx.store.activities.get(ctx.organizationId, request.activityId) === undefined) {
        throw new QkError('ACTIVITY_NOT_FOUND', `no activity ${request.activityId} in organization ${ctx.organizationId}`, {
          activityId: request.activityId,
        });
      }
      return { appProofs: ctx.store.keyMaterial.appProofs.listByActivity(request.activityId) };
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
      const { createdAtMs, ...fields } = boot;
      return { bootProof: { ...fields, createdAt: toTimestamp(createdAtMs) } };
    },
  },
};
