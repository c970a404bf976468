/**
 * Records of what happens on this desktop only (a reveal, an unlock, a profile or setting changed, a request stamped
 * into a file): each site makes one call with its reading in a few words. Never a secret: facts name things (an
 * activity, a key, a file), they never hold what was revealed.
 */
import type { JournalAction, JournalCredential, JournalRecord } from '../../shared/journal/format';
import { publicKeyFingerprint } from '../../shared/describe';
import { profileCredential, type Profile } from '../profiles/profiles';

export interface LocalReading {
  title: string;
  summary: string;
  facts?: Record<string, string>;
  warnings?: string[];
  verdict: string;
}

export interface LocalContext {
  profile?: Pick<Profile, 'id' | 'name' | 'organizationId'> | undefined;
  activityId?: string | undefined;
  activityFingerprint?: string | undefined;
  /** The credential that stamped what this entry records (a vote stamped into a file). */
  credential?: JournalCredential | undefined;
}

const PROFILE_CHANGES = {
  'profile.added': 'Profile added',
  'profile.updated': 'Profile changed',
  'profile.removed': 'Profile removed',
  'profile.activated': 'Profile made active',
} as const satisfies Partial<Record<JournalAction, string>>;
export type ProfileChange = keyof typeof PROFILE_CHANGES;

/**
 * A profile change, from the app or the CLI: where its requests go and what it trusts, as they stand after it;
 * `changed` names the fields an update changed.
 */
export function profileRecord(action: ProfileChange, profile: Profile, changed: readonly string[] = []): JournalRecord {
  return localRecord(
    action,
    {
      title: changed.length === 0 ? PROFILE_CHANGES[action] : `${PROFILE_CHANGES[action]}: ${changed.join(', ')}`,
      summary: `${profile.name} (${profile.kind}) at ${profile.baseUrl}`,
      facts: {
        Service: profile.baseUrl,
        Organization: profile.organizationId,
        'API key': profile.apiKeyName,
        // A token key is recorded with its token, module and public key: which key signs is what the entry vouches for.
        ...(profile.tokenKey === undefined ? {} : { 'Token key': profileCredential(profile).value }),
        'Enclave signer': profile.enclaveSignerPublicKey,
      },
      verdict: 'saved',
    },
    { profile },
  );
}

export function localRecord(
  action: JournalAction,
  reading: LocalReading,
  { profile, activityId, activityFingerprint, credential }: LocalContext = {},
): JournalRecord {
  return {
    action,
    ...(profile === undefined ? {} : { profileId: profile.id, profileName: profile.name, organizationId: profile.organizationId }),
    ...(activityId === undefined ? {} : { activityId }),
    ...(activityFingerprint === undefined ? {} : { activityFingerprint }),
    ...(credential === undefined ? {} : { apiKeyFingerprint: publicKeyFingerprint(credential.publicKey), credential }),
    reading: {
      title: reading.title,
      summary: reading.summary,
      facts: Object.entries(reading.facts ?? {}).map(([label, value]) => ({ label, value })),
      warnings: reading.warnings ?? [],
      verdict: reading.verdict,
    },
  };
}
