/**
 * The built CLI's `users credentials` and `users move-to-token` against a real Sandbox and a SoftHSM2 token: the
 * reading the app shows, the move of a profile from its keychain key to a token key (the profile then stamps with the
 * token key and the old key is gone from the service), and a move the lock-out guard stops, which changes nothing.
 * Skipped, saying so, only where softhsm2 is not installed (.ci/run installs it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initSoftHsmToken, SOFTHSM_MODULE, softhsmPresent } from '../support/softhsm';
import { startTestService, type ApiPublicKey, type TestService } from '../support/service';
import { runCli } from './helpers';

const TOKEN_LABEL = 'qk-move';
const PIN = '246813';
const TOKEN_FLAGS = ['--pkcs11-module', SOFTHSM_MODULE, '--pkcs11-token', TOKEN_LABEL];
const KEYCHAIN_KEY = 'move-ops';
const PROFILE = 'ops';
const BEA_KEY = 'move-bea';

interface Reading {
  userId: string;
  userName: string;
  credentials: {
    id: string;
    name: string;
    kind: string;
    kindInWords: string;
    profiles: string[];
    working: boolean;
    refusal?: string;
    leaves: string;
  }[];
}

let dataDir: string;
let removeToken: () => Promise<void>;
let service: TestService<ApiPublicKey>;

function cli(args: string[], input?: string) {
  process.env.QK_PKCS11_PIN = PIN;
  try {
    return runCli(dataDir, args, input === undefined ? {} : { input });
  } finally {
    delete process.env.QK_PKCS11_PIN;
  }
}

async function credentialsOf(user: string): Promise<Reading> {
  const listed = await cli(['users', 'credentials', user, '--json']);
  expect(listed.stderr).toBe('');
  return JSON.parse(listed.stdout) as Reading;
}

async function profiles(): Promise<{ name: string; tokenKey?: { keyLabel: string; publicKey: string } }[]> {
  return JSON.parse((await cli(['profiles', 'list'])).stdout) as { name: string; tokenKey?: { keyLabel: string; publicKey: string } }[];
}

beforeAll(async () => {
  if (!softhsmPresent) return;
  dataDir = await mkdtemp(join(tmpdir(), 'qk-cli-users-'));
  removeToken = await initSoftHsmToken(TOKEN_LABEL, PIN);
  const generated = await cli(['keys', 'generate', KEYCHAIN_KEY]);
  expect(generated.code).toBe(0);
  const { publicKey } = JSON.parse(generated.stdout) as { publicKey: string };
  service = await startTestService({ rootPublicKey: { publicKey, curve: 'p256' } });
  const { baseUrl, organizationId } = service.info;
  const added = await cli(
    ['profiles', 'add', '--name', PROFILE, '--base-url', baseUrl, '--organization', organizationId, '--api-key', KEYCHAIN_KEY],
    'yes\n',
  );
  expect(added.code).toBe(0);
  expect((await cli(['profiles', 'use', PROFILE])).code).toBe(0);
  for (const label of ['desk', 'bea-desk', 'cy-desk']) expect((await cli(['keys', 'generate', label, '--pkcs11', ...TOKEN_FLAGS])).code).toBe(0);
});

afterAll(async () => {
  if (!softhsmPresent) return;
  await service.close();
  await removeToken();
  await rm(dataDir, { recursive: true, force: true });
});

describe.skipIf(!softhsmPresent)("the CLI's users credentials and move to a token key", () => {
  it("lists a user's credentials as the app reads them, by id or by name, with the guard's refusal", async () => {
    const { rootUserId } = service.info;
    const reading = await credentialsOf(rootUserId);
    expect(reading.credentials).toEqual([
      {
        id: expect.any(String),
        name: expect.any(String),
        kind: 'keychain-key',
        kindInWords: `API key in this desktop's keychain ("${KEYCHAIN_KEY}")`,
        profiles: [PROFILE],
        working: true,
        refusal: expect.stringMatching(new RegExp(`the key profile "${PROFILE}" signs with: QuorumKey could no longer act for that profile$`)),
        leaves: 'no working credential',
      },
    ]);

    const text = await cli(['users', 'credentials', reading.userName]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Credentials of ${reading.userName} (user ${rootUserId}):`);
    expect(text.stdout).toContain(
      `  kind: API key in this desktop's keychain ("${KEYCHAIN_KEY}")\n  signs for: ${PROFILE}\n  if removed: refused: it removes`,
    );

    const unknown = await cli(['users', 'credentials', 'nobody-here']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('NOT_FOUND: no user of this organization has the id or name "nobody-here"');
  });

  it('moves the profile to the token key in one run: added, switched, the old key removed after "yes"; then it stamps with it', async () => {
    const { rootUserId, organizationId } = service.info;
    const [oldKey] = (await credentialsOf(rootUserId)).credentials;

    const moved = await cli(['users', 'move-to-token', rootUserId, ...TOKEN_FLAGS, '--pkcs11-key', 'desk'], 'yes\n');
    expect(moved.code).toBe(0);
    // Each step restated on stderr before it is sent: the new key, the profile's switch, then the removal, asked.
    const steps = [
      'Submit: Add API keys?',
      'Sign requests for a profile with another key or organization?',
      'Submit: Remove API keys?',
      'Type yes to continue: ',
    ];
    const at = steps.map((step) => moved.stderr.indexOf(step));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // The removal is stamped by the profile's new key: its confirmation names the token key and the body's fingerprint.
    expect(moved.stderr.slice(at[2])).toMatch(
      new RegExp(
        `Signed with: PKCS#11 token "${TOKEN_LABEL}" key "desk" \\(CKA_ID [0-9a-f]{32}\\)\nIt signs the body with fingerprint: sha256:[0-9a-f]{64}`,
      ),
    );
    expect(JSON.parse(moved.stdout)).toMatchObject({
      userId: rootUserId,
      tokenKey: { added: true },
      profilesSwitched: [PROFILE],
      removed: { apiKeyId: oldKey!.id, name: oldKey!.name, state: 'completed' },
    });

    const after = await credentialsOf(rootUserId);
    expect(after.credentials).toEqual([
      expect.objectContaining({
        kind: 'token-key',
        name: `desk on ${TOKEN_LABEL}`,
        kindInWords: `API key on hardware token "${TOKEN_LABEL}" (key "desk") of this desktop`,
        profiles: [PROFILE],
      }),
    ]);
    expect((await profiles()).find((profile) => profile.name === PROFILE)?.tokenKey?.keyLabel).toBe('desk');

    const whoami = await cli(['--profile', PROFILE, 'request', '--path', '/public/v1/query/whoami', '--body', JSON.stringify({ organizationId })]);
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ organizationId, userId: rootUserId });
  });

  it('keeps the old key when the removal is not confirmed, and a second run with --remove finishes the move', async () => {
    const generated = JSON.parse((await cli(['keys', 'generate', BEA_KEY])).stdout) as { publicKey: string };
    await service.addUser({ name: 'Bea', key: { publicKey: generated.publicKey, curve: 'p256' } });
    const { baseUrl, organizationId } = service.info;
    expect(
      (await cli(['profiles', 'add', '--name', 'bea', '--base-url', baseUrl, '--organization', organizationId, '--api-key', BEA_KEY], 'yes\n')).code,
    ).toBe(0);
    const [oldKey] = (await credentialsOf('Bea')).credentials;
    expect(oldKey).toMatchObject({ kind: 'keychain-key', profiles: ['bea'] });

    // Acting as the root user's profile, for Bea, whose own profile is the one switched.
    const declined = await cli(['users', 'move-to-token', 'Bea', ...TOKEN_FLAGS, '--pkcs11-key', 'bea-desk'], 'no\n');
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain(
      `USER_DECLINED: Submitting "Remove API keys" was declined in QuorumKey's confirmation; nothing was stamped or sent. The token key is an API key of Bea and "bea" now signs with it; API key "${oldKey!.name}" stays.`,
    );
    expect((await credentialsOf('Bea')).credentials.map((credential) => [credential.kind, credential.profiles])).toEqual([
      ['keychain-key', []],
      ['token-key', ['bea']],
    ]);

    const finished = await cli(['users', 'move-to-token', 'Bea', ...TOKEN_FLAGS, '--pkcs11-key', 'bea-desk', '--remove', oldKey!.name], 'yes\n');
    expect(finished.code).toBe(0);
    expect(finished.stderr).toContain(`Token key "bea-desk" is already API key "bea-desk on ${TOKEN_LABEL}" of Bea: not added again.`);
    expect(JSON.parse(finished.stdout)).toMatchObject({
      tokenKey: { added: false },
      profilesSwitched: [],
      removed: { apiKeyId: oldKey!.id, state: 'completed' },
    });
    expect((await credentialsOf('Bea')).credentials.map((credential) => credential.kind)).toEqual(['token-key']);
  });

  it("stops a move whose removal the lock-out guard refuses (a root quorum member's only key), leaving its credentials and profiles as they were", async () => {
    const { userId: cyId } = await service.addUser({ name: 'Cy' });
    await service.setRootQuorum(2, [service.info.rootUserId, cyId]);
    const before = await credentialsOf('Cy');
    const [cyKey] = before.credentials;
    expect(cyKey).toMatchObject({
      kind: 'api-key',
      refusal: 'it removes the last credential of Cy, a member of the root quorum (2 of 2), who could never vote again',
    });
    const profilesBefore = await profiles();

    const noOldKey = await cli(['users', 'move-to-token', 'Cy', ...TOKEN_FLAGS, '--pkcs11-key', 'cy-desk']);
    expect(noOldKey.code).toBe(2);
    expect(noOldKey.stderr).toContain('no keychain key of Cy signs for a profile of this desktop; name the API key to replace with --remove');

    const refused = await cli(['users', 'move-to-token', 'Cy', ...TOKEN_FLAGS, '--pkcs11-key', 'cy-desk', '--remove', cyKey!.name], 'yes\n');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `no profile was switched and API key "${cyKey!.name}" stays (QuorumKey refuses removing it now: ${cyKey!.refusal})`,
    );
    expect(refused.stderr).not.toContain('Type yes');
    expect(await credentialsOf('Cy')).toEqual(before);
    expect(await profiles()).toEqual(profilesBefore);
  });
});
