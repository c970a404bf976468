/**
 * Realistic bodies through the table's schemas: requests exactly as @turnkey/sdk-server serialises them,
 * activity records and error bodies as the service answers them, and the errors bad input gets.
 */
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ApiKeyStamper, TurnkeyServerClient } from '@turnkey/sdk-server';
import { describe, expect, it } from 'vitest';
import {
  activityResponseSchema,
  activityResultOf,
  errorBodySchema,
  operations,
  parseRequest,
  parseResponse,
  requestSchemaOf,
  submitBodySchema,
  TURNKEY_ERROR_DETAIL_TYPE,
  turnkeyErrorDetail,
  type Operation,
  type ParamsOf,
  type ResultOf,
} from '../../../src/shared/api';
import { QkError } from '../../../src/shared/errors';

const organizationId = '7ff189fb-6e0c-4a5e-9e0b-2f43c6f0a1d2';
const userId = 'b2b5a7c4-1b61-4bb2-a4d3-5b7e8c3f9a10';
const secretKey = p256.utils.randomSecretKey();
const client = new TurnkeyServerClient({
  apiBaseUrl: 'https://api.turnkey.com',
  organizationId,
  stamper: new ApiKeyStamper({
    apiPublicKey: bytesToHex(p256.getPublicKey(secretKey, true)),
    apiPrivateKey: bytesToHex(secretKey),
  }),
});

const ethereumAccount = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const p256PublicKey = '02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316';

interface SdkExample {
  op: Operation;
  /** What the SDK caller passes (minus organizationId / timestampMs). */
  input: Record<string, unknown>;
  stamp: (input: Record<string, unknown>) => Promise<{ body: string; url: string } | undefined>;
  /** The parameters after parsing, where they differ from the input. */
  parsed?: Record<string, unknown>;
}

