/**
 * Signing for the active profile: explains a request (the clear-signing description plus where the policies stand),
 * submits it (it waits for votes like any activity), reads its result, and stamps it into an offline file.
 *
 * The description's context is what the organization knows: wallet and key names, uploaded interfaces, the recipients
 * of its past signed transactions (read from its recent history), its own Bitcoin addresses, the tokens operators
 * declared, and the value thresholds set in Settings.
 */
import { parseUnits } from 'viem';
import { operations, type Activity } from '../../shared/api';
import {
  describeSigningActivity,
  signingFacts,
  type ClearSigningContext,
  type SigningDescription,
  type ValueThresholds,
} from '../../shared/clear-signing';
import { QkError } from '../../shared/errors';
import type { AddressBookEntry, AppSettings, DeclaredToken } from '../../shared/ipc/contract';
import type { AddressBook } from '../address-book/address-book';
import { tokenThresholdsOf } from '../tokens/token-thresholds';
import type { DryRunView, SigningCardView, SigningDescriptionView, SigningResultView } from '../../shared/ipc/signing';
import type { StampedRequest } from '../../shared/offline/stamped-request';
import { tallyOf } from '../approvals/approvals';
import type { ActivityOutcome, ApiClient } from '../client/api-client';
import type { ProfileServices } from '../profiles/active-profile';
import { contractsForReading, readOrganization, readRecentSignatures, type OrganizationSnapshot } from './organization';
import type { DraftEntry } from '../../shared/ipc/policy-draft';
import { applyDraft, checkPolicyIds } from '../policies/draft';
import { standingOffThread } from '../policies/off-thread';
import { standingIn, type PolicyStanding, type StandingRequest } from './policy-standing';
import {
  activityOf,
  knowsSigner,
  parametersOf,
  policyResources,
  signingRequestOf,
  withSigningParameters,
  type SigningRequest,
} from './signing-request';
import { shippedDescriptors } from '../clear-signing/shipped-registry';

export interface SigningOptions {
  client: ApiClient;
  /** The warn-above thresholds from Settings, per chain's coin and per token. */
  settings: { get(): Promise<ThresholdSettings> };
  /** Tokens operators declared: their amounts read in their units. */
  tokens: { list(): Promise<readonly DeclaredToken[]> };
  /** This desktop's names for the organization's addresses; absent, addresses are named by the organization's data alone. */
  addressBook?: Pick<AddressBook, 'list'> | undefined;
  stampToFile: (path: string, body: string, file: string) => Promise<StampedRequest>;
  /**
   * The profile's read of its organization (read-model.ts), read anew when it does not know what `knows` asks about;
   * without one, each card reads it anew.
   */
  organization?: (knows?: (snapshot: OrganizationSnapshot) => boolean) => Promise<OrganizationSnapshot>;
  /** The organization's recent completed signatures as the profile's read keeps them; without it, listed each time. */
  recentSignatures?: () => Promise<readonly Activity[]>;
  now: () => number;
}

/** Who each of the organization's recent completed signatures paid or called. */
type RecipientHistory = readonly { activityId: string; recipients: readonly string[] }[];

/**
 * What readings of many signing activities share: the organization and its history read once, each activity then
 * read with the context its card has (its own past recipients left out), and its policy verdict.
 */
export interface SigningReadings {
  contextFor(activityId: string): ClearSigningContext;
  /** Where the policies stand on `request` with the approvals of `approverIds` counted. */
  standing(request: SigningRequest, approverIds: readonly string[]): Promise<PolicyStanding>;
}

export class Signing {
  constructor(private readonly options: SigningOptions) {}

  /** The card for a signing activity: as it stands now, with its votes counted. */
  async card(activityId: string): Promise<SigningCardView & { activity: Activity }> {
    const { client, now } = this.options;
    const { activity } = await client.query('get_activity', { activityId });
    const request = signingRequestOf(activity);
    if (request === undefined) {
      throw new QkError(
        'REQUEST_INVALID',
        `activity ${activityId} is a ${activity.type}, which signs nothing; only signing activities have a signing card`,
        {
          activityId,
        },
      );
    }
    const snapshot = await this.snapshot(request);
    const { approverIds } = tallyOf(activity.votes, now());
    const [description, standing] = await Promise.all([this.describe(request, snapshot, activity.id), this.standing(request, snapshot, approverIds)]);
    return { description: descriptionView(description), facts: signingFacts(description), standing: standingView(standing), activity };
  }

