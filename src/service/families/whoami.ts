import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import { AuthLookups } from '../auth/lookups';

export const whoamiFamily: Family = {
  queries: {
    whoami(ctx) {
      // The rows authentication has just read: the cached lookups answer without another SQL round.
      const lookups = AuthLookups.current(ctx.store);
      const user = lookups.user(ctx.actor.userId);
      const organization = lookups.organization(ctx.actor.organizationId);
      if (user === undefined || organization === undefined) {
        throw new QkError('NOT_FOUND', `the stamping credential's user ${ctx.actor.userId} no longer exists`);
      }
      return { organizationId: organization.id, organizationName: organization.name, userId: user.id, username: user.name };
    },
  },
};