// The SDK's input types are its own; the examples are checked against ours by parsing instead.
/* eslint-disable @typescript-eslint/no-explicit-any */
const sdkExamples: SdkExample[] = [
  {
    op: operations.create_policy,
    input: {
      policyName: 'Allow signing to the treasury',
      effect: 'EFFECT_ALLOW',
      condition: "eth.tx.to == '0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7'",
      consensus: "approvers.any(user, user.id == '" + userId + "')",
      notes: '',
    },
    stamp: (input) => client.stampCreatePolicy(input as any),
  },
  {
    op: operations.create_wallet,
    input: { walletName: 'Treasury', accounts: [ethereumAccount], mnemonicLength: 24 },
    stamp: (input) => client.stampCreateWallet(input as any),
  },
  {
    op: operations.create_users,
    input: {
      users: [
        {
          userName: 'Alice',
          userEmail: 'alice@example.com',
          apiKeys: [{ apiKeyName: 'laptop', publicKey: p256PublicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    },
    stamp: (input) => client.stampCreateUsers(input as any),
  },
  {
    op: operations.create_api_keys,
    input: {
      userId,
      apiKeys: [
        {
          apiKeyName: 'ci',
          publicKey: p256PublicKey,
          curveType: 'API_KEY_CURVE_P256',
          expirationSeconds: '3600',
        },
      ],
    },
    stamp: (input) => client.stampCreateApiKeys(input as any),
  },
  {
    op: operations.update_root_quorum,
    input: { threshold: 2, userIds: [userId, '0c6f6f1e-5f0c-4a7b-9b8e-3d2c1a0f9e8d'] },
    stamp: (input) => client.stampUpdateRootQuorum(input as any),
  },
  {
    op: operations.export_wallet,
    input: { walletId: 'e3c4a1b2-0000-4000-8000-000000000001', targetPublicKey: '04' + 'ab'.repeat(64) },
    stamp: (input) => client.stampExportWallet(input as any),
  },
  {
    op: operations.create_sub_organization,
    input: {
      subOrganizationName: 'customer 42',
      rootUsers: [
        {
          userName: 'root',
          apiKeys: [{ apiKeyName: 'root key', publicKey: p256PublicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [{ providerName: 'google', oidcToken: 'eyJhbGciOiJSUzI1NiJ9.e30.sig' }],
        },
      ],
      rootQuorumThreshold: 1,
      wallet: { walletName: 'Default', accounts: [ethereumAccount] },
    },
    stamp: (input) => client.stampCreateSubOrganization(input as any),
  },
  {
    op: operations.create_tvc_app,
    input: {
      name: 'pricing oracle',
      quorumPublicKey: '04' + 'cd'.repeat(64),
      manifestSetParams: { name: 'manifest', newOperators: [{ name: 'op1', publicKey: p256PublicKey }], threshold: 1 },
      shareSetId: 'f0e1d2c3-0000-4000-8000-000000000002',
    },
    stamp: (input) => client.stampCreateTvcApp(input as any),
    // int64 counters come out as decimal strings whatever the SDK sent.
    parsed: {
      name: 'pricing oracle',
      quorumPublicKey: '04' + 'cd'.repeat(64),
      manifestSetParams: { name: 'manifest', newOperators: [{ name: 'op1', publicKey: p256PublicKey }], threshold: '1' },
      shareSetId: 'f0e1d2c3-0000-4000-8000-000000000002',
    },
  },
  {
    op: operations.approve_activity,
    input: { fingerprint: 'sha256:' + '0f'.repeat(32) },
    stamp: (input) => client.stampApproveActivity(input as any),
  },
  {
    op: operations.create_session_profile,
    input: { sessionProfileName: 'read only', scope: 'true', expirationSeconds: '900' },
    stamp: (input) => client.stampCreateSessionProfile(input as any),
  },
  {
    op: operations.list_activities,
    input: {
      filterByStatus: ['ACTIVITY_STATUS_CONSENSUS_NEEDED'],
      filterByType: ['ACTIVITY_TYPE_CREATE_POLICY_V3'],
      paginationOptions: { limit: '50', after: 'a1b2c3d4-0000-4000-8000-000000000003' },
    },
    stamp: (input) => client.stampGetActivities(input),
  },
  {
    op: operations.get_wallet_account,
    input: { walletId: 'e3c4a1b2-0000-4000-8000-000000000001', path: "m/44'/60'/0'/0/0" },
    stamp: (input) => client.stampGetWalletAccount(input as any),
  },
  {
    op: operations.whoami,
    input: {},
    stamp: (input) => client.stampGetWhoami(input),
  },
];
/* eslint-enable @typescript-eslint/no-explicit-any */

describe('requests as @turnkey/sdk-server builds them', () => {
  it.each(sdkExamples.map((example) => [example.op.name, example] as const))('%s', async (_name, example) => {
    const signed = await example.stamp(example.input);
    if (!signed) throw new Error('the SDK client has no stamper');
    expect(new URL(signed.url).pathname).toBe(example.op.path);

    const parsed = parseRequest(requestSchemaOf(example.op), JSON.parse(signed.body), example.op.name) as Record<string, unknown>;
    expect(parsed.organizationId).toBe(organizationId);
    if (example.op.kind === 'activity') {
      expect(parsed.type).toBe(example.op.activityType);
      expect(parsed.timestampMs).toMatch(/^\d{13}$/);
      expect(parsed.parameters).toEqual(example.parsed ?? example.input);
    }
  });
});

describe('request validation errors name the field path', () => {
  const body = (parameters: unknown) => ({
    type: 'ACTIVITY_TYPE_CREATE_POLICIES',
    timestampMs: '1760000000000',
    organizationId,
    parameters,
  });
  const validPolicy = { policyName: 'p', effect: 'EFFECT_DENY', notes: '' };
  const failure = (schemaBody: unknown, op: Operation = operations.create_policies): QkError => {
    try {
      parseRequest(requestSchemaOf(op), schemaBody, op.name);
    } catch (error) {
      if (error instanceof QkError) return error;
      throw error;
    }
    throw new Error('expected the body to be refused');
  };

  it('accepts the valid body the other cases start from', () => {
    expect(() => parseRequest(submitBodySchema(operations.create_policies), body({ policies: [validPolicy] }), 'x')).not.toThrow();
  });

  it('refuses an unknown field, naming it', () => {
    const error = failure(body({ policies: [{ ...validPolicy, polciyName: 'typo' }] }));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.message).toContain('parameters.policies[0].polciyName: unknown field');
    expect(error.details).toEqual({
      issues: [{ path: 'parameters.policies[0].polciyName', message: expect.stringContaining('unknown field') }],
    });
  });

  it('refuses a wrong type and a wrong enum value, naming each', () => {
    const error = failure(body({ policies: [{ ...validPolicy, policyName: 7, effect: 'EFFECT_MAYBE' }] }));
    expect(error.message).toMatch(/parameters\.policies\[0\]\.policyName: .*expected string, received number/);
    expect(error.message).toMatch(/parameters\.policies\[0\]\.effect: .*EFFECT_ALLOW/);
  });

  it('refuses a missing required field, another version of the type, and a non-decimal timestamp', () => {
    const error = failure({ ...body({}), type: 'ACTIVITY_TYPE_CREATE_POLICY_V3', timestampMs: '1.7e12' });
    expect(error.message).toMatch(/parameters\.policies: .*expected array/);
    expect(error.message).toMatch(/type: .*ACTIVITY_TYPE_CREATE_POLICIES/);
    expect(error.message).toMatch(/timestampMs: expected a string of decimal digits/);
  });

  it('refuses generateAppProofs where the swagger does not declare it, accepts it where it does', () => {
    const sessionProfile = {
      type: 'ACTIVITY_TYPE_CREATE_SESSION_PROFILE',
      timestampMs: '1760000000000',
      organizationId,
      parameters: { sessionProfileName: 'n', scope: 'true' },
      generateAppProofs: true,
    };
    expect(failure(sessionProfile, operations.create_session_profile).message).toContain('generateAppProofs: unknown field');
    expect(() =>
      parseRequest(submitBodySchema(operations.create_policies), { ...body({ policies: [] }), generateAppProofs: true }, 'x'),
    ).not.toThrow();
  });

  it('refuses a query without its organization or with a stray field', () => {
    const error = failure({ walletId: 'w', wallet_id: 'w' }, operations.get_wallet);
    expect(error.message).toMatch(/organizationId: .*expected string/);
    expect(error.message).toContain('wallet_id: unknown field');
  });

  it('reads int64 counters sent as numbers or strings, and refuses fractions', () => {
    const params = {
      signWith: 'spark1qxyz',
      lightningReceive: { threshold: 2, operatorRecipients: [{ operatorId: 'o1', encryptionPublicKey: p256PublicKey }] },
    };
    const schema = operations.spark_prepare_lightning_receive.parameters;
    expect(schema.parse(params).lightningReceive.threshold).toBe('2');
    expect(schema.parse({ ...params, lightningReceive: { ...params.lightningReceive, threshold: '2' } }).lightningReceive.threshold).toBe('2');
    expect(schema.safeParse({ ...params, lightningReceive: { ...params.lightningReceive, threshold: 1.5 } }).success).toBe(false);
  });
});

const timestamp = { seconds: '1760000000', nanos: '123000000' };
const sampleUser = {
  userId,
  userName: 'Alice',
  userEmail: 'alice@example.com',
  authenticators: [],
  apiKeys: [
    {
      credential: { publicKey: p256PublicKey, type: 'CREDENTIAL_TYPE_API_KEY_P256' },
      apiKeyId: 'k-1',
      apiKeyName: 'laptop',
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  ],
  userTags: [],
  oauthProviders: [],
  createdAt: timestamp,
  updatedAt: timestamp,
  mfaPolicies: [],
};
const completedCreateWallet = {
  activity: {
    id: 'a-1',
    organizationId,
    status: 'ACTIVITY_STATUS_COMPLETED',
    type: 'ACTIVITY_TYPE_CREATE_WALLET',
    intent: { createWalletIntent: { walletName: 'Treasury', accounts: [ethereumAccount] } },
    result: {
      createWalletResult: { walletId: 'w-1', addresses: ['0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7'] },
    },
    votes: [
      {
        id: 'v-1',
        userId,
        user: sampleUser,
        activityId: 'a-1',
        selection: 'VOTE_SELECTION_APPROVED',
        message: '{"parameters":{}}',
        publicKey: p256PublicKey,
        signature: '3045022100aa',
        scheme: 'SIGNATURE_SCHEME_TK_API_P256',
        createdAt: timestamp,
      },
    ],
    fingerprint: 'sha256:' + 'ab'.repeat(32),
    canApprove: false,
    canReject: false,
    createdAt: timestamp,
    updatedAt: timestamp,
    // A field a newer service might add: kept, not refused.
    policyEvaluations: [],
  },
};

describe('activity records', () => {
  it('parses a completed record and extracts the typed result member', () => {
    const { activity } = parseResponse(activityResponseSchema, completedCreateWallet, 'create_wallet response');
    expect(activity.policyEvaluations).toEqual([]);
    const result: ResultOf<typeof operations.create_wallet> | undefined = activityResultOf(operations.create_wallet, activity);
    expect(result).toEqual({ walletId: 'w-1', addresses: ['0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7'] });
  });

  it('answers undefined before completion and null for approve/reject', () => {
    const pending = activityResponseSchema.parse({
      activity: { ...completedCreateWallet.activity, status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED', result: {} },
    }).activity;
    expect(activityResultOf(operations.create_wallet, pending)).toBeUndefined();
    expect(activityResultOf(operations.approve_activity, pending)).toBeNull();
  });

  it('refuses a record whose intent has two members, or a result member of the wrong shape', () => {
    const twoIntents = {
      activity: { ...completedCreateWallet.activity, intent: { createWalletIntent: {}, deleteWalletsIntent: {} } },
    };
    expect(() => parseResponse(activityResponseSchema, twoIntents, 'record')).toThrow(/activity\.intent: .*exactly one member/);
    const badResult = activityResponseSchema.parse({
      activity: { ...completedCreateWallet.activity, result: { createWalletResult: { walletId: 5 } } },
    }).activity;
    expect(() => activityResultOf(operations.create_wallet, badResult)).toThrow(
      /activity\.result\.createWalletResult is invalid: walletId: .*expected string/,
    );
  });
});

describe('error bodies', () => {
  it('parses the grpc-gateway error body and its TurnkeyErrorDetail', () => {
    const body = {
      code: 3,
      message: 'organization mismatch',
      details: [{ '@type': TURNKEY_ERROR_DETAIL_TYPE, turnkeyErrorCode: 'ORGANIZATION_MISMATCH' }],
    };
    const parsed = errorBodySchema.parse(body);
    expect(turnkeyErrorDetail.parse(parsed.details[0]).turnkeyErrorCode).toBe('ORGANIZATION_MISMATCH');
    expect(errorBodySchema.safeParse({ code: '3', message: 'x', details: [] }).success).toBe(false);
  });
});

describe('type helpers', () => {
  it('infer parameters from the table', () => {
    const params: ParamsOf<typeof operations.create_policy> = {
      policyName: 'n',
      effect: 'EFFECT_ALLOW',
      notes: '',
    };
    expect(operations.create_policy.parameters.parse(params)).toEqual(params);
  });
});
