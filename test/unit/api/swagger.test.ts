/**
 * Cross-checks every declared operation against the swagger files themselves (pinned copies of the
 * references in ./fixtures): paths, ACTIVITY_TYPE_* values, intent/result member names, and — walking
 * each zod schema alongside its swagger definition — every field name, requiredness, enum value and
 * scalar type, plus strict requests / loose responses.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  activityResponseSchema,
  activityTypeInfo,
  activityTypes,
  allOperations,
  olderActivityVersions,
  int64,
  operationByPath,
  operations,
  submitBodySchema,
  type Operation,
} from '../../../src/shared/api';

interface SwaggerNode {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: string[];
  items?: SwaggerNode;
  properties?: Record<string, SwaggerNode>;
  required?: string[];
}
interface Swagger {
  paths: Record<string, { post: { parameters: { schema: SwaggerNode }[]; responses: Record<string, { schema: SwaggerNode }> } }>;
  definitions: Record<string, SwaggerNode>;
}

const load = (file: string): Swagger => JSON.parse(readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8')) as Swagger;
const publicApi = load('turnkey-public-api.swagger.json');
const authProxy = load('turnkey-auth-proxy.swagger.json');

const refName = (node: SwaggerNode): string => {
  if (node.$ref === undefined) throw new Error('expected a $ref');
  return node.$ref.replace('#/definitions/', '');
};

type Side = 'request' | 'response';

/** Definitions our schemas deliberately model differently, with the reason; otherwise compared as usual. */
const modelledDifferently: Record<string, (schema: z.ZodType, side: Side) => boolean> = {
  // v1Intent / v1Result have one optional member per activity type (162 of them); the record keeps
  // exactly one and the operation's own schema parses it (activityResultOf).
  v1Intent: (schema) => schema instanceof z.ZodRecord,
  v1Result: (schema) => schema instanceof z.ZodRecord,
  // In records any ACTIVITY_TYPE_* is accepted so a newer service stays readable; filters are enums.
  v1ActivityType: (schema, side) => side === 'response' && schema instanceof z.ZodString,
  // A sent transaction's error: the Sandbox reports the node's message only, no decoded revert chain.
  v1TxError: (schema, side) => side === 'response' && schema instanceof z.ZodObject && 'message' in schema.shape,
};

/** Walks `schema` and the swagger `node` together; returns every mismatch as `where: what`. */
function compare(schema: z.ZodType, node: SwaggerNode, swagger: Swagger, side: Side, where: string): string[] {
  if (node.$ref !== undefined) {
    const name = refName(node);
    if (modelledDifferently[name]?.(schema, side)) return [];
    const definition = swagger.definitions[name];
    if (!definition) return [`${where}: swagger has no definition ${name}`];
    return compare(schema, definition, swagger, side, `${where}<${name}>`);
  }
  if (node.enum) {
    // The swagger lists the hosted chains; the Sandbox serves whichever chains its --rpc flags name.
    if (side === 'request' && where.endsWith('.caip2') && schema instanceof z.ZodString) return [];
    if (schema instanceof z.ZodEnum) {
      return JSON.stringify(schema.options) === JSON.stringify(node.enum)
        ? []
        : [`${where}: enum ${JSON.stringify(schema.options)} ≠ swagger ${JSON.stringify(node.enum)}`];
    }
    if (schema instanceof z.ZodLiteral) {
      return JSON.stringify(schema.values ? [...schema.values] : []) === JSON.stringify(node.enum)
        ? []
        : [`${where}: literal ≠ swagger enum ${JSON.stringify(node.enum)}`];
    }
    return [`${where}: swagger enum, schema is ${schema.def.type}`];
  }
  if (node.format === 'int64' && node.type === 'integer') {
    return schema === int64 ? [] : [`${where}: int64 must use the int64 schema (string on the wire)`];
  }
  switch (node.type) {
    case 'string':
      return schema instanceof z.ZodString ? [] : [`${where}: swagger string, schema is ${schema.def.type}`];
    case 'boolean':
      return schema instanceof z.ZodBoolean ? [] : [`${where}: swagger boolean, schema is ${schema.def.type}`];
    case 'integer':
      return schema instanceof z.ZodNumber && node.format === 'int32'
        ? []
        : [`${where}: swagger integer ${node.format ?? ''}, schema is ${schema.def.type}`];
    case 'array':
      if (!(schema instanceof z.ZodArray)) return [`${where}: swagger array, schema is ${schema.def.type}`];
      if (!node.items) return [`${where}: swagger array without items`];
      return compare(schema.element as z.ZodType, node.items, swagger, side, `${where}[]`);
    default:
      return compareObject(schema, node, swagger, side, where);
  }
}

