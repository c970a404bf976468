/**
 * MFA policies written from the Policies screen, through main's channels against a running Sandbox: each write asks
 * main's confirmation, which reads the policy in words, and the list reads the result back; a condition that does not
 * parse is refused with its position before anything is stamped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { completed } from '../support/completed-outcome';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';

let bed: DispatchBed;

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-mfa-channels-' });
  await call('sandbox.start', {});
});

afterAll(() => bed.close());

describe('MFA policies from the Policies screen', () => {
  it('creates one for the profile’s own user, lists it in words, changes it, then deletes it, each confirmed in words', async () => {
    const me = await call('approvals.whoami', {});
    const asked = bed.confirmations.length;
    const { mfaPolicyId } = completed(
      await call('policies.mfaCreate', {
        name: 'Signing',
        condition: "activity.action == 'SIGN'",
        steps: [{ any: [{ type: 'AUTHENTICATION_TYPE_API_KEY' }] }],
      }),
    ).result;
    const [creation] = bed.confirmations.slice(asked);
    expect(creation?.reading?.title).toBe('Require authenticators (MFA)');
    expect(creation?.detail).toContain("activity.action == 'SIGN'");
    expect(creation?.detail).toContain('1. API key');
    expect(creation?.detail).toContain(me.username);

    const [listed] = await call('policies.mfaList', {});
    expect(listed).toMatchObject({
      mfaPolicyId,
      mfaPolicyName: 'Signing',
      userId: me.userId,
      order: 0,
      requirement: `need, in order: an API key — for ${me.username}`,
      steps: [{ any: [{ type: 'AUTHENTICATION_TYPE_API_KEY' }] }],
    });

    completed(
      await call('policies.mfaUpdate', {
        userId: me.userId,
        mfaPolicyId,
        changes: {
          name: 'Signing twice',
          steps: [{ any: [{ type: 'AUTHENTICATION_TYPE_API_KEY' }] }, { any: [{ type: 'AUTHENTICATION_TYPE_API_KEY' }] }],
        },
      }),
    );
    expect(bed.confirmations.at(-1)?.detail).toContain('2. API key');
    expect(await call('policies.mfaList', {})).toMatchObject([
      { mfaPolicyId, mfaPolicyName: 'Signing twice', requirement: `need, in order: an API key, then an API key — for ${me.username}` },
    ]);

    completed(await call('policies.mfaDelete', { userId: me.userId, mfaPolicyId }));
    expect(bed.confirmations.at(-1)?.reading?.title).toBe('Delete an MFA policy');
    expect(await call('policies.mfaList', {})).toEqual([]);
  });

  it('refuses a condition that does not parse with its position, before any question or stamp', async () => {
    const asked = bed.confirmations.length;
    const result = await bed.dispatch('policies.mfaCreate', {
      name: 'Broken',
      condition: "activity.action == 'SIGN' &&",
      steps: [{ any: [{ type: 'AUTHENTICATION_TYPE_API_KEY' }] }],
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'POLICY_PARSE_ERROR', message: expect.stringMatching(/^condition: /), details: { field: 'condition' } },
    });
    expect(bed.confirmations.length).toBe(asked);
  });

  it('refuses a user the organization does not have, naming it', async () => {
    const result = await bed.dispatch('policies.mfaCreate', {
      userId: 'no-such-user',
      name: 'Nobody',
      condition: 'true',
      steps: [{ any: [{ type: 'AUTHENTICATION_TYPE_API_KEY' }] }],
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: 'no user no-such-user in this organization' } });
  });
});
