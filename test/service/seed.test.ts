/**
 * Seed files (docs/sandbox.md#seed-files): bad files refused with the path of the bad field and nothing written;
 * key files generated once (mode 0600) and checked when read; a database starts again only with its own seed.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { startService } from '../../src/service';
import { userIdsNamedBy } from '../../src/service/seed/consensus-users';
import { loadSeedFile, writeKeyFiles } from '../../src/service/seed/file';
import { seedChanges } from '../../src/service/seed/kept';
import { checkPolicyExpression } from '../../src/shared/policy';
import { Store } from '../../src/service/store';
import { generateApiKeyPair } from '../../src/shared/crypto/keys';
import { rejection } from '../support/assertions';
import { copySeedFixture, type SeedCopy } from '../support/seed';

const copies: SeedCopy[] = [];
afterEach(() => {
  for (const copy of copies.splice(0)) copy.remove();
});

function fixture(): SeedCopy {
  const copy = copySeedFixture('two-of-two.yaml');
  copies.push(copy);
  return copy;
}

/** The fixture with `change` applied to its parsed document, written back beside the original copy. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a document edited field by field
function editedSeed(change: (document: any) => void): SeedCopy {
  const copy = fixture();
  const document = parseYaml(readFileSync(copy.file, 'utf8'));
  change(document);
  writeFileSync(copy.file, stringifyYaml(document));
  return copy;
}

async function start(seed: string, db = ':memory:') {
  return startService({ db, port: 0, seed, log: () => undefined });
}

describe('bad seed files', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  const cases: [string, (document: any) => void, RegExp][] = [
    ['an unknown field', (d) => void (d.organization.users[1].nickname = 'bobby'), /organization\.users\[1\]\.nickname: unknown field/],
    ['a missing field', (d) => void delete d.organization.rootQuorum, /organization\.rootQuorum: /],
    [
      'an id that is not a UUID',
      (d) => void (d.organization.wallets[0].walletId = 'treasury'),
      /organization\.wallets\[0\]\.walletId: must be a UUID/,
    ],
    [
      'a key with neither publicKey nor keyFile',
      (d) => void delete d.organization.users[0].apiKeys[0].keyFile,
      /organization\.users\[0\]\.apiKeys\[0\]\.publicKey: give exactly one of publicKey and keyFile/,
    ],
    [
      'a public key that is no point',
      (d) => void (d.organization.users[0].apiKeys[0] = { apiKeyName: 'x', publicKey: '02' + 'ff'.repeat(32) }),
      /organization\.users\[0\]\.apiKeys\[0\]\.publicKey: .*not a valid p256 key/,
    ],
    [
      'a quorum member who is not a user',
      (d) => void (d.organization.rootQuorum.userNames = ['Alice', 'Mallory']),
      /organization\.rootQuorum\.userNames\[1\]: no user named "Mallory"/,
    ],
    [
      'a threshold above the members',
      (d) => void (d.organization.subOrganizations[0].rootQuorum.threshold = 2),
      /organization\.subOrganizations\[0\]\.rootQuorum\.threshold: 2 exceeds the 1 quorum member/,
    ],
    [
      'one id given twice',
      (d) => void (d.organization.subOrganizations[0].organizationId = d.organization.organizationId),
      /organization\.subOrganizations\[0\]\.organizationId: id .* is already given to organization\.organizationId/,
    ],
    [
      'a path of the wrong curve',
      (d) => void (d.organization.wallets[0].accounts[1].path = "m/44'/501'/0'/0"),
      /organization\.wallets\[0\]: accounts\[1\]: /,
    ],
    [
      'a policy that does not parse',
      (d) => void (d.organization.policies[0].condition = "activity.type == 'x"),
      /organization\.policies\[0\]\.condition: /,
    ],
    ['two users of one name', (d) => void (d.organization.users[1].userName = 'Alice'), /organization\.users\[1\]\.userName: "Alice" is taken/],
    [
      'a consensus naming a user id no user of the seed has (issue 37)',
      (d) =>
        void (d.organization.policies[0].consensus =
          "approvers.all(u, u.id in ['66666666-7777-4888-8999-aaaaaaaaaaaa', '99999999-0000-4000-8000-000000000000'])"),
      /organization\.policies\[0\]\.consensus: policy "Bob signs alone" names user 99999999-0000-4000-8000-000000000000, but no user in this seed has that userId/,
    ],
    [
      "a consensus naming another organization's user (issue 37)",
      (d) => {
        d.organization.subOrganizations[0].users[0].userId = '77777777-0000-4000-8000-000000000000';
        d.organization.policies[0].consensus = "credentials.any(c, c.user_id == '77777777-0000-4000-8000-000000000000')";
      },
      /organization\.policies\[0\]\.consensus: policy "Bob signs alone" names user 77777777-0000-4000-8000-000000000000, a user of organization\.subOrganizations\[0\], but a consensus counts only its own/,
    ],
    [
      'a key used twice',
      (d) => void (d.organization.subOrganizations[0].users[0].apiKeys[0].keyFile = 'alice.key.json'),
      /organization\.subOrganizations\[0\]\.users\[0\]\.apiKeys\[0\]\.publicKey: the same key is already organization\.users\[0\]\.apiKeys\[0\]/,
    ],
  ];
  it.each(cases)('refuses %s, naming the field, and writes nothing, no key file either (issue 36 finding 9)', async (_name, change, message) => {
    const copy = editedSeed(change);
    const db = join(copy.directory, 'sandbox.db');
    const error = await rejection(start(copy.file, db));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(message);
    expect(error.message).toContain(copy.file);
    expect(readdirSync(copy.directory).filter((name) => name.endsWith('.key.json'))).toEqual([]);
    // Nothing half-written: the same database then takes the good fixture.
    const good = fixture();
    const service = await start(good.file, db);
    expect(service.info.organizationId).toBe('6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
    await service.close();
  });

  it('refuses a file that is not YAML, and one that is missing, with the path', async () => {
    const copy = fixture();
    writeFileSync(copy.file, 'organization: [unclosed');
    expect((await rejection(start(copy.file))).message).toMatch(/seed file .* is neither YAML nor JSON/);
    expect((await rejection(start(join(copy.directory, 'absent.yaml')))).message).toMatch(/absent\.yaml cannot be read/);
  });

  it('refuses a key file whose private key is not its public key', async () => {
    const copy = fixture();
    const tampered = { publicKey: '02' + 'ab'.repeat(32), privateKey: '11'.repeat(32), curve: 'p256' };
    writeFileSync(join(copy.directory, 'bob.key.json'), JSON.stringify(tampered));
    expect((await rejection(start(copy.file))).message).toMatch(
      /organization\.users\[1\]\.apiKeys\[0\]\.keyFile: .*bob\.key\.json: its public key is not the one its private key gives/,
    );
  });

  it("issue 36 finding 9: a key file outside the seed's folder is refused and not written, through ../ or a symbolic link", async () => {
    const copy = fixture();
    const outside = mkdtempSync(join(tmpdir(), 'quorumkey-outside-'));
    try {
      symlinkSync(outside, join(copy.directory, 'linked'));
      const escapes: [string, RegExp][] = [
        [`../${basename(outside)}/escaped.key.json`, /is outside the seed's folder/],
        [join(outside, 'escaped.key.json'), /is outside the seed's folder/],
        ['linked/escaped.key.json', /leads outside the seed's folder through a symbolic link/],
      ];
      for (const [keyFile, why] of escapes) {
        const seed = parseYaml(readFileSync(copy.file, 'utf8'));
        seed.organization.users[1].apiKeys[0].keyFile = keyFile;
        writeFileSync(copy.file, stringifyYaml(seed));
        const error = await rejection(start(copy.file));
        expect(error.code).toBe('CONFIG_INVALID');
        expect(error.message).toMatch(/organization\.users\[1\]\.apiKeys\[0\]\.keyFile: /);
        expect(error.message).toMatch(why);
        expect(readdirSync(outside)).toEqual([]);
        expect(readdirSync(copy.directory).filter((name) => name.endsWith('.key.json'))).toEqual([]);
      }
      // A folder below the seed's is inside it.
      mkdirSync(join(copy.directory, 'keys'));
      const seed = parseYaml(readFileSync(copy.file, 'utf8'));
      seed.organization.users[1].apiKeys[0].keyFile = 'keys/bob.key.json';
      writeFileSync(copy.file, stringifyYaml(seed));
      await (await start(copy.file)).close();
      expect(readdirSync(join(copy.directory, 'keys'))).toEqual(['bob.key.json']);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('writes all of its key files or, when one cannot be written, none', () => {
    const copy = fixture();
    const seed = loadSeedFile(copy.file);
    expect(seed.pendingKeyFiles.map((pending) => basename(pending.path))).toEqual(['alice.key.json', 'bob.key.json', 'carol.key.json']);
    // Another process wrote carol's key file between loading and writing: 'wx' refuses to overwrite it.
    writeFileSync(join(copy.directory, 'carol.key.json'), 'theirs');
    expect(() => writeKeyFiles(seed)).toThrow(
      /organization\.subOrganizations\[0\]\.users\[0\]\.apiKeys\[0\]\.keyFile: cannot write .*carol\.key\.json/,
    );
    expect(readdirSync(copy.directory).filter((name) => name.endsWith('.key.json'))).toEqual(['carol.key.json']);
    expect(readFileSync(join(copy.directory, 'carol.key.json'), 'utf8')).toBe('theirs');
  });

  it('refuses --root-public-key beside a seed', async () => {
    const copy = fixture();
    const error = await rejection(
      startService({ db: ':memory:', seed: copy.file, rootPublicKeys: [{ publicKey: '02' + '11'.repeat(32), curve: 'p256' }] }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
  });
});

describe('seeding a database', () => {
  it('generates missing key files with mode 0600 and keeps them on the next start', async () => {
    const copy = fixture();
    const first = await start(copy.file);
    await first.close();
    const alice = readFileSync(join(copy.directory, 'alice.key.json'), 'utf8');
    expect((statSync(join(copy.directory, 'alice.key.json')).mode & 0o777).toString(8)).toBe('600');
    const second = await start(copy.file);
    await second.close();
    expect(readFileSync(join(copy.directory, 'alice.key.json'), 'utf8')).toBe(alice);
  });

  it('starts a database again with the seed it was created from, and refuses another seed or an unseeded database', async () => {
    const copy = fixture();
    const db = join(copy.directory, 'sandbox.db');
    const first = await start(copy.file, db);
    const { organizationId, rootUserId } = first.info;
    await first.close();
    // Layout and comments do not count: the same seed as JSON is the same seed.
    const asJson = join(copy.directory, 'same.json');
    writeFileSync(asJson, JSON.stringify(parseYaml(readFileSync(copy.file, 'utf8'))));
    const again = await start(asJson, db);
    expect(again.info).toMatchObject({ organizationId, rootUserId });
    const store: Store = again.store;
    expect(store.read.users.listByOrganization(organizationId)).toHaveLength(2);
    await again.close();

    const other = editedSeed((d) => void (d.organization.organizationName = 'Another organization'));
    const refused = await rejection(start(other.file, db));
    expect(refused.code).toBe('FAILED_PRECONDITION');
    expect(refused.message).toMatch(/was created from another seed/);
    // Issue 37: it says what changed.
    expect(refused.message).toMatch(/: organization\.organizationName: "Compat organization" → "Another organization"; start with a new --db/);

    const unseeded = join(copy.directory, 'unseeded.db');
    await (await startService({ db: unseeded, log: () => undefined })).close();
    expect((await rejection(start(copy.file, unseeded))).message).toMatch(/no seed created; a seed file applies to a new database only/);
  });
});

describe('issue 37: a kept database compares the seed by its content, and its key files apart', () => {
  it('says which key files are missing or hold another key, not that the seed is another, and starts once they are back', async () => {
    const copy = fixture();
    const db = join(copy.directory, 'sandbox.db');
    await (await start(copy.file, db)).close();
    const keyFile = (name: string) => join(copy.directory, name);
    const alice = readFileSync(keyFile('alice.key.json'), 'utf8');
    const bob = readFileSync(keyFile('bob.key.json'), 'utf8');
    rmSync(keyFile('alice.key.json'));
    writeFileSync(keyFile('bob.key.json'), JSON.stringify({ ...generateApiKeyPair('p256'), curve: 'p256' }));

    const refused = await rejection(start(copy.file, db));
    expect(refused.code).toBe('FAILED_PRECONDITION');
    expect(refused.message).not.toMatch(/another seed/);
    expect(refused.message).toMatch(
      /was created from .*two-of-two\.yaml with other key files: organization\.users\[0\]\.apiKeys\[0\]\.keyFile is missing; organization\.users\[1\]\.apiKeys\[0\]\.keyFile holds another key; bring back the key files/,
    );
    // The key pair generated for the missing file while loading is not written: it could never stamp for this database.
    expect(
      readdirSync(copy.directory)
        .filter((name) => name.endsWith('.key.json'))
        .sort(),
    ).toEqual(['bob.key.json', 'carol.key.json']);

    writeFileSync(keyFile('alice.key.json'), alice);
    writeFileSync(keyFile('bob.key.json'), bob);
    await (await start(copy.file, db)).close();
  });

  it('lists what changed field by field: values, fields and list items added or removed', () => {
    const before = { organization: { organizationName: 'A', users: [{ userName: 'Alice' }], wallets: [] as unknown[] } };
    const after = { organization: { organizationName: 'B', users: [], wallets: [{ walletName: 'W' }], organizationId: 'x' } };
    expect(seedChanges(before, after)).toEqual([
      'organization.organizationName: "A" → "B"',
      'organization.users[0] removed',
      'organization.wallets[0] added',
      'organization.organizationId added ("x")',
    ]);
    expect(seedChanges({ a: 1 }, { a: 1 })).toEqual([]);
  });

  it('starts a database seeded before the content was recorded with the seed whose keys it was fingerprinted with', async () => {
    const copy = fixture();
    const db = join(copy.directory, 'sandbox.db');
    await (await start(copy.file, db)).close();
    const raw = new DatabaseSync(db);
    raw.prepare('UPDATE seeds SET content = NULL, fingerprint = ?').run(loadSeedFile(copy.file).keyedFingerprint);
    raw.close();
    await (await start(copy.file, db)).close();
    const other = editedSeed((d) => void (d.organization.organizationName = 'Another organization'));
    expect((await rejection(start(other.file, db))).message).toMatch(/was created from another seed .*; start with a new --db/);
  });
});

describe('the user ids a consensus names (issue 37)', () => {
  const named = (consensus: string) => {
    const checked = checkPolicyExpression(consensus, 'consensus');
    if (!checked.ok) throw checked.error;
    return userIdsNamedBy(checked.ast);
  };

  it('reads the strings compared with an approver id or a credential user_id, however written', () => {
    expect(named("approvers.any(user, user.id == 'u-1') && approvers.all(v, 'u-2' != v.id)")).toEqual(['u-1', 'u-2']);
    expect(named("approvers.filter(v, v.id in ['u-1', 'u-3']).count() >= 2 || ['u-4'].contains(approvers[0].id)")).toEqual(['u-1', 'u-3', 'u-4']);
    expect(named("credentials.any(c, c.user_id == 'u-5' && c.type == 'CREDENTIAL_TYPE_API_KEY_P256')")).toEqual(['u-5']);
  });

  it('leaves out strings compared with anything else: other fields, a credential id, a variable over another list', () => {
    expect(named("approvers.any(user, user.email == 'a@example.com' || user.tags.contains('t-1'))")).toEqual([]);
    expect(named("credentials.any(c, c.id == 'k-1')")).toEqual([]);
    expect(named("approvers.any(user, user.tags.any(id, id == 'u-1'))")).toEqual([]);
    expect(named('approvers.count() >= 2')).toEqual([]);
  });
});
