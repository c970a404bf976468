/**
 * Readings: what each activity asks for, computed once in main for the screens. One read of the organization (names,
 * "before", export keys, declared tokens) serves a whole list; when the list holds signing requests, one read of the
 * signing context (interfaces, tokens, thresholds, past recipients) serves them all, so a row reads a request exactly
 * as its signing card does, with the same title, and a request still taking votes carries the policies' verdict.
 */
import type { Activity } from '../../shared/api';
import { signingOperationOf } from '../../shared/api/signing-operations';
import { describeSigningActivity, flatFacts, signingFacts, type ClearSigningContext } from '../../shared/clear-signing';
import { describeActivity, type SigningDecoder } from '../../shared/describe';
import type { ActivityReadingView } from '../../shared/ipc/readings';
import type { ApiClient } from '../client/api-client';
import type { Keychain } from '../keychain/keychain';
import { readOrganization } from '../organization/organization';
import { policyReader } from '../policies/policy-words';
import type { SigningReadings } from '../signing/signing';
import { signingRequestOf } from '../signing/signing-request';
import type { DeclaredTokens } from '../tokens/declared-tokens';

export interface ReadingsOptions {
  client: Pick<ApiClient, 'query'>;
  keychain: Pick<Keychain, 'listEncryptionKeys'>;
  tokens: Pick<DeclaredTokens, 'list'>;
  /** The signing context, read only when a list holds a signing request. */
  signing: () => Promise<SigningReadings>;
  now: () => number;
}

/** Statuses of an activity that has not run yet: the organization as it stands is its "before". */
const UNSETTLED: ReadonlySet<string> = new Set(['ACTIVITY_STATUS_CONSENSUS_NEEDED', 'ACTIVITY_STATUS_PENDING', 'ACTIVITY_STATUS_CREATED']);

export class Readings {
  constructor(private readonly options: ReadingsOptions) {}

  /** Each activity's reading, in the order given. */
  async of(activities: readonly Pick<Activity, 'id' | 'type' | 'status' | 'intent' | 'votes'>[]): Promise<ActivityReadingView[]> {
    const { client, keychain, tokens, now } = this.options;
    const signs = activities.some((activity) => signingOperationOf(activity.type) !== undefined);
    const [lookup, signing] = await Promise.all([readOrganization(client, keychain, tokens, now()), signs ? this.options.signing() : undefined]);
    const readPolicy = policyReader(lookup);
    return Promise.all(
      activities.map(async (activity): Promise<ActivityReadingView> => {
        const settled = !UNSETTLED.has(activity.status);
        const description = describeActivity(activity, lookup, {
          settled,
          readPolicy,
          ...(signing === undefined ? {} : { decodeSigning: signingDecoder(signing.contextFor(activity.id)) }),
        });
        const kind = signingOperationOf(activity.type) === undefined ? 'activity' : 'signing';
        const verdict = signing !== undefined && kind === 'signing' && !settled ? await verdictOf(signing, activity) : undefined;
        return { ...description, kind, ...(verdict === undefined ? {} : { verdict }) };
      }),
    );
  }
}

/** The policies' verdict, or none when the recorded intent is not a signing request this version reads. */
async function verdictOf(signing: SigningReadings, activity: Pick<Activity, 'type' | 'intent' | 'votes'>) {
  let request;
  try {
    request = signingRequestOf(activity);
  } catch {
    // The reading already says the payload could not be read; its card names the fault.
    return undefined;
  }
  return request === undefined ? undefined : signing.verdict(activity, request);
}

/** The describer's signing hook: the request read by clear signing with `context`, as the signing card reads it. */
export function signingDecoder(context: ClearSigningContext): SigningDecoder {
  return (_request, activity) => {
    let description;
    try {
      description = describeSigningActivity(activity, context);
    } catch {
      // Not readable (a malformed payload, a type clear signing does not cover): the raw payload is shown instead.
      return undefined;
    }
    const largeValue = description.warnings.filter((warning) => warning.kind === 'VALUE_ABOVE_THRESHOLD').map((warning) => warning.message);
    return {
      title: description.title,
      summary: description.summary,
      facts: flatFacts(signingFacts(description)),
      warnings: description.warnings.map((warning) => warning.message),
      ...(largeValue.length === 0 ? {} : { largeValue: largeValue.join(' ') }),
    };
  };
}
