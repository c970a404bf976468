import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { z } from 'zod';
import { QkError } from '../../shared/errors';
import { assertKeyName } from '../keychain/key-names';
import { describeTokenKey, tokenKeySchema, validateTokenKey, type TokenKey } from '../pkcs11/token-key';
import { passkeyCredentialSchema, validatePasskey, type PasskeyCredential } from '../passkeys/passkey';
import { JsonFile } from '../storage/json-file';
import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY } from '../../shared/crypto/signers';
import { sha256HexSchema } from '../../shared/journal/format';
import { trimTrailing } from '../../shared/text';

export { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY };

export type ProfileKind = 'sandbox' | 'hosted';

/** Where and as whom the app talks to a service. Holds no secrets: the API key is referenced by its keychain name. */
export interface Profile {
  id: string;
  name: string;
  kind: ProfileKind;
  baseUrl: string;
  authProxyUrl?: string | undefined;
  organizationId: string;
  /** The keychain API key the profile signs with; with a token key, the name that key goes by on the screens. */
  apiKeyName: string;
  /** A key on a PKCS#11 token that signs this profile's stamps instead of the keychain key (docs/architecture.md). */
  tokenKey?: TokenKey | undefined;
  /** A passkey or security key registered by this app for the profile's user: it stamps the profile's votes. */
  passkey?: PasskeyCredential | undefined;
  /** Uncompressed P-256 key (130 hex) that must have signed every export/import bundle this profile accepts. */
  enclaveSignerPublicKey: string;
  authProxyConfigId?: string | undefined;
  /**
   * A Sandbox profile's own attestation root: the SHA-256 of the root certificate its service's boot proofs chain to
   * (docs/formats.md#boot-proofs), pinned from the service's start like the signer key. Hosted profiles have none:
   * Turnkey's boot proofs chain to AWS Nitro's root, which the app pins for all.
   */
  attestationRoot?: string | undefined;
}

/** What a caller supplies; hosted profiles default the signer key to the production one. */
export type ProfileInput = Omit<Profile, 'id' | 'enclaveSignerPublicKey'> & { enclaveSignerPublicKey?: string | undefined };

/** Fields to change; an optional field given as undefined is cleared. */
export type ProfileChanges = { [Field in keyof ProfileInput]?: ProfileInput[Field] | undefined };

/**
 * Runs after a change is validated and before it is written, with no other profile write in between, so what it
 * approves is exactly what gets stored; throwing stops the write. `before` is absent when adding.
 */
export type ProfileChangeCheck = (before: Profile | undefined, after: Profile) => Promise<void>;

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const UNCOMPRESSED_P256_PATTERN = /^04[0-9a-fA-F]{128}$/;

const profileSchema = z.object({
  id: z.string().regex(UUID_PATTERN),
  name: z.string().min(1).max(64),
  kind: z.enum(['sandbox', 'hosted']),
  baseUrl: z.string(),
  authProxyUrl: z.string().optional(),
  organizationId: z.string().regex(UUID_PATTERN),
  apiKeyName: z.string(),
  // Optional, so profiles files written before token keys existed read as they are.
  tokenKey: tokenKeySchema.optional(),
  passkey: passkeyCredentialSchema.optional(),
  enclaveSignerPublicKey: z.string().regex(UNCOMPRESSED_P256_PATTERN),
  authProxyConfigId: z.string().regex(UUID_PATTERN).optional(),
  attestationRoot: sha256HexSchema.optional(),
});

const profilesFileSchema = z.object({
  version: z.literal(1),
  activeProfileId: z.string().nullable(),
  profiles: z.array(profileSchema),
});
type ProfilesFile = z.infer<typeof profilesFileSchema>;

const EMPTY: ProfilesFile = { version: 1, activeProfileId: null, profiles: [] };

export type ProfileChange = 'added' | 'edited' | 'removed' | 'active';

export interface ProfilesOptions {
  dataDir: string;
  /** Told after every change that was written. */
  onChange?: (change: ProfileChange) => void;
}

/** The profiles and which one is active, kept in `<dataDir>/profiles.json`. */
export class Profiles {
  private readonly file: JsonFile<ProfilesFile>;
  private readonly onChange: ((change: ProfileChange) => void) | undefined;

  constructor({ dataDir, onChange }: ProfilesOptions) {
    this.file = new JsonFile(join(dataDir, 'profiles.json'), profilesFileSchema);
    this.onChange = onChange;
  }

  async list(): Promise<Profile[]> {
    return (await this.load()).profiles.map(copyProfile);
  }

  async get(id: string): Promise<Profile> {
    return copyProfile(findProfile(await this.load(), id));
  }

  /** The active profile, or `undefined` when none is chosen. */
  async getActive(): Promise<Profile | undefined> {
    const document = await this.load();
    const active = document.profiles.find((profile) => profile.id === document.activeProfileId);
    return active && copyProfile(active);
  }