  /** The card for a request not yet submitted: the viewer's own submission would count as their approval. */
  async preview(request: SigningRequest): Promise<SigningCardView> {
    const { description, standing } = await this.explain(request);
    return { description: descriptionView(description), facts: signingFacts(description), standing: standingView(standing) };
  }

  /**
   * What `preview` shows, as the reader and the policies give it (the CLI prints it as text). The standing counts
   * `approverIds` (by default the viewer alone, whose submission is their approval) against `snapshot` (read now by
   * default).
   */
  async explain(
    request: SigningRequest,
    snapshot?: OrganizationSnapshot,
    approverIds?: readonly string[],
  ): Promise<{ description: SigningDescription; standing: PolicyStanding }> {
    const organization = snapshot ?? (await this.snapshot(request));
    const [description, standing] = await Promise.all([
      this.describe(request, organization),
      this.standing(request, organization, approverIds ?? [organization.viewer.userId]),
    ]);
    return { description, standing };
  }

  /**
   * `request` read as its card reads it, and every policy's verdict on it as if the viewer submitted it now, under
   * the current policies with `draft` applied: the same standing, so the same "still to vote", as its card would give.
   */
  async dryRun(request: SigningRequest, draft: readonly DraftEntry[] = []): Promise<DryRunView> {
    const snapshot = await this.snapshot(request);
    checkPolicyIds(
      draft,
      snapshot.policies.map((policy) => policy.policyId),
    );
    const policies = applyDraft(snapshot.policies, draft);
    // A draft's expressions are evaluated on a worker thread, off main's event loop.
    const [description, standing] = await Promise.all([
      this.describe(request, snapshot),
      this.standingRequest(request, snapshot, [snapshot.viewer.userId]).then((input) => standingOffThread(snapshot, input, policies)),
    ]);
    return {
      description: descriptionView(description),
      facts: signingFacts(description),
      standing: standingView(standing),
      policies: standing.evaluations,
    };
  }

  async submit(request: SigningRequest): Promise<ActivityOutcome<SigningResultView>> {
    const { client } = this.options;
    const outcome = await withSigningParameters(request, (operation, parameters) => client.submit(operation, parameters));
    return outcome.state === 'completed' ? { ...outcome, result: signingResultOf(outcome.activity) } : outcome;
  }

  /** A signing activity's result once it completed; undefined while it waits, is rejected or failed. */
  async result(activityId: string): Promise<{ activity: Activity; result: SigningResultView | undefined }> {
    const { activity } = await this.options.client.query('get_activity', { activityId });
    if (signingRequestOf(activity) === undefined) {
      throw new QkError('REQUEST_INVALID', `activity ${activityId} is a ${activity.type}, which signs nothing`, { activityId });
    }
    return { activity, result: activity.status === 'ACTIVITY_STATUS_COMPLETED' ? signingResultOf(activity) : undefined };
  }

  /** Stamps the request with this profile's key into a new offline file, to be posted later from a connected machine. */
  stampToFile(request: SigningRequest, file: string): Promise<StampedRequest> {
    const { client, stampToFile } = this.options;
    const body = withSigningParameters(request, (operation, parameters) => client.envelope(operation, parameters));
    return stampToFile(operations[request.operation].path, body, file);
  }

  /** One read of the organization's history for reading many signing activities against `snapshot`. */
  async readings(snapshot: OrganizationSnapshot): Promise<SigningReadings> {
    const base = await this.baseContext(snapshot);
    const history = await this.pastRecipients(base);
    return {
      contextFor: (activityId) => withHistory(base, history, activityId),
      standing: (request, approverIds) => this.standing(request, snapshot, approverIds),
    };
  }

  private async describe(request: SigningRequest, snapshot: OrganizationSnapshot, excludeActivityId?: string): Promise<SigningDescription> {
    const base = await this.baseContext(snapshot);
    return describeSigningActivity(activityOf(request), withHistory(base, await this.pastRecipients(base), excludeActivityId));
  }

