/**
 * `sandboxGlobalSetup` (docs/sandbox.md#in-a-test-runners-global-setup), in-process: it starts a seeded Sandbox, puts
 * its base URL, organization and root key pair into process.env, where Turnkey's client finds what it needs, and its
 * teardown stops the Sandbox and takes the variables back out. test/service/package.test.ts runs it from the packed
 * package as vitest's globalSetup.
 */
import { TurnkeyClient } from '@turnkey/http';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxGlobalSetup } from '../../src/service/sandbox';
import { copySeedFixture, type SeedCopy } from '../support/seed';

const VARIABLES = ['TURNKEY_API_BASE_URL', 'TURNKEY_ORGANIZATION_ID', 'TURNKEY_API_PUBLIC_KEY', 'TURNKEY_API_PRIVATE_KEY', 'QUORUMKEY_SANDBOX'];
const copies: SeedCopy[] = [];
afterEach(() => {
  for (const copy of copies.splice(0)) copy.remove();
});

describe('sandboxGlobalSetup', () => {
  it("exports the seeded Sandbox's base URL, organization and root key pair, which stamp for its root user; its teardown stops it", async () => {
    const copy = copySeedFixture('one-root.yaml');
    copies.push(copy);
    const teardown = await sandboxGlobalSetup({ seed: copy.file, log: () => {} });
    const env = { ...process.env };
    let stopped = false;
    try {
      expect(env.TURNKEY_API_PUBLIC_KEY).toBe(copy.key('dana.key.json').publicKey);
      const info = JSON.parse(env.QUORUMKEY_SANDBOX!) as { baseUrl: string; organizationId: string; rootUserId: string; rootApiKey?: unknown };
      expect([info.baseUrl, info.organizationId, info.rootApiKey]).toEqual([env.TURNKEY_API_BASE_URL, env.TURNKEY_ORGANIZATION_ID, undefined]);
      const client = new TurnkeyClient(
        { baseUrl: env.TURNKEY_API_BASE_URL! },
        new ApiKeyStamper({ apiPublicKey: env.TURNKEY_API_PUBLIC_KEY!, apiPrivateKey: env.TURNKEY_API_PRIVATE_KEY! }),
      );
      expect(await client.getWhoami({ organizationId: env.TURNKEY_ORGANIZATION_ID! })).toMatchObject({ userId: info.rootUserId, username: 'Dana' });
      await teardown();
      stopped = true;
      expect(VARIABLES.filter((name) => name in process.env)).toEqual([]);
      await expect(fetch(`${env.TURNKEY_API_BASE_URL}/health`)).rejects.toThrow();
    } finally {
      if (!stopped) await teardown();
    }
  });

  it('exports the key pair it generated for a Sandbox without a seed', async () => {
    const teardown = await sandboxGlobalSetup({ log: () => {} });
    try {
      const client = new TurnkeyClient(
        { baseUrl: process.env.TURNKEY_API_BASE_URL! },
        new ApiKeyStamper({ apiPublicKey: process.env.TURNKEY_API_PUBLIC_KEY!, apiPrivateKey: process.env.TURNKEY_API_PRIVATE_KEY! }),
      );
      expect((await client.getWhoami({ organizationId: process.env.TURNKEY_ORGANIZATION_ID! })).organizationId).toBe(
        process.env.TURNKEY_ORGANIZATION_ID,
      );
    } finally {
      await teardown();
    }
  });
});
