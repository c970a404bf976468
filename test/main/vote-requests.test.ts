/**
 * What one vote costs: on the Approvals screen, a click on Approve makes the window call `approvals.approve` and then
 * re-read what it shows (`approvals.pending`, `inbox.list`): three IPC calls. Main reads the organization once per
 * profile and keeps it (read-model.ts), so the vote needs, of the service, the activity voted on, the vote itself,
 * and the queue read again afterwards. Counted with a recording fetch under the real composition root. (A vote that
 * lets an organization change run makes the next reading read the organization anew: 4 requests more.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ETHEREUM_ACCOUNT } from '../support/valid-inputs';

let bed: DispatchBed;
/** The operation of every request a profile's client sent, in order. */
const sent: string[] = [];
const recordingFetch: typeof fetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  sent.push(new URL(url).pathname.split('/').at(-1) ?? url);
  return fetch(input, init);
};

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

let fingerprint: string;

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-vote-requests-', fetch: recordingFetch });
  await call('sandbox.start', {});
  bed.answerConfirmations(true);
  await call('keys.generateApiKey', { name: 'bea' });
  const bea = await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } });
  if (bea.state !== 'completed') throw new Error(`Bea is ${bea.state}`);
  await call('keys.generateApiKey', { name: 'cy' });
  const cy = await call('users.create', { userName: 'Cy', apiKey: { kind: 'keychain', keyName: 'cy' } });
  if (cy.state !== 'completed') throw new Error(`Cy is ${cy.state}`);
  const root = await call('approvals.whoami', {});
  // Three of three: Bea's approval counts and the wallet still waits for Cy's.
  await call('organization.updateRootQuorum', { userIds: [root.userId, bea.result.userId, cy.result.userId], threshold: 3 });
  const sandbox = (await bed.services.profiles.getActive())!;
  const { id: _id, name: _name, apiKeyName: _key, ...rest } = sandbox;
  const beaProfile = await bed.services.profiles.add({ ...rest, name: 'Bea', apiKeyName: 'bea' });
  const proposed = await call('wallets.create', { name: 'Reserve', accounts: [ETHEREUM_ACCOUNT] });
  if (proposed.state !== 'consensus-needed') throw new Error(`the wallet creation is ${proposed.state}`);
  fingerprint = proposed.activity.fingerprint;
  await bed.services.profiles.setActive(beaProfile.id);
});

afterAll(() => bed.close());

describe('one vote on the Approvals screen', () => {
  it('costs at most 4 service requests over its 3 IPC calls, and reads nothing twice', async () => {
    // The screen is open: it read the queue, and so the organization, before the click.
    await call('approvals.pending', {});
    sent.length = 0;
    const after = await call('approvals.approve', { fingerprint });
    expect(after).toMatchObject({ status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED', approvals: 2 });
    await call('approvals.pending', {});
    await call('inbox.list', {});
    expect(sent.length).toBeLessThanOrEqual(4);
    // The activity voted on, the vote, and the queue read again; the proof of the enclave that answered is read once
    // per enclave, and it was read before.
    expect(sent.toSorted()).toEqual(['approve_activity', 'list_activities', 'list_activities']);
  });
});
