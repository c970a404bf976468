/**
 * Records of what happens on this desktop only (a reveal, an unlock, a profile or setting changed, a request stamped
 * into a file): each site makes one call with its reading in a few words. Never a secret: facts name things (an
 * activity, a key, a file), they never hold what was revealed.
 */
import type { JournalAction, JournalRecord } from '../../shared/journal/format';
import type { Profile } from '../profiles/profiles';

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
}

export function localRecord(action: JournalAction, reading: LocalReading, { profile, activityId, activityFingerprint }: LocalContext = {}): JournalRecord {
  return {
    action,
    ...(profile === undefined ? {} : { profileId: profile.id, profileName: profile.name, organizationId: profile.organizationId }),
    ...(activityId === undefined ? {} : { activityId }),
    ...(activityFingerprint === undefined ? {} : { activityFingerprint }),
    reading: {
      title: reading.title,
      summary: reading.summary,
      facts: Object.entries(reading.facts ?? {}).map(([label, value]) => ({ label, value })),
      warnings: reading.warnings ?? [],
      verdict: reading.verdict,
    },
  };
}
