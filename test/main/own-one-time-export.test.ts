/**
 * Issue 35, item 6: an export this desktop asks for, sealed to a one-time key it makes for it, is this desktop's
 * own: main's confirmation before the stamp and the History's reading while it waits both say so, never "a key this
 * desktop does not hold" or "an unknown key". Through `dispatch` over the real composition root, the OS keychain (run
 * under test/support/with-secret-service.sh) and the Sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { ETHEREUM_ACCOUNT } from '../support/valid-inputs';

let bed: DispatchBed;
let walletId: string;

beforeAll(async () => {
  bed = await startDispatchBed({ dataDirPrefix: 'qk-own-export-' });
  await bed.call('sandbox.start', {});
  const wallet = await bed.call('wallets.create', { name: 'Treasury', accounts: [ETHEREUM_ACCOUNT] });
  if (wallet.state !== 'completed') throw new Error(`wallets.create is ${wallet.state}`);
  walletId = wallet.result.walletId;
  await bed.call('keys.generateApiKey', { name: 'bea' });
  const made = await bed.call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } });
  if (made.state !== 'completed') throw new Error(`users.create is ${made.state}`);
  const { userId: rootUserId } = await bed.call('approvals.whoami', {});
  // Two of two: the export waits for Bea, so its one-time key is held.
  await bed.call('organization.updateRootQuorum', { userIds: [rootUserId, made.result.userId], threshold: 2 });
});

afterAll(() => bed.close());

describe('an export sealed to the one-time key this desktop made for it', () => {
  it('is named as this desktop’s key on the confirmation and in the History', async () => {
    const waiting = await bed.call('exports.reveal', { subject: { kind: 'wallet', walletId }, target: { kind: 'ephemeral' } });
    if (waiting.state !== 'consensus-needed') throw new Error(`the export is ${waiting.state}`);
    const [held] = await bed.services.keychain.listOneTimeKeys();
    expect(held?.activityId).toBe(waiting.activity.id);

    const reading = bed.confirmations.at(-1)!.reading!;
    expect(reading.summary).toBe('Treasury to a one-time key this desktop made for it');
    const sealedTo = reading.facts.find((fact) => fact.startsWith('Sealed to: '));
    expect(sealedTo).toMatch(/^Sealed to: a one-time key this desktop made for it \(sha256:[0-9a-f]{64}\)$/);
    expect(bed.confirmations.at(-1)!.detail).not.toContain('does not hold');

    const [listed] = (await bed.call('activities.list', {})).filter((activity) => activity.id === waiting.activity.id);
    expect(listed?.reading.summary).toBe('Treasury to the one-time key this desktop holds for it');
    expect(listed?.reading.exports?.target.localKeyName).toBe('the one-time key this desktop holds for it');
  });

  it('names the key as made for this export only while that export is being submitted', async () => {
    const [held] = await bed.services.keychain.listOneTimeKeys();
    const { exporter } = await bed.services.active.services();
    // Once the service answered, the keychain holds it (read above); the exporter no longer vouches for it.
    expect(exporter.isSealingToOneTimeKey(held!.publicKey)).toBe(false);
  });
});
