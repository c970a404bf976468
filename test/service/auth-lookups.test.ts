/**
 * The authentication lookups cache rows between requests; these tests hold it to "exactly as without the cache":
 * every commit is seen by the next request, and nothing written inside a transaction that rolls back survives it.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthLookups } from '../../src/service/auth/lookups';
import { apiKeyCredentialTypeByCurve } from '../../src/service/auth/credentials';
import type { Repositories } from '../../src/service/store';
import { Store } from '../../src/service/store';
import { newKey, startTestService, type TestService } from '../support/service';

let service: TestService | undefined;
let store: Store | undefined;
afterEach(async () => {
  await service?.close();
  await store?.close();
  service = undefined;
  store = undefined;
});

describe('authentication lookups', () => {
  it('see a key stored after it was refused, and refuse it again once it is deleted', async () => {
    service = await startTestService();
    const key = newKey('p256');
    const refused = await service.query('whoami', {}, { key });
    expect(refused.status).toBe(401);
    expect(refused.body.details[0].turnkeyErrorCode).toBe('PUBLIC_KEY_NOT_FOUND');

    const userId = randomUUID();
    const apiKeyId = randomUUID();
    const now = service.clock.now();
    await service.store.transaction((tx) => {
      tx.users.insert({ id: userId, organizationId: service!.info.organizationId, name: 'late joiner', now });
      tx.apiKeys.insert({
        id: apiKeyId,
        organizationId: service!.info.organizationId,
        userId,
        name: 'late key',
        publicKey: key.publicKey,
        credentialType: apiKeyCredentialTypeByCurve.p256,
        expirationSeconds: undefined,
        sessionProfileId: undefined,
        now,
      });
    });
    const accepted = await service.query('whoami', {}, { key });
    expect(accepted.status).toBe(200);
    expect(accepted.body.userId).toBe(userId);

    await service.store.transaction((tx) => tx.connection.run('DELETE FROM api_keys WHERE id = :apiKeyId', { apiKeyId }));
    const refusedAgain = await service.query('whoami', {}, { key });
    expect(refusedAgain.status).toBe(401);
    expect(refusedAgain.body.details[0].turnkeyErrorCode).toBe('PUBLIC_KEY_NOT_FOUND');
  });

  it('remember nothing read inside a transaction, so a rolled-back row is not found afterwards', async () => {
    store = Store.open(':memory:');
    const organizationId = randomUUID();
    let writer: Repositories | undefined;
    await expect(
      store.transaction((tx) => {
        writer = tx;
        tx.organizations.insert({ id: organizationId, name: 'rolled back', rootQuorumThreshold: 1, now: 1 });
        expect(AuthLookups.current(tx).organization(organizationId)?.name).toBe('rolled back');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(AuthLookups.current(writer!).organization(organizationId)).toBeUndefined();
    expect(AuthLookups.current(store.read).organization(organizationId)).toBeUndefined();
  });

  it('hand out frozen records, so no caller can change what later requests read', async () => {
    store = Store.open(':memory:');
    const organizationId = randomUUID();
    await store.transaction((tx) => tx.organizations.insert({ id: organizationId, name: 'frozen', rootQuorumThreshold: 1, now: 1 }));
    const organization = AuthLookups.current(store.read).organization(organizationId)!;
    expect(Object.isFrozen(organization)).toBe(true);
    expect(AuthLookups.current(store.read).organization(organizationId)).toBe(organization);
  });

  it('keep their rows across writes to other tables, and see a commit to their own table at once', async () => {
    store = Store.open(':memory:');
    const organizationId = randomUUID();
    await store.transaction((tx) => tx.organizations.insert({ id: organizationId, name: 'before', rootQuorumThreshold: 1, now: 1 }));
    const cached = AuthLookups.current(store.read).organization(organizationId)!;
    await store.transaction((tx) => tx.users.insert({ id: randomUUID(), organizationId, name: 'elsewhere', now: 2 }));
    expect(AuthLookups.current(store.read).organization(organizationId)).toBe(cached);

    let readWhileOpen: string | undefined;
    await store.transaction((tx) => {
      tx.organizations.rename(organizationId, 'after', 3);
      // The read connection sees only what is committed; what it remembers now must not outlive the commit.
      readWhileOpen = AuthLookups.current(store!.read).organization(organizationId)?.name;
    });
    expect(readWhileOpen).toBe('before');
    expect(AuthLookups.current(store.read).organization(organizationId)?.name).toBe('after');
  });

  it('see rows a deletion removed from other tables by cascade', async () => {
    store = Store.open(':memory:');
    const organizationId = randomUUID();
    const userId = randomUUID();
    const key = newKey('p256');
    await store.transaction((tx) => {
      tx.organizations.insert({ id: organizationId, name: 'cascade', rootQuorumThreshold: 1, now: 1 });
      tx.users.insert({ id: userId, organizationId, name: 'leaving', now: 1 });
      tx.apiKeys.insert({
        id: randomUUID(),
        organizationId,
        userId,
        name: 'key',
        publicKey: key.publicKey,
        credentialType: apiKeyCredentialTypeByCurve.p256,
        expirationSeconds: undefined,
        sessionProfileId: undefined,
        now: 1,
      });
    });
    expect(AuthLookups.current(store.read).apiKeysByPublicKey(key.publicKey)).toHaveLength(1);
    await store.transaction((tx) => tx.connection.run('DELETE FROM users WHERE id = :userId', { userId }));
    expect(AuthLookups.current(store.read).apiKeysByPublicKey(key.publicKey)).toHaveLength(0);
  });
});
