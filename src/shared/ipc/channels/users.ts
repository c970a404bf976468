/** The `users.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { activityOutcome, apiKeyCurve, channel, id, keyName, publicKeyHex, tokenKeyRef, userIds } from '../schemas';

/**
 * A new API key for a user: a public key pasted here, one of this desktop's keychain keys (made on the Keys screen,
 * or just now), whose public key main reads from the keychain, or a key on a hardware token, whose public key main
 * reads from the token.
 */
const newApiKey = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('public-key'), apiKeyName: z.string().min(1).max(256), publicKey: publicKeyHex, curve: apiKeyCurve }),
  z.strictObject({ kind: z.literal('keychain'), keyName }),
  tokenKeyRef.extend({ kind: z.literal('token'), apiKeyName: z.string().min(1).max(256) }),
]);

/** One of a user's credentials as main reads it (src/main/users/credentials.ts). */
const credentialReading = z.strictObject({
  id: z.string().max(256),
  name: z.string().max(1024),
  kind: z.enum(['token-key', 'keychain-key', 'api-key', 'session-key', 'security-key', 'passkey']),
  kindInWords: z.string().max(1024),
  profiles: z.array(z.string().max(256)).max(100),
  working: z.boolean(),
  refusal: z.string().max(2000).optional(),
  leaves: z.string().max(1024),
});

const userOutcome = activityOutcome(z.strictObject({ userId: z.string() }));

export const usersChannels = {
  create: channel(
    z.strictObject({ userName: z.string().min(1).max(256), tagIds: z.array(id).max(32).optional(), apiKey: newApiKey.optional() }),
    userOutcome,
  ),
  delete: channel(z.strictObject({ userIds }), activityOutcome(z.strictObject({ userIds: z.array(z.string()) }))),
  /** Main's reading of deleting a user, before anyone is asked: why QuorumKey would refuse to submit it, if it would. */
  deletionCheck: channel(z.strictObject({ userId: id }), z.strictObject({ refusal: z.string().max(2000).optional() })),
  /**
   * The user's API keys and authenticators, each with its kind in words, the profiles of this desktop that sign with
   * it, what removing it leaves, and why the lock-out guard would refuse that.
   */
  credentials: channel(
    z.strictObject({ userId: id }),
    z.strictObject({ userId: z.string(), userName: z.string().max(1024), credentials: z.array(credentialReading).max(200) }),
  ),
  /** Replaces the user's tags with `tagIds`. */
  setTags: channel(z.strictObject({ userId: id, tagIds: z.array(id).max(32) }), userOutcome),
  createTag: channel(
    z.strictObject({ tagName: z.string().min(1).max(256), userIds: z.array(id).max(100) }),
    activityOutcome(z.strictObject({ tagId: z.string() })),
  ),
  addApiKey: channel(z.strictObject({ userId: id, apiKey: newApiKey }), activityOutcome(z.strictObject({ apiKeyIds: z.array(z.string()) }))),
  removeApiKeys: channel(
    z.strictObject({ userId: id, apiKeyIds: z.array(id).min(1).max(100) }),
    activityOutcome(z.strictObject({ apiKeyIds: z.array(z.string()) })),
  ),
  /**
   * A new security key (or passkey) for the active profile's own user, made on main's passkey page and registered with
   * create_authenticators; once created, the profile votes with it.
   */
  addPasskey: channel(
    z.strictObject({ name: z.string().min(1).max(64) }),
    activityOutcome(z.strictObject({ authenticatorIds: z.array(z.string()) })),
  ),
} as const;
