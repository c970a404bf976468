/**
 * The services that act for the active profile: one ApiClient over its URL, organization and API key, and the
 * Approvals, Policies, Exporter and Importer built on it. They are rebuilt whenever the active profile, or anything
 * in it, changes, so a request never goes out under the previous profile's key or to its organization.
 */
import { QkError } from '../../shared/errors';
import { Approvals } from '../approvals/approvals';
import { ApiClient, type ApiClientOptions } from '../client/api-client';
import type { Reading } from '../confirmation/confirmation';
import type { Submission } from '../client/submission';
import type { InFlightRequests } from '../client/in-flight';
import type { UnansweredSubmissions } from '../client/unanswered';
import { Exporter } from '../exports/exporter';
import { Importer } from '../imports/importer';
import { answeredActivity, recordPostedActivity, type PostedAnswer } from '../journal/activity-entry';
import type { Journal } from '../journal/journal';
import type { Keychain } from '../keychain/keychain';
import { Policies } from '../policies/policies';
import type { Profile, Profiles } from './profiles';
import type { Sandbox } from '../sandbox/sandbox';
import type { RequestStamper } from '../stamper/stamp';
import type { TokenUsage } from '../tokens/token-usage';
import { OrganizationReads, type OrganizationReadModels } from '../organization/read-model';

export interface ProfileServices {
  profile: Profile;
  client: ApiClient;
  approvals: Approvals;
  policies: Policies;
  exporter: Exporter;
  importer: Importer;
  /** The profile's one read of its organization, shared by every reading (read-model.ts). */
  organization: OrganizationReads;
}

export interface ActiveProfileOptions {
  /** Each profile's read of its organization; without one, each services object keeps its own. */
  organizationReads?: OrganizationReadModels;
  profiles: Pick<Profiles, 'getActive'>;
  keychain: Pick<Keychain, 'withEncryptionPrivateKey' | 'listEncryptionKeys' | 'holdOneTimeKey' | 'withOneTimeKey'>;
  stamper: RequestStamper;
  sandbox: Pick<Sandbox, 'isRunning'>;
  now: () => number;
  fetch?: typeof fetch;
  /** Where the clients list their pending requests, for the screens to show and cancel. */
  inFlight?: Pick<InFlightRequests, 'begin'>;
  /** Submissions sent without an answer, shared by every profile's client so a retry re-sends the same body. */
  unanswered?: UnansweredSubmissions;
  requestTimeoutMs?: number;
  /** Told about every activity the clients' submissions answered (see ApiClientOptions.onActivity). */
  onActivity?: ApiClientOptions['onActivity'];
  /** Where every activity the clients post is recorded. */
  journal?: Pick<Journal, 'record'>;
  /** Where the declared tokens of every signing activity the clients post are noted, with their declarations. */
  tokenUsage?: Pick<TokenUsage, 'recordActivity'>;
  /**
   * Asked before any activity or vote is stamped for the profile (posted or into a file), with the services it would
   * be stamped by; throwing stops the stamp. Main's handlers confirm every stamp with a person this way.
   */
  checkStamp?: (submission: Submission, services: ProfileServices) => Promise<Reading | undefined>;
}

/** What handlers of the active profile's channels take: its services, and the clock that decides approval expiry. */
export interface ActiveProfileHandlerDeps {
  active: Pick<ActiveProfile, 'services'>;
  /** Decides which approvals have expired with their approval window. */
  now: () => number;
}

export class ActiveProfile {
  private readonly options: ActiveProfileOptions;
  private current: { key: string; services: ProfileServices } | undefined;

  constructor(options: ActiveProfileOptions) {
    this.options = options;
  }

  /** The same profile's services, with every stamp passing `checkStamp` first. */
  withStampCheck(checkStamp: NonNullable<ActiveProfileOptions['checkStamp']>): ActiveProfile {
    return new ActiveProfile({ ...this.options, checkStamp });
  }

  /** The active profile, or FAILED_PRECONDITION when none is chosen. */
  async profile(): Promise<Profile> {
    const profile = await this.options.profiles.getActive();
    if (profile === undefined) {
      throw new QkError('FAILED_PRECONDITION', 'no profile is active; choose one under Profiles (or start the Sandbox) first');
    }
    return profile;
  }

  /** The active profile's services; refused for the Sandbox profile while the sandbox is stopped. */
  async services(): Promise<ProfileServices> {
    const profile = await this.profile();
    assertServed(profile, this.options.sandbox);
    // The whole profile is the key: a changed URL, key name or pinned signer must not reuse the old client.
    const key = JSON.stringify(profile);
    if (this.current?.key !== key) this.current = { key, services: this.servicesFor(profile) };
    return this.current.services;
  }

  /** Fresh services acting for `profile`, whichever profile is active (the CLI's --profile). */
  servicesFor(profile: Profile): ProfileServices {
    const {
      keychain,
      stamper,
      now,
      fetch,
      inFlight,
      unanswered,
      requestTimeoutMs,
      onActivity,
      journal,
      tokenUsage,
      checkStamp: check,
    } = this.options;
    // Called only once a stamp is asked for, when `services` below exists.
    const checkStamp = check === undefined ? undefined : (submission: Submission) => check(submission, services);
    // What the service answered: a completed signature joins the organization's kept list of them (read-model.ts).
    const answered: NonNullable<ApiClientOptions['onActivity']> = (activity, submitted) => {
      services.organization.answered(activity);
      onActivity?.(activity, submitted);
    };
    const afterAnswer = async (posted: PostedAnswer) => {
      if (journal !== undefined) await recordPostedActivity(journal, profile, posted, client);
      const activity = tokenUsage === undefined ? undefined : answeredActivity(posted);
      if (activity !== undefined) await tokenUsage?.recordActivity(profile.organizationId, activity);
    };
    const client: ApiClient<Reading> = new ApiClient<Reading>({
      profile,
      stamper,
      now,
      ...(fetch === undefined ? {} : { fetch }),
      ...(inFlight === undefined ? {} : { inFlight }),
      ...(unanswered === undefined ? {} : { unanswered }),
      ...(requestTimeoutMs === undefined ? {} : { timeoutMs: requestTimeoutMs }),
      onActivity: answered,
      ...(journal === undefined && tokenUsage === undefined ? {} : { afterAnswer }),
      ...(checkStamp === undefined ? {} : { checkStamp }),
    });
    const services: ProfileServices = {
      profile,
      client,
      approvals: new Approvals({ client, stamper, credential: profile, now, ...(checkStamp === undefined ? {} : { checkStamp }) }),
      policies: new Policies(client),
      exporter: new Exporter({ client, keychain, enclaveSignerPublicKey: profile.enclaveSignerPublicKey }),
      importer: new Importer({ client, enclaveSignerPublicKey: profile.enclaveSignerPublicKey }),
      organization: this.options.organizationReads?.of(profile, client) ?? new OrganizationReads(client, now),
    };
    return services;
  }
}

/** A Sandbox profile can be used only while the Sandbox serves it; refused, saying where to start it, otherwise. */
export function assertServed(profile: Pick<Profile, 'id' | 'name' | 'kind'>, sandbox: Pick<Sandbox, 'isRunning'>): void {
  if (profile.kind === 'sandbox' && !sandbox.isRunning) {
    throw new QkError(
      'FAILED_PRECONDITION',
      `the profile ${JSON.stringify(profile.name)} is the Sandbox, which is not running; start it on the Profiles screen`,
      {
        profileId: profile.id,
      },
    );
  }
}