function compareObject(schema: z.ZodType, node: SwaggerNode, swagger: Swagger, side: Side, where: string): string[] {
  if (!(schema instanceof z.ZodObject)) return [`${where}: swagger object, schema is ${schema.def.type}`];
  const problems: string[] = [];
  const catchall = schema.def.catchall?._zod.def.type;
  if (side === 'request' && catchall !== 'never') problems.push(`${where}: request objects must be strict`);
  if (side === 'response' && catchall !== 'unknown') problems.push(`${where}: response objects must be loose`);
  const shape = schema.shape as Record<string, z.ZodType>;
  const properties = node.properties ?? {};
  const ours = Object.keys(shape).sort();
  const theirs = Object.keys(properties).sort();
  if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
    problems.push(`${where}: fields ${JSON.stringify(ours)} ≠ swagger ${JSON.stringify(theirs)}`);
  }
  const required = ours.filter((key) => !(shape[key] instanceof z.ZodOptional)).sort();
  const swaggerRequired = [...(node.required ?? [])].sort();
  if (JSON.stringify(required) !== JSON.stringify(swaggerRequired)) {
    problems.push(`${where}: required ${JSON.stringify(required)} ≠ swagger ${JSON.stringify(swaggerRequired)}`);
  }
  for (const key of ours) {
    const property = properties[key];
    if (!property) continue;
    const field = shape[key] as z.ZodType;
    const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
    problems.push(...compare(inner, property, swagger, side, `${where}.${key}`));
  }
  return problems;
}

function post(swagger: Swagger, path: string) {
  const entry = swagger.paths[path];
  if (!entry) throw new Error(`swagger has no path ${path}`);
  const [body] = entry.post.parameters;
  const ok = entry.post.responses['200'];
  if (!body || !ok) throw new Error(`${path} lacks a body parameter or a 200 response`);
  return { request: body.schema, response: ok.schema };
}

const requestedOperations = {
  query: [
    'get_api_key',
    'get_api_keys',
    'get_policy',
    'list_policies',
    'get_session_profiles',
    'list_smart_contract_interfaces',
    'get_smart_contract_interface',
    'list_verified_suborgs',
    'get_activity',
    'list_activities',
    'whoami',
    'get_organization',
    'get_organization_configs',
    'list_users',
    'get_user',
    'list_wallets',
    'get_wallet',
    'list_wallet_accounts',
    'get_wallet_account',
    'list_private_keys',
    'get_private_key',
    'list_user_tags',
    'get_oauth_providers',
    'get_authenticators',
    'get_authenticator',
    'list_tvc_apps',
    'get_tvc_app',
    'list_app_proofs',
    'get_boot_proof',
    'list_suborgs',
    // webhooks
    'list_webhook_endpoints',
    // everyday operations
    'get_session_profile',
    'get_policy_evaluations',
    'list_private_key_tags',
    'get_active_policies',
    'get_latest_boot_proof',
    'get_ip_allowlist',
    // MFA policies
    'get_mfa_policies',
    'get_mfa_policy',
    'get_mfa_status',
    // secrets and stored credentials
    'list_secrets',
    'get_oauth2_credential',
    'list_oauth2_credentials',
    'list_fiat_on_ramp_credentials',
    // sending transactions
    'get_send_transaction_status',
    // broadcasting, nonces and wallet data
    'get_nonces',
    'get_gas_usage',
    'get_wallet_address_balances',
    'list_supported_assets',
    'list_eth_transaction_history',
    'list_sol_transaction_history',
  ],
  activity: [
    'oauth_login',
    'export_wallet',
    'create_policy',
    'delete_private_keys',
    'delete_oauth_providers',
    'delete_authenticators',
    'delete_user_tags',
    'export_private_key',
    'delete_sub_organization',
    'update_root_quorum',
    'delete_tvc_app_and_deployments',
    'update_user_name',
    'delete_smart_contract_interface',
    'init_import_private_key',
    'spark_prepare_lightning_receive',
    'approve_activity',
    'reject_activity',
    'create_users',
    'update_user',
    'delete_users',
    'create_wallet',
    'create_wallet_accounts',
    'delete_wallets',
    'create_private_keys',
    'create_policies',
    'update_policy',
    'delete_policy',
    'create_api_keys',
    'delete_api_keys',
    'import_private_key',
    'init_import_wallet',
    'import_wallet',
    'export_wallet_account',
    'create_sub_organization',
    'create_user_tag',
    'create_session_profile',
    'create_smart_contract_interface',
    'create_oauth_providers',
    'create_authenticators',
    'create_tvc_app',
    'sign_raw_payload',
    'sign_raw_payloads',
    'sign_transaction',
    // everyday operations
    'update_wallet',
    'delete_wallet_accounts',
    'delete_policies',
    'update_user_tag',
    'update_user_email',
    'update_user_phone_number',
    'update_organization_name',
    'create_api_only_users',
    'stamp_login',
    'create_read_write_session',
    'create_read_only_session',
    'email_auth',
    'init_user_email_recovery',
    'recover_user',
    'create_private_key_tag',
    'update_private_key_tag',
    'delete_private_key_tags',
    'init_otp',
    'verify_otp',
    'otp_login',
    // organization administration and the sign-in operations older SDKs call
    'set_organization_feature',
    'remove_organization_feature',
    'create_invitations',
    'delete_invitation',
    // webhooks
    'create_webhook_endpoint',
    'update_webhook_endpoint',
    'delete_webhook_endpoint',
    'set_ip_allowlist',
    'remove_ip_allowlist',
    'init_otp_auth',
    'otp_auth',
    'oauth',
    // MFA policies
    'create_mfa_policy',
    'update_mfa_policy',
    'delete_mfa_policy',
    // secrets and stored credentials
    'init_import_secrets',
    'import_secrets',
    'export_secrets',
    'create_oauth2_credential',
    'update_oauth2_credential',
    'delete_oauth2_credential',
    'create_fiat_on_ramp_credential',
    'update_fiat_on_ramp_credential',
    'delete_fiat_on_ramp_credential',
    // sending transactions
    'eth_send_transaction',
    'sol_send_transaction',
    'eth_send_raw_transaction',
    'eth_undelegate_7702',
  ],
  proxy: ['signup_v2', 'otp_login_v2', 'otp_init', 'otp_verify', 'otp_init_v2', 'otp_verify_v2'],
};

