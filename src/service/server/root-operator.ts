/**
 * Who may use the Sandbox's own routes under /sandbox/v1 (the clock, snapshots): a request stamped like any other, by
 * a root quorum member of the root organization, since each of them changes what every other user of the Sandbox sees.
 */
import type { FastifyRequest } from 'fastify';
import { QkError } from '../../shared/errors';
import { authenticate, type StampFormat } from '../auth/authenticate';
import type { Store } from '../store';

export interface RootOperatorDeps {
  store: Store;
  stampFormats: readonly StampFormat[];
  now: () => number;
}

/** Authenticates the request's stamp over `rawBody` and refuses anyone but a root quorum member of the root organization. */
export async function requireRootOperator(
  request: FastifyRequest,
  rawBody: Uint8Array,
  organizationId: string,
  deps: RootOperatorDeps,
  what: string,
): Promise<void> {
  const { store } = deps;
  const { actor, organization } = await authenticate(request.headers, rawBody, organizationId, deps.stampFormats, store.read, deps.now());
  const root = store.read.organizations.firstRoot();
  if (organization.id !== root?.id || !store.read.organizations.rootQuorum(organization.id).userIds.includes(actor.user.id)) {
    throw new QkError('REQUEST_NOT_AUTHORIZED', `only a root quorum member of the root organization ${root?.id ?? ''} may ${what}`);
  }
}