  /** The organization, as it knows the key `request` signs with (a kept read that does not is read anew). */
  private snapshot(request: SigningRequest): Promise<OrganizationSnapshot> {
    return this.options.organization?.((snapshot) => knowsSigner(snapshot, request.signWith)) ?? readOrganization(this.options.client);
  }

  /** Where the policies stand on `request` with the approvals of `approverIds` counted. */
  async standing(request: SigningRequest, snapshot: OrganizationSnapshot, approverIds: readonly string[]): Promise<PolicyStanding> {
    return standingIn(snapshot, await this.standingRequest(request, snapshot, approverIds));
  }

  private async standingRequest(request: SigningRequest, snapshot: OrganizationSnapshot, approverIds: readonly string[]): Promise<StandingRequest> {
    return {
      activityType: activityOf(request).type,
      params: parametersOf(request),
      resources: policyResources(request, snapshot),
      approverIds,
      nowMs: this.options.now(),
      declaredTokens: await this.options.tokens.list(),
    };
  }

  private async baseContext(snapshot: OrganizationSnapshot): Promise<ClearSigningContext> {
    return {
      descriptors: await shippedDescriptors(),
      wallets: snapshot.wallets.map((wallet) => ({
        walletId: wallet.walletId,
        walletName: wallet.walletName,
        accounts: snapshot.accounts
          .filter((account) => account.walletId === wallet.walletId)
          .map((account) => ({ address: account.address, path: account.path, addressFormat: account.addressFormat })),
      })),
      privateKeys: snapshot.privateKeys.map((key) => ({
        privateKeyId: key.privateKeyId,
        privateKeyName: key.privateKeyName,
        addresses: key.addresses.flatMap((entry) =>
          entry.address === undefined ? [] : [{ address: entry.address, ...(entry.format === undefined ? {} : { addressFormat: entry.format }) }],
        ),
      })),
      contracts: contractsForReading(snapshot.contracts),
      ownBitcoinAddresses: [
        ...snapshot.accounts.filter((account) => account.addressFormat.startsWith('ADDRESS_FORMAT_BITCOIN_')).map((account) => account.address),
        ...snapshot.privateKeys.flatMap((key) =>
          key.addresses.flatMap((entry) =>
            entry.format?.startsWith('ADDRESS_FORMAT_BITCOIN_') === true && entry.address !== undefined ? [entry.address] : [],
          ),
        ),
      ],
      tokens: await this.options.tokens.list(),
      thresholds: thresholdsOf(await this.options.settings.get()),
      addressBook: (await this.options.addressBook?.list(snapshot.viewer.organizationId)) ?? [],
    };
  }

  /** Who the organization's recent completed signatures paid or called, read with the same reader. */
  private async pastRecipients(context: ClearSigningContext): Promise<RecipientHistory> {
    const { recentSignatures, client } = this.options;
    const activities = await (recentSignatures?.() ?? readRecentSignatures(client));
    return activities.flatMap((activity) => {
      try {
        return [{ activityId: activity.id, recipients: recipientsOf(describeSigningActivity(activity, context)) }];
      } catch {
        // A past request this reader cannot read names no recipient; it does not stop the card.
        return [];
      }
    });
  }
}

/** `base` with every past recipient but those of `excludeActivityId` (an activity is not its own history). */
function withHistory(base: ClearSigningContext, history: RecipientHistory, excludeActivityId: string | undefined): ClearSigningContext {
  const known = new Set(history.flatMap((past) => (past.activityId === excludeActivityId ? [] : past.recipients)));
  return { ...base, knownRecipients: [...known] };
}

/** Signing for a profile's services, its offline stamps going through the profile's Approvals (and their check). */
export function signingFor(
  { client, approvals, organization }: Pick<ProfileServices, 'client' | 'approvals' | 'organization'>,
  { settings, tokens, addressBook, now }: Pick<SigningOptions, 'settings' | 'tokens' | 'addressBook' | 'now'>,
): Signing {
  return new Signing({
    client,
    settings,
    tokens,
    addressBook,
    now,
    organization: (knows) => organization.snapshot(knows),
    recentSignatures: () => organization.recentSignatures(),
    stampToFile: (path, body, file) => approvals.stampToFile(path, body, file),
  });
}

