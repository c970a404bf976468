/**
 * Issue 35, item 8h: stopping the Sandbox that profiles send their requests to is asked first on main's surface,
 * naming them; declined, it keeps running. Through `dispatch` over the real composition root and the Sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';

let bed: DispatchBed;

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-sandbox-stop-' });
  await bed.call('sandbox.start', {});
  await bed.call('keys.generateApiKey', { name: 'bea' });
  // A hosted profile pointed at the Sandbox's address: it stops working with it.
  await bed.addSandboxProfile('Bea', 'bea');
});

afterAll(() => bed.close());

describe('sandbox.stop', () => {
  it('asks first, naming the profiles that use it; declined, the Sandbox keeps running', async () => {
    bed.answerConfirmations(false);
    expect(await bed.dispatch('sandbox.stop', {})).toMatchObject({ ok: false, error: { code: 'USER_DECLINED' } });
    const asked = bed.confirmations.at(-1)!;
    expect(asked.title).toBe('Stop the Sandbox?');
    expect(asked.message).toBe('Profiles "Sandbox", "Bea" use it: their requests fail until the Sandbox runs again.');
    expect(asked.goAhead).toBe('Stop the Sandbox');
    expect((await bed.call('sandbox.status', {})).running).toBe(true);

    bed.answerConfirmations(true);
    expect((await bed.call('sandbox.stop', {})).running).toBe(false);
    // Stopped already: nothing to ask.
    const count = bed.confirmations.length;
    expect((await bed.call('sandbox.stop', {})).running).toBe(false);
    expect(bed.confirmations.length).toBe(count);
  });
});
