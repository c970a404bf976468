/**
 * Issue 35, item 8g: before the delete-user dialog offers a vote, main says whether its stamp check would refuse the
 * deletion (the user this profile signs as, a member of the root quorum), and why, through `dispatch` over the real
 * composition root and the Sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';

let bed: DispatchBed;
const ids: Record<string, string> = {};

async function createUser(userName: string): Promise<string> {
  await bed.call('keys.generateApiKey', { name: userName });
  const made = await bed.call('users.create', { userName, apiKey: { kind: 'keychain', keyName: userName } });
  if (made.state !== 'completed') throw new Error(`users.create is ${made.state}`);
  return made.result.userId;
}

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-user-deletion-' });
  await bed.call('sandbox.start', {});
  ids['root'] = (await bed.call('approvals.whoami', {})).userId;
  ids['Bea'] = await createUser('Bea');
  ids['Cy'] = await createUser('Cy');
  await bed.call('organization.updateRootQuorum', { userIds: [ids['root'], ids['Bea']], threshold: 1 });
});

afterAll(() => bed.close());

describe('users.deletionCheck', () => {
  it('names the refusal main’s stamp check would give, and nothing for a deletion it would ask about', async () => {
    expect(await bed.call('users.deletionCheck', { userId: ids['Bea']! })).toEqual({ refusal: 'it deletes Bea, a member of the root quorum' });
    expect((await bed.call('users.deletionCheck', { userId: ids['root']! })).refusal).toMatch(/^it deletes .+, the user profile "Sandbox" signs as$/);
    expect(await bed.call('users.deletionCheck', { userId: ids['Cy']! })).toEqual({});
  });

  it('agrees with the stamp check: the deletion it names is refused before anyone is asked', async () => {
    const asked = bed.confirmations.length;
    expect(await bed.dispatch('users.delete', { userIds: [ids['Bea']!] })).toMatchObject({
      ok: false,
      error: { code: 'FAILED_PRECONDITION', message: expect.stringContaining('it deletes Bea, a member of the root quorum') },
    });
    expect(bed.confirmations.length).toBe(asked);
  });
});
