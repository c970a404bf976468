import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';

export const whoamiFamily: Family = {
  queries: {
    whoami(ctx) {
      const user = ctx.store.users.get(ctx.actor.userId);
      const organization = ctx.store.organizations.get(ctx.actor.organizationId);
      if (user === undefined || organization === undefined) {
        throw new QkError('NOT_FOUND', `the stamping credential's user ${ctx.actor.userId} no longer exists`);
      }
      return { organizationId: organization.id, organizationName: organization.name, userId: user.id, username: user.name };
    },
  },
};