  async add(input: ProfileInput, check?: ProfileChangeCheck): Promise<Profile> {
    return this.write('added', async (current) => {
      const document = current ?? EMPTY;
      const profile = validateProfile({ ...input, id: randomUUID() });
      assertNameFree(document, profile.name, profile.id);
      await check?.(undefined, copyProfile(profile));
      return { next: { ...document, profiles: [...document.profiles, profile] }, result: copyProfile(profile) };
    });
  }

  /**
   * Applies `changes` and validates the result as a whole (e.g. switching to hosted re-checks the URL rules).
   * A key present with value `undefined` clears an optional field (a hosted signer key falls back to production).
   */
  async update(id: string, changes: ProfileChanges, check?: ProfileChangeCheck): Promise<Profile> {
    return this.write('edited', async (current) => {
      const document = current ?? EMPTY;
      const existing = findProfile(document, id);
      const profile = validateProfile({ ...existing, ...changes, id });
      assertNameFree(document, profile.name, id);
      await check?.(copyProfile(existing), copyProfile(profile));
      const profiles = document.profiles.map((candidate) => (candidate.id === id ? profile : candidate));
      return { next: { ...document, profiles }, result: copyProfile(profile) };
    });
  }

  /** Removes a profile; if it was active, no profile is active afterwards. */
  async remove(id: string): Promise<void> {
    await this.write('removed', async (current) => {
      const document = current ?? EMPTY;
      findProfile(document, id);
      return {
        next: {
          ...document,
          activeProfileId: document.activeProfileId === id ? null : document.activeProfileId,
          profiles: document.profiles.filter((profile) => profile.id !== id),
        },
        result: undefined,
      };
    });
  }

  /** Makes `id` the active profile; `null` clears the choice. */
  async setActive(id: string | null): Promise<void> {
    await this.write('active', async (current) => {
      const document = current ?? EMPTY;
      if (id !== null) findProfile(document, id);
      return { next: { ...document, activeProfileId: id }, result: undefined };
    });
  }

  /** Profiles that sign with the API key called `apiKeyName`. */
  async usingApiKey(apiKeyName: string): Promise<Profile[]> {
    return (await this.load()).profiles.filter((profile) => profile.apiKeyName === apiKeyName).map(copyProfile);
  }

  /** Follows an API key rename, so profiles keep signing with the same key. Returns how many profiles changed. */
  async renameApiKeyReferences(oldName: string, newName: string): Promise<number> {
    return this.write('edited', async (current) => {
      const document = current ?? EMPTY;
      let changed = 0;
      const profiles = document.profiles.map((profile) => {
        if (profile.apiKeyName !== oldName) return profile;
        changed += 1;
        return { ...profile, apiKeyName: newName };
      });
      return { next: { ...document, profiles }, result: changed };
    });
  }

  /** Writes through the file and reports the change once it is written. */
  private async write<R>(
    change: ProfileChange,
    apply: (current: ProfilesFile | undefined) => Promise<{ next: ProfilesFile; result: R }>,
  ): Promise<R> {
    const result = await this.file.update(apply);
    this.onChange?.(change);
    return result;
  }

  private async load(): Promise<ProfilesFile> {
    return (await this.file.read()) ?? EMPTY;
  }
}

function findProfile(document: ProfilesFile, id: string): Profile {
  const profile = document.profiles.find((candidate) => candidate.id === id);
  if (!profile) {
    throw new QkError('PROFILE_NOT_FOUND', `no profile with id ${JSON.stringify(id)}; list profiles to see the ids`, { id });
  }
  return profile;
}

function assertNameFree(document: ProfilesFile, name: string, ownId: string): void {
  if (document.profiles.some((profile) => profile.name === name && profile.id !== ownId)) {
    throw new QkError('ALREADY_EXISTS', `a profile named ${JSON.stringify(name)} already exists; choose another name`, {
      field: 'name',
    });
  }
}

function invalid(field: string, problem: string): QkError {
  return new QkError('REQUEST_INVALID', `profile.${field} ${problem}`, { field });
}