describe('the swagger comparison itself', () => {
  const policyIntent = { $ref: '#/definitions/v1CreatePolicyIntentV3' };
  const faithful = z.strictObject({
    policyName: z.string(),
    effect: z.enum(['EFFECT_ALLOW', 'EFFECT_DENY']),
    condition: z.string().optional(),
    consensus: z.string().optional(),
    notes: z.string(),
    time: z.string().optional(),
  });

  it('accepts a faithful schema', () => {
    expect(compare(faithful, policyIntent, publicApi, 'request', 'p')).toEqual([]);
  });

  it('reports a misspelt field, wrong requiredness, a wrong enum, a wrong scalar and a loose request', () => {
    const problems = compare(
      z.looseObject({
        ...faithful.shape,
        polcyName: z.string(),
        policyName: z.string().optional(),
        effect: z.enum(['EFFECT_ALLOW']),
        notes: z.number(),
      }),
      policyIntent,
      publicApi,
      'request',
      'p',
    );
    expect(problems.join('\n')).toMatch(/must be strict/);
    expect(problems.join('\n')).toMatch(/fields .*polcyName/);
    expect(problems.join('\n')).toMatch(/required/);
    expect(problems.join('\n')).toMatch(/p<v1CreatePolicyIntentV3>\.effect<v1Effect>: enum/);
    expect(problems.join('\n')).toMatch(/p<v1CreatePolicyIntentV3>\.notes: swagger string/);
  });
});

describe('operation table', () => {
  it('declares exactly the requested operations, each under its own name and path', () => {
    for (const kind of ['query', 'activity', 'proxy'] as const) {
      const declared = allOperations.filter((op) => op.kind === kind).map((op) => op.name);
      expect(declared.sort(), kind).toEqual([...requestedOperations[kind]].sort());
    }
    for (const [name, op] of Object.entries(operations)) {
      expect(op.name).toBe(name);
      expect(operationByPath(op.path)).toBe(op);
    }
    expect(operationByPath('/public/v1/submit/no_such_thing')).toBeUndefined();
  });

  it('lists every v1ActivityType value in swagger order', () => {
    expect([...activityTypes]).toEqual(publicApi.definitions.v1ActivityType?.enum);
  });
});

const byKind = <K extends Operation['kind']>(kind: K) => allOperations.filter((op): op is Extract<Operation, { kind: K }> => op.kind === kind);

/**
 * Queries @turnkey/http's client already calls but the reference swagger predates; their shapes follow the client's
 * generated types (the compat tests call them through it, and the typecheck holds them to those types).
 */
const newerThanSwagger = new Set(['get_active_policies']);

