/**
 * Secrets (docs/service.md#secrets) through Turnkey's own client and crypto: init_import_secrets' targets are verified
 * and encrypted to by @turnkey/crypto's encryptSecretToBundle, list_secrets tells what is stored, and export_secrets'
 * payloads open with decryptSecretBundle; the secret is never in the database files in the clear. Each refusal (a bad
 * payload, a wrong, used, expired or another user's target, a policy's denial, a vote still needed) stores nothing.
 */
import { readFileSync } from 'node:fs';
import { decryptSecretBundle, encryptSecretToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { TurnkeyRequestError, type TurnkeyClient } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IMPORT_TARGET_TTL_MS } from '../../src/service/families/export-import';
import { startTestService, type TestKey, type TestService } from '../support/service';

const SUITE = 'TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1';

let t: TestService;
let root: TurnkeyClient;
beforeEach(async () => {
  t = await startTestService();
  root = t.client();
});
afterEach(() => t.close());

async function initTargets(client: TurnkeyClient, numSecrets: number): Promise<string[]> {
  const { activity } = await client.initImportSecrets({
    ...t.nextEnvelope('ACTIVITY_TYPE_INIT_IMPORT_SECRETS'),
    parameters: { encryptionSuite: SUITE, numSecrets },
  });
  expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  return activity.result.initImportSecretsResult?.enclaveTargetMessages ?? [];
}

/** What Turnkey's client-side helper makes of `plaintext` for one target: it checks the enclave's signature first. */
function encryptTo(target: string, plaintext: string) {
  return encryptSecretToBundle({
    plaintext,
    ingressTargetBundle: target,
    organizationId: t.info.organizationId,
    dangerouslyOverrideSignerPublicKey: t.info.enclaveSignerPublicKey,
  });
}

type ImportParams = Parameters<TurnkeyClient['importSecrets']>[0]['parameters']['secrets'][number];

function importSecrets(secrets: ImportParams[], client: TurnkeyClient = root) {
  return client.importSecrets({ ...t.nextEnvelope('ACTIVITY_TYPE_IMPORT_SECRETS'), parameters: { secrets } });
}

function exportSecrets(secretIds: string[], targetPublicKey: string, client: TurnkeyClient = root) {
  return client.exportSecrets({
    ...t.nextEnvelope('ACTIVITY_TYPE_EXPORT_SECRETS'),
    parameters: { secrets: secretIds.map((secretId) => ({ secretId, targetPublicKey, encryptionSuite: SUITE })) },
  });
}

async function listSecrets() {
  return (await root.listSecrets({ organizationId: t.info.organizationId })).secrets;
}

/** How a request ended: the turnkeyErrorCode of an HTTP refusal or of a FAILED activity, else the activity's status. */
async function outcomeOf(call: Promise<{ activity: { status: string; failure?: { details?: unknown[] } } }>): Promise<string> {
  try {
    const { activity } = await call;
    if (activity.status !== 'ACTIVITY_STATUS_FAILED') return activity.status;
    return (activity.failure?.details?.[0] as { turnkeyErrorCode: string }).turnkeyErrorCode;
  } catch (error) {
    // The test's client and this file may load @turnkey/http through different entries: no instanceof.
    if (!(error instanceof Error) || error.name !== TurnkeyRequestError.name) throw error;
    return ((error as TurnkeyRequestError).details?.[0] as { turnkeyErrorCode: string }).turnkeyErrorCode;
  }
}

async function createPolicy(effect: 'EFFECT_ALLOW' | 'EFFECT_DENY', condition: string, consensus: string): Promise<void> {
  const { activity } = await root.createPolicy({
    ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
    parameters: { policyName: `${effect} ${condition}`, effect, condition, consensus, notes: '' },
  });
  expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
}

/** A non-root user who may do anything with secrets, by an allow policy naming them. */
async function secretsUser(): Promise<{ userId: string; key: TestKey; client: TurnkeyClient }> {
  const user = await t.addUser({ name: 'secrets operator' });
  await createPolicy('EFFECT_ALLOW', "activity.resource == 'SECRET'", `approvers.any(user, user.id == '${user.userId}')`);
  return { ...user, client: t.client(user.key) };
}

