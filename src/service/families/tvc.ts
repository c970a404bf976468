/**
 * TVC (Turnkey Verifiable Cloud) apps (docs/service.md#contracts-and-tvc): an app names its quorum key and two operator
 * sets — the manifest set approving deployments and the share set holding the quorum key's shares. Each set is either
 * an existing one (`…SetId`) or created with the app (`…SetParams`, new and/or existing operators). The local
 * service runs no enclave deployments, so deleting an app removes the app record only.
 */
import { p256 } from '@noble/curves/nist.js';
import { QkError } from '../../shared/errors';
import { hexToBytes } from '../../shared/crypto/encoding';
import type { ActivityContext, Family } from '../activities/context';
import { toTimestamp } from '../../shared/api/timestamps';
import type { Repositories } from '../store';
import type { TvcAppRecord, TvcOperatorSetRecord } from '../store/tvc';

const UNCOMPRESSED_POINT_BYTES = 65;

interface OperatorSetParams {
  name: string;
  newOperators?: { name: string; publicKey: string }[] | undefined;
  existingOperatorIds?: string[] | undefined;
  threshold: string;
}

interface CreateAppParams {
  name: string;
  quorumPublicKey: string;
  manifestSetId?: string | undefined;
  manifestSetParams?: OperatorSetParams | undefined;
  shareSetId?: string | undefined;
  shareSetParams?: OperatorSetParams | undefined;
}

function invalid(field: string, problem: string): QkError {
  return new QkError('REQUEST_INVALID', `parameters.${field} ${problem}`, { issues: [{ path: `parameters.${field}`, message: problem }] });
}

/** A P-256 point in hex (compressed or uncompressed); for quorum keys also the QOS pair encryption ‖ signing. */
function checkPublicKey(hex: string, field: string, allowQuorumPair: boolean): void {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(hex, field);
  } catch {
    throw invalid(field, 'must be hex');
  }
  const points =
    allowQuorumPair && bytes.length === 2 * UNCOMPRESSED_POINT_BYTES
      ? [bytes.subarray(0, UNCOMPRESSED_POINT_BYTES), bytes.subarray(UNCOMPRESSED_POINT_BYTES)]
      : [bytes];
  for (const point of points) {
    try {
      p256.Point.fromBytes(point);
    } catch {
      throw invalid(field, `must be a P-256 public key${allowQuorumPair ? ' (or a 130-byte encryption ‖ signing key pair)' : ''}`);
    }
  }
}

function checkOperatorSet(
  store: Repositories,
  organizationId: string,
  id: string | undefined,
  params: OperatorSetParams | undefined,
  field: string,
): void {
  if ((id === undefined) === (params === undefined)) throw invalid(`${field}Id`, `give exactly one of ${field}Id and ${field}Params`);
  if (id !== undefined) {
    if (store.tvc.getOperatorSet(organizationId, id) === undefined)
      throw new QkError('NOT_FOUND', `no TVC operator set ${id} in organization ${organizationId}`);
    return;
  }
  const set = params!;
  if (set.name.trim() === '') throw invalid(`${field}Params.name`, 'must not be empty');
  const existing = set.existingOperatorIds ?? [];
  const added = set.newOperators ?? [];
  existing.forEach((operatorId) => {
    if (!store.tvc.operatorExists(organizationId, operatorId))
      throw new QkError('NOT_FOUND', `no TVC operator ${operatorId} in organization ${organizationId}`);
  });
  if (new Set(existing).size !== existing.length) throw invalid(`${field}Params.existingOperatorIds`, 'names an operator twice');
  added.forEach((operator, index) => checkPublicKey(operator.publicKey, `${field}Params.newOperators[${index}].publicKey`, false));
  const size = existing.length + added.length;
  const threshold = Number(set.threshold);
  if (size === 0) throw invalid(`${field}Params`, 'must name at least one operator (newOperators or existingOperatorIds)');
  if (!Number.isSafeInteger(threshold) || threshold < 1 || threshold > size) {
    throw invalid(`${field}Params.threshold`, `must be between 1 and the ${size} operators of the set, got ${set.threshold}`);
  }
}

function checkCreate(store: Repositories, organizationId: string, params: CreateAppParams): void {
  if (params.name.trim() === '') throw invalid('name', 'must not be empty');
  const existing = store.tvc.findAppByName(organizationId, params.name);
  if (existing !== undefined)
    throw new QkError('ALREADY_EXISTS', `a TVC app named "${params.name}" already exists (${existing.id})`, { appId: existing.id });
  checkPublicKey(params.quorumPublicKey, 'quorumPublicKey', true);
  checkOperatorSet(store, organizationId, params.manifestSetId, params.manifestSetParams, 'manifestSet');
  checkOperatorSet(store, organizationId, params.shareSetId, params.shareSetParams, 'shareSet');
}

