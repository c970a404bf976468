/** The `profiles.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { sha256HexSchema } from '../../journal/format';
import { channel, keyName, noInput, nothing, profileId, publicKeyHex, tokenKeyRef } from '../schemas';

const url = z.string().min(1).max(2048);

const profileFields = {
  name: z.string().min(1).max(64),
  kind: z.enum(['sandbox', 'hosted']),
  baseUrl: url,
  authProxyUrl: url.optional(),
  organizationId: z.string().min(1).max(64),
  apiKeyName: keyName,
  authProxyConfigId: z.string().min(1).max(128).optional(),
};

const profile = z.strictObject({
  id: profileId,
  ...profileFields,
  enclaveSignerPublicKey: publicKeyHex,
  /** A Sandbox profile's own attestation root (SHA-256 of its certificate), pinned from its service; main sets it. */
  attestationRoot: sha256HexSchema.optional(),
  /** The PKCS#11 token key that signs instead of the keychain key, with its pinned public key (profiles.useTokenKey, the CLI). */
  tokenKey: z
    .strictObject({
      module: z.string().min(1).max(4096),
      tokenLabel: z.string().min(1).max(32),
      keyLabel: z.string().min(1).max(32),
      keyId: z
        .string()
        .regex(/^(?:[0-9a-f]{2}){1,64}$/)
        .optional(),
      publicKey: z.string().regex(/^0[23][0-9a-f]{64}$/),
    })
    .optional(),
  /** The security key this profile votes with (users.addPasskey): its name, credential id and public key. */
  passkey: z
    .strictObject({
      credentialId: z.string().min(16).max(1366),
      publicKey: z.string().regex(/^0[23][0-9a-f]{64}$/),
      authenticatorId: z.string().min(1).max(128),
      name: z.string().min(1).max(64),
    })
    .optional(),
});

/** Hosted profiles default the enclave signer key to the production one, so it is optional when adding. */
const profileInput = z.strictObject({ ...profileFields, enclaveSignerPublicKey: publicKeyHex.optional() });

export const profilesChannels = {
  list: channel(noInput, z.array(profile)),
  get: channel(z.strictObject({ id: profileId }), profile),
  getActive: channel(noInput, profile.nullable()),
  add: channel(profileInput, profile),
  update: channel(z.strictObject({ id: profileId, changes: profileInput.partial() }), profile),
  remove: channel(z.strictObject({ id: profileId }), nothing),
  /** The profile signs with this token key from now on; main reads its public key from the token and confirms. */
  useTokenKey: channel(z.strictObject({ id: profileId, key: tokenKeyRef }), profile),
  /** `id: null` clears the choice. */
  setActive: channel(z.strictObject({ id: profileId.nullable() }), nothing),
} as const;