/** Validates every field of a profile-to-be, naming the first wrong field; returns the normalized profile. */
function validateProfile(candidate: Record<string, unknown>): Profile {
  const name = requireString(candidate, 'name');
  if (name.trim().length === 0 || name.length > 64) throw invalid('name', 'must be 1-64 characters and not blank');

  const kind = candidate.kind;
  if (kind !== 'sandbox' && kind !== 'hosted') {
    throw invalid('kind', `must be "sandbox" or "hosted", got ${JSON.stringify(kind)}`);
  }
  const baseUrl = validateServiceUrl(requireString(candidate, 'baseUrl'), 'baseUrl', kind);
  const authProxyUrl =
    candidate.authProxyUrl === undefined ? undefined : validateServiceUrl(requireString(candidate, 'authProxyUrl'), 'authProxyUrl', kind);

  const organizationId = requireString(candidate, 'organizationId');
  if (!UUID_PATTERN.test(organizationId)) {
    throw invalid('organizationId', `must be a UUID like 5f2c3e4a-0b1d-4c6e-9f8a-7b6c5d4e3f21, got ${JSON.stringify(organizationId)}`);
  }

  const apiKeyName = requireString(candidate, 'apiKeyName');
  assertKeyName(apiKeyName, 'apiKeyName', 'profile.apiKeyName');

  const enclaveSignerPublicKey = validateSignerKey(candidate.enclaveSignerPublicKey, kind);

  let authProxyConfigId: string | undefined;
  if (candidate.authProxyConfigId !== undefined) {
    authProxyConfigId = requireString(candidate, 'authProxyConfigId');
    if (!UUID_PATTERN.test(authProxyConfigId)) {
      throw invalid('authProxyConfigId', `must be a UUID, got ${JSON.stringify(authProxyConfigId)}`);
    }
  }

  const profile: Profile = {
    id: requireString(candidate, 'id'),
    name,
    kind,
    baseUrl,
    organizationId,
    apiKeyName,
    enclaveSignerPublicKey,
  };
  if (authProxyUrl !== undefined) profile.authProxyUrl = authProxyUrl;
  if (authProxyConfigId !== undefined) profile.authProxyConfigId = authProxyConfigId;
  if (candidate.tokenKey !== undefined) profile.tokenKey = validateTokenKey(candidate.tokenKey, 'profile.tokenKey');
  if (candidate.passkey !== undefined) profile.passkey = validatePasskey(candidate.passkey, 'profile.passkey');
  const attestationRoot = validateAttestationRoot(candidate.attestationRoot, kind);
  if (attestationRoot !== undefined) profile.attestationRoot = attestationRoot;
  return profile;
}

function requireString(candidate: Record<string, unknown>, field: string): string {
  const value = candidate[field];
  if (typeof value !== 'string') throw invalid(field, `is required and must be a string, got ${typeof value}`);
  return value;
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Hosted services must use https (plain http only on loopback, e.g. a tunnel or a local proxy); the sandbox runs
 * in-process, so its URLs must be loopback. Returns the URL without a trailing slash so paths join predictably.
 */
function validateServiceUrl(text: string, field: string, kind: ProfileKind): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(field, `is not a valid URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid(field, `must use https, got ${JSON.stringify(url.protocol)}`);
  }
  if (url.username || url.password) throw invalid(field, 'must not contain a user name or password');
  if (url.search || url.hash) throw invalid(field, 'must not contain a query string or fragment');
  const loopback = isLoopback(url.hostname);
  if (kind === 'sandbox' && !loopback) {
    throw invalid(field, `of a sandbox profile must point at this machine (localhost or 127.0.0.1), got ${url.host}`);
  }
  if (url.protocol === 'http:' && !loopback) {
    throw invalid(field, `must use https for ${url.host}; plain http is only allowed for localhost/127.0.0.1`);
  }
  return trimTrailing(url.href, '/');
}

function validateSignerKey(value: unknown, kind: ProfileKind): string {
  if (value === undefined) {
    if (kind === 'hosted') return PRODUCTION_SIGNER_SIGN_PUBLIC_KEY;
    throw invalid('enclaveSignerPublicKey', "is required for a sandbox profile (the sandbox service's own signer key)");
  }
  if (typeof value !== 'string' || !UNCOMPRESSED_P256_PATTERN.test(value)) {
    throw invalid('enclaveSignerPublicKey', 'must be an uncompressed P-256 public key: 130 hex characters starting with 04');
  }
  const normalized = value.toLowerCase();
  try {
    p256.Point.fromHex(normalized);
  } catch {
    throw invalid('enclaveSignerPublicKey', 'is not a point on the P-256 curve; copy the key again from its source');
  }
  return normalized;
}

/** A hosted profile keeps none (a Sandbox profile turned hosted loses it): its boot proofs chain to AWS Nitro's root. */
function validateAttestationRoot(value: unknown, kind: ProfileKind): string | undefined {
  if (value === undefined || kind === 'hosted') return undefined;
  const parsed = sha256HexSchema.safeParse(value);
  if (!parsed.success) throw invalid('attestationRoot', 'must be a SHA-256 fingerprint: 64 lowercase hex characters');
  return parsed.data;
}

function copyProfile(profile: Profile): Profile {
  return {
    ...profile,
    ...(profile.tokenKey === undefined ? {} : { tokenKey: { ...profile.tokenKey } }),
    ...(profile.passkey === undefined ? {} : { passkey: { ...profile.passkey } }),
  };
}

/**
 * The credential a profile signs with, for people: `label: value` lines and the phrase after "signs requests with";
 * a keychain key reads as `API key "ops"`, a token key with its token, module and pinned public key.
 */
export function profileCredential(profile: Pick<Profile, 'apiKeyName' | 'tokenKey'>): { label: string; value: string; phrase: string } {
  if (profile.tokenKey === undefined) {
    return { label: 'API key', value: profile.apiKeyName, phrase: `API key ${JSON.stringify(profile.apiKeyName)}` };
  }
  const value = `${describeTokenKey(profile.tokenKey)} (PKCS#11 module ${profile.tokenKey.module}, public key ${profile.tokenKey.publicKey})`;
  return { label: 'Token key', value, phrase: value };
}