/** The id of the set to use: the existing one, or a new set with the given new and existing operators. */
function operatorSetFor(ctx: ActivityContext, id: string | undefined, params: OperatorSetParams | undefined): string {
  if (id !== undefined) return id;
  const set = params!;
  const operatorIds = [...(set.existingOperatorIds ?? [])];
  for (const operator of set.newOperators ?? []) {
    const operatorId = ctx.newId();
    ctx.store.tvc.insertOperator({
      id: operatorId,
      organizationId: ctx.organizationId,
      name: operator.name,
      publicKey: operator.publicKey.toLowerCase(),
      now: ctx.now,
    });
    operatorIds.push(operatorId);
  }
  const setId = ctx.newId();
  ctx.store.tvc.insertOperatorSet({
    id: setId,
    organizationId: ctx.organizationId,
    name: set.name,
    threshold: Number(set.threshold),
    operatorIds,
    now: ctx.now,
  });
  return setId;
}

function operatorSetView(set: TvcOperatorSetRecord) {
  return {
    id: set.id,
    name: set.name,
    organizationId: set.organizationId,
    operators: set.operators.map((operator) => ({
      id: operator.id,
      name: operator.name,
      publicKey: operator.publicKey,
      createdAt: toTimestamp(operator.createdAt),
      updatedAt: toTimestamp(operator.createdAt),
    })),
    threshold: String(set.threshold),
    createdAt: toTimestamp(set.createdAt),
    updatedAt: toTimestamp(set.createdAt),
  };
}

function appView(store: Repositories, app: TvcAppRecord) {
  return {
    id: app.id,
    organizationId: app.organizationId,
    name: app.name,
    quorumPublicKey: app.quorumPublicKey,
    manifestSet: operatorSetView(store.tvc.getOperatorSet(app.organizationId, app.manifestSetId)!),
    shareSet: operatorSetView(store.tvc.getOperatorSet(app.organizationId, app.shareSetId)!),
    enableEgress: app.enableEgress,
    createdAt: toTimestamp(app.createdAt),
    updatedAt: toTimestamp(app.updatedAt),
    // No deployments run locally, hence no live deployment and no public domain.
    publicDomain: '',
    enableDebugModeDeployments: app.enableDebugModeDeployments,
  };
}

function requireApp(store: Repositories, organizationId: string, appId: string): TvcAppRecord {
  const app = store.tvc.getApp(organizationId, appId);
  if (app === undefined) throw new QkError('NOT_FOUND', `no TVC app ${appId} in organization ${organizationId}`, { appId });
  return app;
}

export const tvcFamily: Family = {
  queries: {
    list_tvc_apps(ctx) {
      return { tvcApps: ctx.store.tvc.listApps(ctx.organizationId).map((app) => appView(ctx.store, app)) };
    },
    get_tvc_app(ctx, request) {
      return { tvcApp: appView(ctx.store, requireApp(ctx.store, ctx.organizationId, request.tvcAppId)) };
    },
  },
  activities: {
    create_tvc_app: {
      validate: checkCreate,
      execute(ctx, params) {
        checkCreate(ctx.store, ctx.organizationId, params);
        const manifestSetId = operatorSetFor(ctx, params.manifestSetId, params.manifestSetParams);
        const shareSetId = operatorSetFor(ctx, params.shareSetId, params.shareSetParams);
        const appId = ctx.newId();
        ctx.store.tvc.insertApp({
          id: appId,
          organizationId: ctx.organizationId,
          name: params.name,
          quorumPublicKey: params.quorumPublicKey.toLowerCase(),
          manifestSetId,
          shareSetId,
          enableEgress: params.enableEgress ?? false,
          enableDebugModeDeployments: params.enableDebugModeDeployments ?? false,
          now: ctx.now,
        });
        const manifestSet = ctx.store.tvc.getOperatorSet(ctx.organizationId, manifestSetId)!;
        const shareSet = ctx.store.tvc.getOperatorSet(ctx.organizationId, shareSetId)!;
        return {
          appId,
          manifestSetId,
          manifestSetOperatorIds: manifestSet.operators.map((operator) => operator.id),
          manifestSetThreshold: String(manifestSet.threshold),
          shareSetId,
          shareSetOperatorIds: shareSet.operators.map((operator) => operator.id),
          shareSetThreshold: String(shareSet.threshold),
        };
      },
    },
    delete_tvc_app_and_deployments: {
      validate: (store, organizationId, params) => void requireApp(store, organizationId, params.appId),
      execute(ctx, params) {
        requireApp(ctx.store, ctx.organizationId, params.appId);
        ctx.store.tvc.deleteApp(params.appId);
        return { appId: params.appId };
      },
    },
  },
};