it('declares operations newer than the swagger only where the swagger indeed lacks them', () => {
  for (const name of newerThanSwagger) expect(publicApi.paths[`/public/v1/query/${name}`], name).toBeUndefined();
});

describe.each(
  byKind('query')
    .filter((op) => !newerThanSwagger.has(op.name))
    .map((op) => [op.name, op] as const),
)('query %s', (_name, op) => {
  it('matches the swagger request and response definitions field by field', () => {
    const { request, response } = post(publicApi, op.path);
    expect(compare(op.request, request, publicApi, 'request', op.name)).toEqual([]);
    expect(compare(op.response, response, publicApi, 'response', op.name)).toEqual([]);
  });
});

describe.each(byKind('proxy').map((op) => [op.name, op] as const))('auth proxy %s', (_name, op) => {
  it('matches the swagger request and response definitions field by field', () => {
    const { request, response } = post(authProxy, op.path);
    expect(compare(op.request, request, authProxy, 'request', op.name)).toEqual([]);
    expect(compare(op.response, response, authProxy, 'response', op.name)).toEqual([]);
  });
});

describe.each(byKind('activity').map((op) => [op.name, op] as const))('activity %s', (_name, op) => {
  const { request, response } = post(publicApi, op.path);
  const requestDefinition = publicApi.definitions[refName(request)];
  const intent = publicApi.definitions.v1Intent?.properties ?? {};
  const result = publicApi.definitions.v1Result?.properties ?? {};

  it('submits the current ACTIVITY_TYPE_* version and answers v1ActivityResponse', () => {
    expect(requestDefinition?.properties?.type?.enum).toEqual([op.activityType]);
    expect(refName(response)).toBe('v1ActivityResponse');
    expect(op.acceptsAppProofs).toBe('generateAppProofs' in (requestDefinition?.properties ?? {}));
  });

  it('matches the whole swagger request body (envelope and parameters) field by field', () => {
    expect(compare(submitBodySchema(op), request, publicApi, 'request', op.name)).toEqual([]);
  });

  it('names an intent member whose definition is the request parameters', () => {
    const member = intent[op.intentKey];
    expect(member, `v1Intent.${op.intentKey}`).toBeDefined();
    expect(member?.$ref).toBe(requestDefinition?.properties?.parameters?.$ref);
  });

  it('names a result member and matches its definition field by field', () => {
    if (op.resultKey === null) {
      // approve/reject answer the target activity: nothing of their own.
      expect(op.result.safeParse(null).success).toBe(true);
      return;
    }
    const member = result[op.resultKey];
    expect(member, `v1Result.${op.resultKey}`).toBeDefined();
    if (member) expect(compare(op.result, member, publicApi, 'response', op.resultKey)).toEqual([]);
  });
});

describe('activity record', () => {
  it('matches v1ActivityResponse field by field', () => {
    const schema = { $ref: '#/definitions/v1ActivityResponse' };
    expect(compare(activityResponseSchema, schema, publicApi, 'response', 'activityResponse')).toEqual([]);
  });

  it('knows intent and result members for every declared and superseded type', () => {
    const swaggerTypes = new Set(publicApi.definitions.v1ActivityType?.enum);
    const intent = publicApi.definitions.v1Intent?.properties ?? {};
    const result = publicApi.definitions.v1Result?.properties ?? {};
    for (const [type, info] of Object.entries(activityTypeInfo)) {
      expect(swaggerTypes.has(type), type).toBe(true);
      expect(intent[info.intentKey], `${type} → v1Intent.${info.intentKey}`).toBeDefined();
      if (info.resultKey !== null) expect(result[info.resultKey], `${type} → v1Result.${info.resultKey}`).toBeDefined();
    }
    for (const op of byKind('activity')) expect(activityTypeInfo[op.activityType]?.intentKey).toBe(op.intentKey);
  });
});

describe.each(olderActivityVersions.map((version) => [version.activityType, version] as const))('older version %s', (_type, version) => {
  const intent = publicApi.definitions.v1Intent?.properties ?? {};
  const result = publicApi.definitions.v1Result?.properties ?? {};

  it('matches its own intent definition field by field and names a declared result member', () => {
    const member = intent[version.intentKey];
    expect(member, `v1Intent.${version.intentKey}`).toBeDefined();
    // CREATE_POLICY / _V2 also take the condition form of V3; their own definition is the selector form.
    const own = version.parameters instanceof z.ZodUnion ? (version.parameters.options[0] as z.ZodType) : version.parameters;
    if (member) expect(compare(own, member, publicApi, 'request', version.activityType)).toEqual([]);
    expect(result[version.resultKey], `v1Result.${version.resultKey}`).toBeDefined();
  });
});