/**
 * The description without the organization's data, for a machine without network (the CLI's `--no-post`): no wallet
 * names, labels or history, so no recipient is flagged as new; policies are not evaluated. Tokens declared and the
 * address book kept on this machine are app data, so amounts still read in their units and named addresses by name.
 */
export function describeOffline(
  request: SigningRequest,
  settings: ThresholdSettings,
  tokens: readonly DeclaredToken[],
  addressBook: readonly AddressBookEntry[],
): SigningDescription {
  return describeSigningActivity(activityOf(request), { tokens, thresholds: thresholdsOf(settings), addressBook });
}

function recipientsOf({ details }: SigningDescription): string[] {
  switch (details.kind) {
    case 'ethereum-transaction':
      return details.to === undefined ? [] : [details.to.address];
    case 'solana-transaction':
      return [...details.transfers, ...details.tokenTransfers].map((transfer) => transfer.to.address);
    case 'bitcoin-transaction':
      return details.outputs.flatMap((output) => (output.address === undefined || output.change ? [] : [output.address.address]));
    default:
      return [];
  }
}

const NATIVE_DECIMALS = { ETH: 18, SOL: 9, BTC: 8 } as const;

export type ThresholdSettings = Pick<AppSettings, 'warnAbove' | 'tokenWarnAbove'>;

/**
 * Settings keep coin thresholds in whole units ("1.5" ETH) and token thresholds in base units; the reader compares in
 * the smallest unit.
 */
export function thresholdsOf({ warnAbove, tokenWarnAbove }: ThresholdSettings): ValueThresholds {
  const smallest = (text: string | undefined, unit: keyof typeof NATIVE_DECIMALS) =>
    text === undefined || text === '' ? undefined : parseUnits(text, NATIVE_DECIMALS[unit]);
  const ethereumWei = smallest(warnAbove?.ETH, 'ETH');
  const solanaLamports = smallest(warnAbove?.SOL, 'SOL');
  const bitcoinSatoshis = smallest(warnAbove?.BTC, 'BTC');
  const tokens = tokenThresholdsOf(tokenWarnAbove);
  return {
    ...(tokens.length === 0 ? {} : { tokens }),
    ...(ethereumWei === undefined ? {} : { ethereumWei }),
    ...(solanaLamports === undefined ? {} : { solanaLamports }),
    ...(bitcoinSatoshis === undefined ? {} : { bitcoinSatoshis }),
  };
}

function signingResultOf(activity: Activity): SigningResultView {
  const result = activity.result ?? {};
  const transaction = result.signTransactionResult as { signedTransaction?: unknown } | undefined;
  if (typeof transaction?.signedTransaction === 'string') return { kind: 'signed-transaction', signedTransaction: transaction.signedTransaction };
  const single = result.signRawPayloadResult as { r: string; s: string; v: string } | undefined;
  if (single !== undefined) return { kind: 'signatures', signatures: [{ r: single.r, s: single.s, v: single.v }] };
  const many = result.signRawPayloadsResult as { signatures?: { r: string; s: string; v: string }[] } | undefined;
  if (many !== undefined) return { kind: 'signatures', signatures: (many.signatures ?? []).map(({ r, s, v }) => ({ r, s, v })) };
  throw new QkError('RESPONSE_INVALID', `completed activity ${activity.id} (${activity.type}) carries no signing result`, {
    activityId: activity.id,
  });
}

/** What crosses IPC of the description besides its facts (the details are in the facts). */
export function descriptionView({ title, summary, warnings }: SigningDescription): SigningDescriptionView {
  return {
    title,
    summary,
    warnings: warnings.map(({ kind, message, subject, severity, lookAlike }) => ({
      kind,
      message,
      ...(subject === undefined ? {} : { subject }),
      ...(severity === undefined ? {} : { severity }),
      ...(lookAlike === undefined
        ? {}
        : { lookAlike: { ...lookAlike, addressDiffers: [...lookAlike.addressDiffers], knownDiffers: [...lookAlike.knownDiffers] } }),
    })),
  };
}

export function standingView({ evaluations: _evaluations, ...standing }: PolicyStanding): SigningCardView['standing'] {
  return standing;
}
