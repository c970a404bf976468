/**
 * The organization a handler is given (`ctx.organization`) is remembered between activities while the organizations
 * table is unchanged (activities/pipeline.ts): a rename must reach the next activity, including one approved after it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

async function sessionOrganizationName(): Promise<string> {
  t.clock.advance(1);
  const reply = await t.submit('create_read_only_session', 'ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION', {});
  expect(reply.body.activity?.status, JSON.stringify(reply.body)).toBe('ACTIVITY_STATUS_COMPLETED');
  return reply.body.activity.result.createReadOnlySessionResult.organizationName;
}

async function rename(organizationName: string): Promise<void> {
  t.clock.advance(1);
  const reply = await t.submit('update_organization_name', 'ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME', { organizationName });
  expect(reply.body.activity?.status, JSON.stringify(reply.body)).toBe('ACTIVITY_STATUS_COMPLETED');
}

describe('the organization a handler reads', () => {
  it('is the renamed one in the next activity, and in one approved after the rename', async () => {
    const before = await sessionOrganizationName();
    expect(await sessionOrganizationName()).toBe(before);
    await rename('First rename');
    expect(await sessionOrganizationName()).toBe('First rename');

    const bob = await t.addUser({ name: 'bob' });
    await t.setRootQuorum(2, [t.info.rootUserId, bob.userId]);
    t.clock.advance(1);
    const waiting = await t.submit('create_read_only_session', 'ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION', {});
    expect(waiting.body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    // Straight through the store, as a write by another path would: the approval's handler must see it.
    await t.store.transaction((tx) => tx.organizations.rename(t.info.organizationId, 'Second rename', t.clock.now()));
    const approved = await t.submit(
      'approve_activity',
      'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      { fingerprint: waiting.body.activity.fingerprint },
      { key: bob.key },
    );
    expect(approved.body.activity.status, JSON.stringify(approved.body)).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(approved.body.activity.result.createReadOnlySessionResult.organizationName).toBe('Second rename');
  });
});
