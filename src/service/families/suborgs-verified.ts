/**
 * list_verified_suborgs (docs/service.md#organizations): ids of the sub-organizations of a parent that hold a user
 * whose email or phone number was verified by an OTP (signup with a verification token, or an OTP login), filtered by
 * contact.
 */
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import { pageSize } from './activities';

/** filterType → the OTP type whose verification counts. */
const otpTypeByFilter: Record<string, string> = { EMAIL: 'OTP_TYPE_EMAIL', PHONE_NUMBER: 'OTP_TYPE_SMS' };

function invalid(field: string, problem: string): QkError {
  return new QkError('REQUEST_INVALID', `${field} ${problem}`, { issues: [{ path: field, message: problem }] });
}

export const verifiedSubOrganizationsFamily: Family = {
  queries: {
    list_verified_suborgs(ctx, request) {
      const { filterType, filterValue, paginationOptions } = request;
      if (filterType !== undefined && otpTypeByFilter[filterType] === undefined) {
        throw invalid('filterType', `must be EMAIL or PHONE_NUMBER, got "${filterType}"`);
      }
      if (filterValue !== undefined && filterType === undefined) throw invalid('filterValue', 'needs a filterType (EMAIL or PHONE_NUMBER)');
      const limit = pageSize(paginationOptions?.limit);
      const position = (cursor: string | undefined, field: string): number | undefined => {
        if (cursor === undefined) return undefined;
        const found = ctx.store.verifications.organizationPosition(ctx.organizationId, cursor);
        if (found === undefined) throw invalid(`paginationOptions.${field}`, `${cursor} is not a sub-organization of ${ctx.organizationId}`);
        return found;
      };
      const after = position(paginationOptions?.after, 'after');
      const before = position(paginationOptions?.before, 'before');
      const organizationIds = ctx.store.verifications.verifiedSubOrganizations({
        parentId: ctx.organizationId,
        ...(filterType === undefined ? {} : { otpType: otpTypeByFilter[filterType]! }),
        ...(filterValue === undefined ? {} : { contact: filterValue }),
        limit,
        ...(after === undefined ? {} : { after }),
        ...(before === undefined ? {} : { before }),
      });
      return { organizationIds };
    },
  },
};
