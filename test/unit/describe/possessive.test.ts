import { describe, expect, it } from 'vitest';
import { describeActivity, possessive, type OrganizationLookup } from '../../../src/shared/describe';

describe('possessive', () => {
  it("adds 's, or the apostrophe alone after a final s", () => {
    expect(possessive('Ann')).toBe("Ann's");
    expect(possessive('operators')).toBe("operators'");
    expect(possessive('OPS')).toBe("OPS'");
  });

  it("words a deleted MFA policy's warning for a user whose name ends in s", () => {
    const lookup: OrganizationLookup = {
      users: [{ userId: 'u-1', userName: 'Charles', userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }],
    };
    const description = describeActivity(
      { type: 'ACTIVITY_TYPE_DELETE_MFA_POLICY', intent: { deleteMfaPolicyIntent: { userId: 'u-1', mfaPolicyId: 'mfa-1' } } },
      lookup,
    );
    expect(description.warnings).toContain("Charles' activities this policy matched will no longer wait for its authenticators.");
  });
});
