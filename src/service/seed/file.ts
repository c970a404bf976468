/**
 * Seed files (docs/sandbox.md#seed-files): the organizations a Sandbox starts with, declared in YAML or JSON with
 * Turnkey's own field names. Loading checks the shape (every bad field named by its path), resolves each API key to
 * a public key (reading or generating its key file beside the seed) and fingerprints the result.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import canonicalize from 'canonicalize';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { effect } from '../../shared/api/enums';
import { privateKeyParams, walletParams } from '../../shared/api/params';
import { bounded, int32 } from '../../shared/api/primitives';
import { fieldIssues } from '../../shared/api/validate';
import { API_KEY_CURVES, apiPublicKeyFromPrivate, generateApiKeyPair, type ApiKeyCurve } from '../../shared/crypto/keys';
import { QkError } from '../../shared/errors';

const fixedId = z.uuid({ error: 'must be a UUID (ids are UUIDs, as Turnkey gives them)' });

const seedApiKey = z
  .strictObject({
    apiKeyName: bounded.name,
    curve: z.enum(API_KEY_CURVES).default('p256'),
    /** Hex, as the key's owner holds it (compressed or uncompressed SEC1; Ed25519 raw). */
    publicKey: bounded.publicKey.regex(/^[0-9a-fA-F]+$/, 'must be hex').optional(),
    /** A JSON key file `{publicKey, privateKey, curve}` relative to the seed file, generated (mode 0600) when absent. */
    keyFile: z.string().min(1).optional(),
  })
  .superRefine((key, ctx) => {
    if ((key.publicKey === undefined) === (key.keyFile === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['publicKey'], message: 'give exactly one of publicKey and keyFile' });
    }
  });

const seedUser = z.strictObject({
  userId: fixedId.optional(),
  userName: bounded.name.min(1),
  userEmail: z.email().optional(),
  apiKeys: z.array(seedApiKey).default([]),
});

const seedPolicy = z.strictObject({
  policyId: fixedId.optional(),
  policyName: bounded.name.min(1),
  effect,
  condition: bounded.policyExpression.optional(),
  consensus: bounded.policyExpression.optional(),
  notes: bounded.notes.default(''),
});

const organizationFields = {
  organizationId: fixedId.optional(),
  organizationName: bounded.name.min(1),
  users: z.array(seedUser).min(1, 'an organization needs at least one user'),
  /** The root quorum by user name: `threshold` of `userNames` must approve. */
  rootQuorum: z.strictObject({ threshold: int32.min(1), userNames: z.array(bounded.name).min(1) }),
  wallets: z.array(walletParams.extend({ walletId: fixedId.optional() })).default([]),
  privateKeys: z.array(privateKeyParams.omit({ privateKeyTags: true }).extend({ privateKeyId: fixedId.optional() })).default([]),
  policies: z.array(seedPolicy).default([]),
};

const seedSubOrganization = z.strictObject(organizationFields);

export const seedFileSchema = z.strictObject({
  organization: z.strictObject({ ...organizationFields, subOrganizations: z.array(seedSubOrganization).default([]) }),
});

export type SeedOrganization = z.output<typeof seedSubOrganization>;
export type SeedApiKey = z.output<typeof seedApiKey>;

/** A key as the store takes it: the key file read or generated. */
export interface ResolvedApiKey {
  apiKeyName: string;
  curve: ApiKeyCurve;
  publicKey: string;
}

type Resolved<T> = Omit<T, 'users'> & { users: (Omit<SeedOrganization['users'][number], 'apiKeys'> & { apiKeys: ResolvedApiKey[] })[] };
export type ResolvedOrganization = Resolved<SeedOrganization>;

export interface Seed {
  /** The file it came from, for messages. */
  file: string;
  /** `sha256:` + hex SHA-256 of the canonical JSON of the resolved seed: layout, comments and key order do not count. */
  fingerprint: string;
  organization: ResolvedOrganization & { subOrganizations: ResolvedOrganization[] };
}

