/**
 * "Add a security key to vote with": a new WebAuthn credential for the active profile's own user, made on main's
 * passkey page and registered with `create_authenticators` (stamped after main's confirmation like every write). Once
 * the service has created it, the profile keeps it (credential id and the public key the service recorded) and votes
 * with it from then on; its API key still reads. A registration that waits for approvals is kept pending and attached
 * when the activity completes (pending-passkeys.ts).
 */
import { randomBytes } from 'node:crypto';
import { base64UrlEncode } from '../../shared/crypto/encoding';
import type { ActivityOutcome } from '../client/api-client';
import type { ProfileServices } from '../profiles/active-profile';
import type { Profiles } from '../profiles/profiles';
import { validPasskeyName } from './passkey';
import { createPasskeyOnPage } from './passkey-ceremonies';
import type { OpenPasskeyPage } from './passkey-page';
import { recordedPasskey, type PendingPasskeys } from './pending-passkeys';

/** WebAuthn asks for at least 16 random bytes; 32 as the service's own challenges. */
const CHALLENGE_BYTES = 32;

export interface PasskeyRegistrationOptions {
  openPage: OpenPasskeyPage;
  profiles: Pick<Profiles, 'update'>;
  /** Where a registration waiting for approvals is kept until its activity is decided. */
  pending: Pick<PendingPasskeys, 'add'>;
  timeoutMs?: number;
}

export async function registerPasskey(
  { openPage, profiles, pending, timeoutMs }: PasskeyRegistrationOptions,
  { profile, client }: Pick<ProfileServices, 'profile' | 'client'>,
  name: string,
): Promise<ActivityOutcome<{ authenticatorIds: string[] }>> {
  validPasskeyName(name);
  const me = await client.query('whoami', {});
  const challenge = randomBytes(CHALLENGE_BYTES);
  const attestation = await createPasskeyOnPage(
    { openPage, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
    {
      challenge,
      userId: me.userId,
      userName: me.username,
      reading: [
        `A new security key named ${JSON.stringify(name)} for user ${JSON.stringify(me.username)} in ${JSON.stringify(me.organizationName)}.`,
        `Profile ${JSON.stringify(profile.name)} will vote with it; its API key still reads.`,
      ],
    },
  );
  const outcome = await client.submit('create_authenticators', {
    userId: me.userId,
    authenticators: [{ authenticatorName: name, challenge: base64UrlEncode(challenge), attestation }],
  });
  const made = { credentialId: attestation.credentialId, name };
  if (outcome.state === 'completed') {
    await profiles.update(profile.id, { passkey: await recordedPasskey(client, outcome.activity, made) });
  } else if (outcome.state !== 'rejected') {
    await pending.add({ activityId: outcome.activity.id, profileId: profile.id, organizationId: profile.organizationId, ...made });
  }
  return outcome;
}