describe('a round trip with Turnkey’s client-side crypto', () => {
  it('imports secrets, lists them newest first, exports and decrypts them; the database never holds them in the clear', async () => {
    const plaintexts = ['sk_live_4f9a2b7c1e0d3a5b', 'a second secret, with ünïcode'];
    const targets = await initTargets(root, 2);
    expect(targets).toHaveLength(2);
    const sealed = await Promise.all(targets.map((target, index) => encryptTo(target, plaintexts[index]!)));
    const { activity } = await importSecrets([
      { ...sealed[0]!, encryptionSuite: SUITE, name: 'stripe key', staticProperties: [{ key: 'env', value: 'ci' }] },
      { ...sealed[1]!, encryptionSuite: SUITE },
    ]);
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const secretIds = activity.result.importSecretsResult?.secretIds ?? [];
    expect(secretIds).toHaveLength(2);

    const listed = await listSecrets();
    expect(listed.map((secret) => secret.secretId)).toEqual([...secretIds].reverse());
    expect(listed[1]).toEqual({
      secretId: secretIds[0],
      name: 'stripe key',
      staticProperties: [{ key: 'env', value: 'ci' }],
      createdAtUnixMs: expect.stringMatching(/^\d+$/),
    });
    expect(listed[0]).toEqual({ secretId: secretIds[1], staticProperties: [], createdAtUnixMs: expect.stringMatching(/^\d+$/) });
    const page = (paginationOptions: { limit: string; before?: string }) =>
      root.listSecrets({ organizationId: t.info.organizationId, paginationOptions });
    expect((await page({ limit: '1' })).secrets.map((secret) => secret.secretId)).toEqual([secretIds[1]]);
    expect((await page({ limit: '1', before: secretIds[1]! })).secrets.map((secret) => secret.secretId)).toEqual([secretIds[0]]);

    const exportKey = generateP256KeyPair();
    const exported = await exportSecrets(secretIds, exportKey.publicKeyUncompressed);
    expect(exported.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const payloads = exported.activity.result.exportSecretsResult?.secretPayloads ?? [];
    const opened = await Promise.all(
      payloads.map((secretPayload) =>
        decryptSecretBundle({
          secretPayload,
          embeddedPrivateKey: exportKey.privateKey,
          organizationId: t.info.organizationId,
          dangerouslyOverrideSignerPublicKey: t.info.enclaveSignerPublicKey,
        }),
      ),
    );
    expect(opened).toEqual(plaintexts);

    const files = [t.store.path, `${t.store.path}-wal`].map((file) => {
      try {
        return readFileSync(file);
      } catch {
        return Buffer.alloc(0);
      }
    });
    for (const plaintext of plaintexts) for (const file of files) expect(file.includes(Buffer.from(plaintext))).toBe(false);
  });

  it('seals each target to this organization: another organization’s client refuses it', async () => {
    const [target] = await initTargets(root, 1);
    await expect(
      encryptSecretToBundle({
        plaintext: 'x',
        ingressTargetBundle: target!,
        organizationId: '00000000-0000-4000-8000-000000000000',
        dangerouslyOverrideSignerPublicKey: t.info.enclaveSignerPublicKey,
      }),
    ).rejects.toThrow(/organization id does not match/);
  });
});

describe('refusals store nothing', () => {
  /**
   * Each case makes what it needs and answers the request to judge, not yet sent; the root user proposes unless it
   * says otherwise.
   */
  type Judged = () => Promise<{ activity: { status: string } }>;
  const cases: [string, () => Promise<Judged>, string][] = [
    [
      'a payload altered after encryption',
      async () => {
        const sealed = await encryptTo((await initTargets(root, 1))[0]!, 'secret');
        const payload = JSON.parse(sealed.secretPayload) as { encappedPublic: string; ciphertext: string };
        const flipped = `${payload.ciphertext.slice(0, -2)}${payload.ciphertext.endsWith('00') ? '01' : '00'}`;
        return () => importSecrets([{ ...sealed, secretPayload: JSON.stringify({ ...payload, ciphertext: flipped }), encryptionSuite: SUITE }]);
      },
      'DECRYPTION_FAILED',
    ],
    [
      'a payload that is not an encrypted bundle',
      async () => {
        const sealed = await encryptTo((await initTargets(root, 1))[0]!, 'secret');
        return () => importSecrets([{ ...sealed, secretPayload: 'not json', encryptionSuite: SUITE }]);
      },
      'BUNDLE_MALFORMED',
    ],
    [
      'a payload encrypted to another target than the one named',
      async () => {
        const [first, second] = await initTargets(root, 2);
        const sealed = await encryptTo(first!, 'secret');
        const other = await encryptTo(second!, 'other');
        return () => importSecrets([{ secretPayload: sealed.secretPayload, targetPublicKey: other.targetPublicKey, encryptionSuite: SUITE }]);
      },
      'DECRYPTION_FAILED',
    ],
    [
      'a key that is no import target',
      async () => {
        const sealed = await encryptTo((await initTargets(root, 1))[0]!, 'secret');
        return () => importSecrets([{ ...sealed, targetPublicKey: generateP256KeyPair().publicKeyUncompressed, encryptionSuite: SUITE }]);
      },
      'FAILED_PRECONDITION',
    ],
    [
      'a target already used',
      async () => {
        const sealed = await encryptTo((await initTargets(root, 1))[0]!, 'secret');
        expect((await importSecrets([{ ...sealed, encryptionSuite: SUITE }])).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        return () => importSecrets([{ ...sealed, encryptionSuite: SUITE, name: 'again' }]);
      },
      'BUNDLE_ALREADY_USED',
    ],
    [
      'a target expired',
      async () => {
        const sealed = await encryptTo((await initTargets(root, 1))[0]!, 'secret');
        t.clock.advance(IMPORT_TARGET_TTL_MS);
        return () => importSecrets([{ ...sealed, encryptionSuite: SUITE }]);
      },
      'BUNDLE_EXPIRED',
    ],
    [
      'another user’s target',
      async () => {
        const sealed = await encryptTo((await initTargets(root, 1))[0]!, 'secret');
        const other = await secretsUser();
        return () => importSecrets([{ ...sealed, encryptionSuite: SUITE }], other.client);
      },
      'BUNDLE_USER_MISMATCH',
    ],
    [
      'a name the organization already has',
      async () => {
        const [first, second] = await initTargets(root, 2);
        expect((await importSecrets([{ ...(await encryptTo(first!, 'one')), encryptionSuite: SUITE, name: 'api key' }])).activity.status).toBe(
          'ACTIVITY_STATUS_COMPLETED',
        );
        const sealed = await encryptTo(second!, 'two');
        return () => importSecrets([{ ...sealed, encryptionSuite: SUITE, name: 'api key' }]);
      },
      'ALREADY_EXISTS',
    ],
    [
      'a user no policy allows',
      async () => {
        const stranger = await t.addUser({ name: 'stranger' });
        return () =>
          t.client(stranger.key).initImportSecrets({
            ...t.nextEnvelope('ACTIVITY_TYPE_INIT_IMPORT_SECRETS'),
            parameters: { encryptionSuite: SUITE, numSecrets: 1 },
          });
      },
      'REQUEST_NOT_AUTHORIZED',
    ],
    [
      'an export a deny policy names',
      async () => {
        const other = await secretsUser();
        const sealed = await encryptTo((await initTargets(other.client, 1))[0]!, 'secret');
        const { activity } = await importSecrets([{ ...sealed, encryptionSuite: SUITE }], other.client);
        await createPolicy('EFFECT_DENY', "activity.resource == 'SECRET' && activity.action == 'EXPORT'", '');
        return () => exportSecrets(activity.result.importSecretsResult?.secretIds ?? [], generateP256KeyPair().publicKeyUncompressed, other.client);
      },
      'REQUEST_NOT_AUTHORIZED',
    ],
    [
      'an export of a secret that does not exist',
      async () => () => exportSecrets(['11111111-2222-4333-8444-555555555555'], generateP256KeyPair().publicKeyUncompressed),
      'NOT_FOUND',
    ],
  ];

  it.each(cases)('%s', async (_name, prepare, expected) => {
    const request = await prepare();
    const before = (await listSecrets()).length;
    expect(await outcomeOf(request())).toBe(expected);
    expect(await listSecrets()).toHaveLength(before);
  });
});

describe('a deleted sub-organization', () => {
  it('takes its secrets with it, erased from the database files', async () => {
    const created = await root.createSubOrganization({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8'),
      parameters: {
        subOrganizationName: 'customer',
        rootUsers: [
          {
            userName: 'customer root',
            apiKeys: [{ apiKeyName: 'k', publicKey: t.rootKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
            authenticators: [],
            oauthProviders: [],
          },
        ],
        rootQuorumThreshold: 1,
      },
    });
    const subOrganizationId = created.activity.result.createSubOrganizationResultV8?.subOrganizationId ?? '';
    const init = await root.initImportSecrets({
      ...t.nextEnvelope('ACTIVITY_TYPE_INIT_IMPORT_SECRETS', subOrganizationId),
      parameters: { encryptionSuite: SUITE, numSecrets: 1 },
    });
    const [target] = init.activity.result.initImportSecretsResult?.enclaveTargetMessages ?? [];
    const sealed = await encryptSecretToBundle({
      plaintext: 'customer secret',
      ingressTargetBundle: target!,
      organizationId: subOrganizationId,
      dangerouslyOverrideSignerPublicKey: t.info.enclaveSignerPublicKey,
    });
    const imported = await root.importSecrets({
      ...t.nextEnvelope('ACTIVITY_TYPE_IMPORT_SECRETS', subOrganizationId),
      parameters: { secrets: [{ ...sealed, encryptionSuite: SUITE }] },
    });
    const [secretId] = imported.activity.result.importSecretsResult?.secretIds ?? [];
    const stored = t.store.read.secrets.get(subOrganizationId, secretId!)!.sealedSecret;
    const filesHold = () =>
      [t.store.path, `${t.store.path}-wal`].some((file) => {
        try {
          return readFileSync(file).includes(Buffer.from(stored));
        } catch {
          return false;
        }
      });
    expect(filesHold()).toBe(true);

    const deleted = await root.deleteSubOrganization({
      ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION', subOrganizationId),
      parameters: { deleteWithoutExport: true },
    });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(t.store.read.secrets.get(subOrganizationId, secretId!)).toBeUndefined();
    expect(filesHold()).toBe(false);
  });
});

describe('consensus', () => {
  it('an export waits for the root quorum’s second vote, then answers payloads that open', async () => {
    const sealed = await encryptTo((await initTargets(root, 1))[0]!, 'needs two');
    const secretId = (await importSecrets([{ ...sealed, encryptionSuite: SUITE }])).activity.result.importSecretsResult?.secretIds[0];
    const second = await t.addUser({ name: 'second approver' });
    await t.setRootQuorum(2, [t.info.rootUserId, second.userId]);

    const exportKey = generateP256KeyPair();
    const proposed = await exportSecrets([secretId!], exportKey.publicKeyUncompressed);
    expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(proposed.activity.result.exportSecretsResult).toBeUndefined();
    const approved = await t.client(second.key).approveActivity({
      ...t.nextEnvelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'),
      parameters: { fingerprint: proposed.activity.fingerprint },
    });
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const [secretPayload] = approved.activity.result.exportSecretsResult?.secretPayloads ?? [];
    expect(
      await decryptSecretBundle({
        secretPayload: secretPayload!,
        embeddedPrivateKey: exportKey.privateKey,
        organizationId: t.info.organizationId,
        dangerouslyOverrideSignerPublicKey: t.info.enclaveSignerPublicKey,
      }),
    ).toBe('needs two');
  });
});

describe('policies read a secret’s static properties', () => {
  /** An operator whose secrets are tagged env=ci and env=prod; the root user made no policy yet that names them. */
  async function operatorWithSecrets() {
    const user = await t.addUser({ name: 'operator' });
    const client = t.client(user.key);
    const onlyOperator = `approvers.any(user, user.id == '${user.userId}')`;
    await createPolicy('EFFECT_ALLOW', "activity.resource == 'SECRET' && activity.action == 'IMPORT'", onlyOperator);
    const targets = await initTargets(client, 2);
    const sealed = await Promise.all(targets.map((target, index) => encryptTo(target, `secret ${index}`)));
    const { activity } = await importSecrets(
      [
        { ...sealed[0]!, encryptionSuite: SUITE, staticProperties: [{ key: 'env', value: 'ci' }] },
        { ...sealed[1]!, encryptionSuite: SUITE, staticProperties: [{ key: 'env', value: 'prod' }] },
      ],
      client,
    );
    const [ci, prod] = activity.result.importSecretsResult?.secretIds ?? [];
    return { client, onlyOperator, ci: ci!, prod: prod! };
  }
  const exportTo = (client: TurnkeyClient, secretIds: string[]) =>
    outcomeOf(exportSecrets(secretIds, generateP256KeyPair().publicKeyUncompressed, client));

  it('an allow naming `secret` admits the one secret it describes, and no request that names several', async () => {
    const { client, onlyOperator, ci, prod } = await operatorWithSecrets();
    await createPolicy('EFFECT_ALLOW', "activity.action == 'EXPORT' && secret.static_properties['env'] == 'ci'", onlyOperator);
    expect(await exportTo(client, [ci])).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await exportTo(client, [prod])).toBe('REQUEST_NOT_AUTHORIZED');
    expect(await exportTo(client, [ci, prod])).toBe('REQUEST_NOT_AUTHORIZED');
  });

  it('a deny reading `secrets` refuses a request that hides its secret among others', async () => {
    const { client, onlyOperator, ci, prod } = await operatorWithSecrets();
    await createPolicy('EFFECT_ALLOW', "activity.resource == 'SECRET' && activity.action == 'EXPORT'", onlyOperator);
    await createPolicy('EFFECT_DENY', "secrets.any(s, s.static_properties['env'] == 'prod')", '');
    expect(await exportTo(client, [ci])).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await exportTo(client, [ci, prod])).toBe('REQUEST_NOT_AUTHORIZED');
  });
});