export function seedFieldError(file: string, path: string, message: string): QkError {
  return new QkError('CONFIG_INVALID', `seed file ${file}: ${path}: ${message}`, { file, issues: [{ path, message }] });
}

/** Reads a key file, checking that its private key is the public key's; or generates one where there is none. */
function resolveKeyFile(seedFile: string, key: SeedApiKey & { keyFile: string }, field: string): string {
  const path = resolve(dirname(seedFile), key.keyFile);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw seedFieldError(seedFile, `${field}.keyFile`, `cannot read ${path}: ${(error as Error).message}`);
    const pair = generateApiKeyPair(key.curve);
    // 'wx': never overwrite a key file another process wrote in the meantime.
    writeFileSync(path, `${JSON.stringify({ ...pair, curve: key.curve }, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    return pair.publicKey;
  }
  const parsed = z.strictObject({ publicKey: z.string(), privateKey: z.string(), curve: z.enum(API_KEY_CURVES) }).safeParse(safeJson(text));
  if (!parsed.success) throw seedFieldError(seedFile, `${field}.keyFile`, `${path} is not a key file {publicKey, privateKey, curve}`);
  if (parsed.data.curve !== key.curve)
    throw seedFieldError(seedFile, `${field}.curve`, `is ${key.curve} but ${path} holds a ${parsed.data.curve} key`);
  let derived: string;
  try {
    derived = apiPublicKeyFromPrivate(parsed.data.curve, parsed.data.privateKey);
  } catch (error) {
    throw seedFieldError(seedFile, `${field}.keyFile`, `${path}: ${(error as Error).message}`);
  }
  if (derived.toLowerCase() !== parsed.data.publicKey.toLowerCase()) {
    throw seedFieldError(seedFile, `${field}.keyFile`, `${path}: its public key is not the one its private key gives`);
  }
  return derived;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function resolveOrganization<T extends SeedOrganization>(file: string, org: T, field: string): Resolved<T> {
  return {
    ...org,
    users: org.users.map((user, userIndex) => ({
      ...user,
      apiKeys: user.apiKeys.map((key, keyIndex) => {
        const keyField = `${field}.users[${userIndex}].apiKeys[${keyIndex}]`;
        const publicKey = key.keyFile === undefined ? key.publicKey! : resolveKeyFile(file, { ...key, keyFile: key.keyFile }, keyField);
        return { apiKeyName: key.apiKeyName, curve: key.curve, publicKey };
      }),
    })),
  };
}

/** Reads and checks a seed file (YAML, of which JSON is a part); CONFIG_INVALID names the file and the field. */
export function loadSeedFile(file: string): Seed {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new QkError('CONFIG_INVALID', `seed file ${file} cannot be read: ${(error as Error).message}`, { file });
  }
  let document: unknown;
  try {
    document = parseYaml(text, { prettyErrors: true });
  } catch (error) {
    throw new QkError('CONFIG_INVALID', `seed file ${file} is neither YAML nor JSON: ${(error as Error).message}`, { file });
  }
  const parsed = seedFileSchema.safeParse(document);
  if (!parsed.success) {
    const issues = fieldIssues(parsed.error);
    const described = issues.map(({ path, message }) => `${path === '' ? '(document)' : path}: ${message}`).join('; ');
    throw new QkError('CONFIG_INVALID', `seed file ${file}: ${described}`, { file, issues });
  }
  const { subOrganizations, ...root } = parsed.data.organization;
  const organization = {
    ...resolveOrganization(file, root, 'organization'),
    subOrganizations: subOrganizations.map((sub, index) => resolveOrganization(file, sub, `organization.subOrganizations[${index}]`)),
  };
  const fingerprint = `sha256:${createHash('sha256')
    .update(canonicalize(organization) ?? '')
    .digest('hex')}`;
  return { file, fingerprint, organization };
}
