/**
 * Seed files (docs/sandbox.md#seed-files): the organizations a Sandbox starts with, declared in YAML or JSON with
 * Turnkey's own field names. Loading checks the shape (every bad field named by its path), resolves each API key to
 * a public key (reading its key file beside the seed, or generating a key pair that `writeKeyFiles` writes once the
 * whole seed has been checked) and fingerprints the result.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
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
    /** A JSON key file `{publicKey, privateKey, curve}` inside the seed file's folder, generated (mode 0600) when absent. */
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
export type SeedDocument = z.output<typeof seedFileSchema>;
export type SeedApiKey = z.output<typeof seedApiKey>;

/** A key as the store takes it: the key file read or generated. */
export interface ResolvedApiKey {
  apiKeyName: string;
  curve: ApiKeyCurve;
  publicKey: string;
}

type Resolved<T> = Omit<T, 'users'> & { users: (Omit<SeedOrganization['users'][number], 'apiKeys'> & { apiKeys: ResolvedApiKey[] })[] };
export type ResolvedOrganization = Resolved<SeedOrganization>;

/** A key file the seed names that does not exist yet: its generated key pair, written only once the seed is applied. */
export interface PendingKeyFile {
  path: string;
  /** The seed's field that names it, for messages. */
  field: string;
  contents: string;
  /** The generated key pair's public key. */
  publicKey: string;
}

/** What a database records of the seed it was created from, to tell a later seed how it differs (./kept.ts). */
export interface SeedContent {
  /** The file as parsed, defaults filled in: key files by name. */
  document: SeedDocument;
  /** The public key each key file held or was generated with, by the field of its API key. */
  keyFileKeys: Record<string, string>;
}

export interface Seed {
  /** The file it came from, for messages. */
  file: string;
  /**
   * `sha256:` + hex SHA-256 of the canonical JSON of the file as parsed: layout, comments and key order do not count,
   * and neither do the keys in its key files (a key file generated again leaves the seed what it was).
   */
  fingerprint: string;
  /** The fingerprint databases seeded before `content` was recorded hold: the same hash with key files' keys in. */
  keyedFingerprint: string;
  content: SeedContent;
  organization: ResolvedOrganization & { subOrganizations: ResolvedOrganization[] };
  /** Key files to generate, one per path however many keys name it; nothing is written while loading. */
  pendingKeyFiles: PendingKeyFile[];
}

export function seedFieldError(file: string, path: string, message: string): QkError {
  return new QkError('CONFIG_INVALID', `seed file ${file}: ${path}: ${message}`, { file, issues: [{ path, message }] });
}

/** Whether `path` is `folder` or lies below it. */
function isWithin(folder: string, path: string): boolean {
  const inside = relative(folder, path);
  return inside === '' || (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside));
}

/**
 * Where a key file goes: in the seed file's folder or a folder below it, whether the seed names it relatively or
 * absolutely, also once symbolic links are followed. A seed cannot have the Sandbox write anywhere else.
 */
function keyFilePath(seedFile: string, keyFile: string, field: string): string {
  const folder = dirname(resolve(seedFile));
  const path = resolve(folder, keyFile);
  const refuse = (why: string) =>
    seedFieldError(seedFile, `${field}.keyFile`, `${keyFile} ${why}; key files are kept in the seed's folder ${folder}`);
  if (!isWithin(folder, dirname(path))) throw refuse("is outside the seed's folder");
  let realFolder: string;
  try {
    realFolder = realpathSync(dirname(path));
  } catch (error) {
    throw refuse(`cannot be kept: its folder ${dirname(path)} cannot be read (${(error as Error).message})`);
  }
  if (!isWithin(realpathSync(folder), realFolder)) throw refuse("leads outside the seed's folder through a symbolic link");
  return path;
}

interface KeyFileResolution {
  seedFile: string;
  /** Key pairs generated for missing key files in this load, by path: a path two keys name holds one pair. */
  pending: Map<string, PendingKeyFile & { curve: ApiKeyCurve }>;
  /** The public key of each API key given by key file, by its field. */
  keyFileKeys: Record<string, string>;
}

/** Reads a key file, checking that its private key is the public key's; or generates a pair where there is none. */
function resolveKeyFile(resolution: KeyFileResolution, key: SeedApiKey & { keyFile: string }, field: string): string {
  const { seedFile, pending } = resolution;
  const path = keyFilePath(seedFile, key.keyFile, field);
  const generated = pending.get(path);
  if (generated !== undefined) {
    if (generated.curve !== key.curve)
      throw seedFieldError(seedFile, `${field}.curve`, `is ${key.curve} but ${path} is a ${generated.curve} key (${generated.field})`);
    return generated.publicKey;
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw seedFieldError(seedFile, `${field}.keyFile`, `cannot read ${path}: ${(error as Error).message}`);
    const pair = generateApiKeyPair(key.curve);
    const contents = `${JSON.stringify({ ...pair, curve: key.curve }, null, 2)}\n`;
    pending.set(path, { path, field: `${field}.keyFile`, contents, publicKey: pair.publicKey, curve: key.curve });
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

function resolveOrganization<T extends SeedOrganization>(resolution: KeyFileResolution, org: T, field: string): Resolved<T> {
  return {
    ...org,
    users: org.users.map((user, userIndex) => ({
      ...user,
      apiKeys: user.apiKeys.map((key, keyIndex) => {
        const keyField = `${field}.users[${userIndex}].apiKeys[${keyIndex}]`;
        if (key.keyFile === undefined) return { apiKeyName: key.apiKeyName, curve: key.curve, publicKey: key.publicKey! };
        const publicKey = resolveKeyFile(resolution, { ...key, keyFile: key.keyFile }, keyField);
        resolution.keyFileKeys[keyField] = publicKey;
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
  const resolution: KeyFileResolution = { seedFile: file, pending: new Map(), keyFileKeys: {} };
  const organization = {
    ...resolveOrganization(resolution, root, 'organization'),
    subOrganizations: subOrganizations.map((sub, index) => resolveOrganization(resolution, sub, `organization.subOrganizations[${index}]`)),
  };
  const pendingKeyFiles = [...resolution.pending.values()].map(({ path, field, contents, publicKey }) => ({ path, field, contents, publicKey }));
  return {
    file,
    fingerprint: fingerprintOf(parsed.data),
    keyedFingerprint: fingerprintOf(organization),
    content: { document: parsed.data, keyFileKeys: resolution.keyFileKeys },
    organization,
    pendingKeyFiles,
  };
}

function fingerprintOf(value: unknown): string {
  return `sha256:${createHash('sha256')
    .update(canonicalize(value) ?? '')
    .digest('hex')}`;
}

/**
 * Writes the key files the seed generated, once everything else in it has been checked: all of them or, when one
 * cannot be written, none (those already written are removed again).
 */
export function writeKeyFiles(seed: Seed): void {
  const written: string[] = [];
  for (const { path, field, contents } of seed.pendingKeyFiles) {
    try {
      // 'wx': never overwrite a key file another process wrote in the meantime.
      writeFileSync(path, contents, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      for (const done of written) rmSync(done, { force: true });
      throw seedFieldError(seed.file, field, `cannot write ${path}: ${(error as Error).message}`);
    }
    written.push(path);
  }
}
