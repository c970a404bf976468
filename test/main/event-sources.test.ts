/**
 * Where main's events come from, over the real composition root, the OS keychain (run under
 * test/support/with-secret-service.sh) and the Sandbox: the Sandbox's state, profile changes, the lock, and every
 * activity main submits (a proposal, a vote), each reported once it happened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEvent } from '../../src/shared/ipc/events';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';

let bed: DispatchBed;
const events: AppEvent[] = [];

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-events-' });
  bed.services.events.subscribe((event) => events.push(event));
});

afterAll(() => bed.close());

/**
 * The events emitted while `action` ran, but the `requests` events every service request brings (main's bookkeeping
 * of what it waits on, test/main/in-flight.test.ts): these tests are about what happened, not how it was asked.
 */
async function during(action: () => Promise<unknown>): Promise<AppEvent[]> {
  const from = events.length;
  await action();
  return events.slice(from).filter((event) => event.type !== 'requests');
}

describe("main's event sources", () => {
  it('reports the Sandbox starting and running, and its profile added and made active', async () => {
    const seen = await during(() => bed.call('sandbox.start', {}));
    expect(seen.filter((event) => event.type === 'sandbox')).toEqual([
      { type: 'sandbox', state: 'starting' },
      { type: 'sandbox', state: 'running' },
    ]);
    expect(seen.filter((event) => event.type === 'profile')).toEqual([
      { type: 'profile', change: 'added' },
      { type: 'profile', change: 'active' },
    ]);
  });

  it('reports a proposal and the activity it created, with its status', async () => {
    const seen = await during(() => bed.call('policies.create', { name: 'never', effect: 'EFFECT_ALLOW', condition: 'false' }));
    expect(seen).toEqual([
      {
        type: 'activity',
        change: 'created',
        organizationId: expect.any(String),
        activityId: expect.any(String),
        status: 'ACTIVITY_STATUS_COMPLETED',
        organizationChanged: true,
      },
    ]);
  });

  it('reports a profile added, edited and removed, and nothing for a change that was declined', async () => {
    await bed.call('keys.generateApiKey', { name: 'events-key' });
    const { organizationId } = (await bed.services.profiles.getActive())!;
    const fields = { name: 'Other', kind: 'hosted' as const, baseUrl: 'https://api.turnkey.com', organizationId, apiKeyName: 'events-key' };
    // The person declines the confirmation: nothing was saved, so nothing is reported.
    bed.answerConfirmations(false);
    expect(await during(() => bed.dispatch('profiles.add', fields))).toEqual([]);
    bed.answerConfirmations(true);
    const { profiles } = bed.services;
    let other = { id: '' };
    expect(await during(async () => (other = await profiles.add(fields)))).toEqual([{ type: 'profile', change: 'added' }]);
    expect(await during(() => profiles.update(other.id, { name: 'Other 2' }))).toEqual([{ type: 'profile', change: 'edited' }]);
    expect(await during(() => profiles.remove(other.id))).toEqual([{ type: 'profile', change: 'removed' }]);
  });

  it('reports the lock and the unlock once each', async () => {
    expect(await during(() => bed.call('app.lock', {}))).toEqual([{ type: 'lock', locked: true }]);
    expect(await during(() => bed.call('app.lock', {}).catch(() => undefined))).toEqual([]);
    expect(await during(() => bed.call('app.unlock', {}))).toEqual([{ type: 'lock', locked: false }]);
  });

  it('reports the Sandbox stopping', async () => {
    expect(await during(() => bed.call('sandbox.stop', {}))).toEqual([{ type: 'sandbox', state: 'stopped' }]);
  });
});
