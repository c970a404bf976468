/**
 * The 22 operations of the service interface specification (5 queries, 15 submits, signup_v2 and otp_login_v2),
 * each mapped to the test files that exercise it end to end over HTTP. This checks the operation table declares
 * them as the specification does, that the map leaves none out, and that every named file exists and calls the
 * operation, by path name or by the method Turnkey's official clients use for that path.
 */
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operations, type Operation } from '../../../src/shared/api';

type SpecOperation =
  | { kind: 'query'; name: string }
  | { kind: 'activity'; name: string; activityType: string; intentKey: string; resultKey: string }
  | { kind: 'proxy'; name: string };

function submit<const N extends string>(name: N, activityType: string, intentKey: string, resultKey: string) {
  return { kind: 'activity', name, activityType, intentKey, resultKey } as const;
}

/**
 * The proxy (docs/service.md#auth-proxy), queries and submits (docs/service.md#activity-types: type value, intent and
 * result members).
 */
const specOperations = [
  { kind: 'query', name: 'get_api_key' },
  { kind: 'query', name: 'get_policy' },
  { kind: 'query', name: 'get_session_profiles' },
  { kind: 'query', name: 'list_smart_contract_interfaces' },
  { kind: 'query', name: 'list_verified_suborgs' },
  submit('oauth_login', 'ACTIVITY_TYPE_OAUTH_LOGIN', 'oauthLoginIntent', 'oauthLoginResult'),
  submit('export_wallet', 'ACTIVITY_TYPE_EXPORT_WALLET', 'exportWalletIntent', 'exportWalletResult'),
  submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', 'createPolicyIntentV3', 'createPolicyResult'),
  submit('delete_private_keys', 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', 'deletePrivateKeysIntent', 'deletePrivateKeysResult'),
  submit('delete_oauth_providers', 'ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS', 'deleteOauthProvidersIntent', 'deleteOauthProvidersResult'),
  submit('delete_authenticators', 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS', 'deleteAuthenticatorsIntent', 'deleteAuthenticatorsResult'),
  submit('delete_user_tags', 'ACTIVITY_TYPE_DELETE_USER_TAGS', 'deleteUserTagsIntent', 'deleteUserTagsResult'),
  submit('export_private_key', 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY', 'exportPrivateKeyIntent', 'exportPrivateKeyResult'),
  submit('delete_sub_organization', 'ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION', 'deleteSubOrganizationIntent', 'deleteSubOrganizationResult'),
  submit('update_root_quorum', 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', 'updateRootQuorumIntent', 'updateRootQuorumResult'),
  submit(
    'delete_tvc_app_and_deployments',
    'ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS',
    'deleteTvcAppAndDeploymentsIntent',
    'deleteTvcAppAndDeploymentsResult',
  ),
  submit('update_user_name', 'ACTIVITY_TYPE_UPDATE_USER_NAME', 'updateUserNameIntent', 'updateUserNameResult'),
  submit(
    'delete_smart_contract_interface',
    'ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE',
    'deleteSmartContractInterfaceIntent',
    'deleteSmartContractInterfaceResult',
  ),
  submit('init_import_private_key', 'ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY', 'initImportPrivateKeyIntent', 'initImportPrivateKeyResult'),
  submit(
    'spark_prepare_lightning_receive',
    'ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE',
    'sparkPrepareLightningReceiveIntent',
    'sparkPrepareLightningReceiveResult',
  ),
  { kind: 'proxy', name: 'signup_v2' },
  { kind: 'proxy', name: 'otp_login_v2' },
] as const satisfies readonly SpecOperation[];

type SpecName = (typeof specOperations)[number]['name'];

const USERS = 'test/service/identity/users.test.ts';
const ORGANIZATIONS = 'test/service/identity/organizations.test.ts';
const KEYS = 'test/service/keys/keys.test.ts';
const CREDENTIALS_SESSIONS = 'test/service/identity/credentials-and-sessions.test.ts';
const OTP_LOGIN = 'test/service/proxy/otp-login.test.ts';
const SPEC_OPERATIONS = 'test/service/coverage/spec-operations.test.ts';
const EXPORT_IMPORT = 'test/compat/export-import.test.ts';
const SDK_SERVER = 'test/compat/sdk-server.test.ts';

/** Where each spec operation runs end to end against a service over HTTP (paths from the repository root). */
const endToEndTests: Record<SpecName, readonly string[]> = {
  get_api_key: [USERS],
  get_policy: ['test/service/core.test.ts', SDK_SERVER],
  get_session_profiles: [CREDENTIALS_SESSIONS],
  list_smart_contract_interfaces: [CREDENTIALS_SESSIONS],
  list_verified_suborgs: [OTP_LOGIN, SPEC_OPERATIONS],
  oauth_login: [CREDENTIALS_SESSIONS, SPEC_OPERATIONS],
  export_wallet: [KEYS, EXPORT_IMPORT, SDK_SERVER, SPEC_OPERATIONS],
  create_policy: ['test/service/core.test.ts', 'test/service/consensus.test.ts', SDK_SERVER],
  delete_private_keys: [KEYS, SPEC_OPERATIONS],
  delete_oauth_providers: [CREDENTIALS_SESSIONS],
  delete_authenticators: [CREDENTIALS_SESSIONS],
  delete_user_tags: [USERS],
  export_private_key: [KEYS, EXPORT_IMPORT],
  delete_sub_organization: [ORGANIZATIONS],
  update_root_quorum: [ORGANIZATIONS],
  delete_tvc_app_and_deployments: [CREDENTIALS_SESSIONS],
  update_user_name: [USERS],
  delete_smart_contract_interface: [CREDENTIALS_SESSIONS],
  init_import_private_key: [KEYS, EXPORT_IMPORT],
  spark_prepare_lightning_receive: ['test/service/keys/spark.test.ts'],
  signup_v2: [OTP_LOGIN, CREDENTIALS_SESSIONS, SPEC_OPERATIONS],
  otp_login_v2: [OTP_LOGIN, SPEC_OPERATIONS],
};

const repositoryRoot = join(import.meta.dirname, '../../..');
const requireFromHere = createRequire(import.meta.url);

/** Method name → API path, as a Turnkey client's generated source calls each path. */
function clientMethods(packageName: string, generatedFile: string): Map<string, string[]> {
  const source = readFileSync(join(dirname(requireFromHere.resolve(packageName)), generatedFile), 'utf8');
  const methodsByPath = new Map<string, string[]>();
  const definition = /this\.(\w+) = async \([^)]*\) => \{(?:(?!this\.\w+ = async)[\s\S])*?this\.(?:request|command|activityDecision)\("([^"]+)"/g;
  for (const [, method, path] of source.matchAll(definition)) {
    methodsByPath.set(path!, [...(methodsByPath.get(path!) ?? []), method!]);
  }
  return methodsByPath;
}

const officialMethods = [
  clientMethods('@turnkey/http', '__generated__/services/coordinator/public/v1/public_api.client.js'),
  clientMethods('@turnkey/sdk-server', '__generated__/sdk-client-base.js'),
];

/** How a test can name `op`: its path name in quotes or a path, or a call of an official client's method for it. */
function mentionsOf(op: Operation): RegExp[] {
  const methods = new Set(officialMethods.flatMap((byPath) => byPath.get(op.path) ?? []));
  return [new RegExp(`['"/]${op.name}['"]`), ...[...methods].map((method) => new RegExp(`\\.${method}\\(`))];
}

describe('the specification operations', () => {
  it('are 5 queries, 15 submits and the two proxy calls, each once', () => {
    const count = (kind: SpecOperation['kind']) => specOperations.filter((op) => op.kind === kind).length;
    expect([count('query'), count('activity'), count('proxy')]).toEqual([5, 15, 2]);
    expect(new Set(specOperations.map((op) => op.name)).size).toBe(22);
  });

  it.each(specOperations.map((spec) => [spec.name, spec] as const))('%s is declared in the operation table as the spec has it', (name, spec) => {
    const op = operations[name as keyof typeof operations] as Operation | undefined;
    expect(op, `${name} is missing from the operation table`).toBeDefined();
    expect(op!.kind).toBe(spec.kind);
    if (spec.kind === 'activity' && op!.kind === 'activity') {
      expect({ activityType: op!.activityType, intentKey: op!.intentKey, resultKey: op!.resultKey }).toEqual({
        activityType: spec.activityType,
        intentKey: spec.intentKey,
        resultKey: spec.resultKey,
      });
      // docs/service.md#envelope-and-record: every submit envelope may carry generateAppProofs, except
      // spark_prepare_lightning_receive's.
      expect(op!.acceptsAppProofs).toBe(name !== 'spark_prepare_lightning_receive');
    }
  });
});

describe('end-to-end tests of the specification operations', () => {
  it('name at least one test file for every spec operation, and nothing else', () => {
    expect(Object.keys(endToEndTests).sort()).toEqual(specOperations.map((op) => op.name).sort());
    for (const [name, files] of Object.entries(endToEndTests)) expect(files.length, name).toBeGreaterThan(0);
  });

  it('finds the official clients’ methods for each spec path it can look for', () => {
    const viaClient = specOperations.filter((spec) => officialMethods.some((byPath) => byPath.has(operations[spec.name].path)));
    // Every query and submit of the spec is exposed by @turnkey/http; the proxy calls go by plain fetch.
    expect(viaClient.map((spec) => spec.name).sort()).toEqual(
      specOperations
        .filter((spec) => spec.kind !== 'proxy')
        .map((spec) => spec.name)
        .sort(),
    );
  });

  it.each(Object.entries(endToEndTests))('%s: every named test file exists and calls it', (name, files) => {
    const op = operations[name as SpecName];
    for (const file of files) {
      const path = join(repositoryRoot, file);
      expect(existsSync(path), `${file} does not exist`).toBe(true);
      const source = readFileSync(path, 'utf8');
      const mentions = mentionsOf(op);
      expect(
        mentions.some((mention) => mention.test(source)),
        `${file} names ${name} neither as '${name}' nor as a call of ${mentions.slice(1).map(String).join(', ') || 'an official client method'}`,
      ).toBe(true);
    }
  });
});
