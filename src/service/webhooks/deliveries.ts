/**
 * Webhook deliveries (docs/sandbox.md#webhooks): each event is posted, signed as Turnkey signs its deliveries, to every
 * active endpoint subscribed to its type, off the request that caused it. A delivery that meets a network error, a
 * time-out or a 5xx is tried again after a growing pause, a bounded number of times; a 2xx delivers it; a 3xx or 4xx
 * ends it (redirects are not followed), as Turnkey documents. Deliveries live in memory only: a bounded queue of
 * those still to be made and a bounded history the deliveries route shows.
 */
import { randomUUID } from 'node:crypto';
import { utf8Encode } from '../../shared/crypto/encoding';
import type { RequestLogEntry } from '../server/request-log';
import type { Repositories } from '../store';
import { TableMemo } from '../store/table-memo';
import type { WebhookEndpointRecord } from '../store/webhooks';
import type { WebhookSigningKey } from './signing-key';

/** The event types the Sandbox produces; the balance events only where a chain's node is configured (`--rpc`). */
export const WEBHOOK_EVENT_TYPES = [
  'ACTIVITY_UPDATES',
  'SEND_TRANSACTION_STATUS_UPDATES',
  'BALANCE_CONFIRMED_UPDATES',
  'BALANCE_FINALIZED_UPDATES',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Event types delivered to the organization that bills the one they happened in (its parent, or itself), as Turnkey scopes them. */
export const BILLING_SCOPED_EVENT_TYPES: readonly WebhookEventType[] = [
  'SEND_TRANSACTION_STATUS_UPDATES',
  'BALANCE_CONFIRMED_UPDATES',
  'BALANCE_FINALIZED_UPDATES',
];

export interface WebhookEvent {
  eventType: WebhookEventType;
  /** The organization the event happened in. */
  organizationId: string;
  /** The activity it concerns, for the log line. */
  activityId?: string;
  /** The JSON body, serialised once: retries send the same bytes. */
  body: string;
}

export interface DeliveryAttempt {
  /** Wall-clock milliseconds the attempt was signed at (its `X-Turnkey-Timestamp`). */
  atMs: number;
  /** The endpoint's HTTP status; absent when it gave none. */
  httpStatus?: number;
  /** Why the attempt failed when the endpoint gave no status (a refused connection, a time-out). */
  error?: string;
  ms: number;
}

export type DeliveryState = 'PENDING' | 'DELIVERED' | 'FAILED' | 'DROPPED';

export interface DeliveryRecord {
  /** `X-Turnkey-Event-Id`: the same for every attempt of this delivery. */
  eventId: string;
  endpointId: string;
  /** The endpoint's organization (`X-Turnkey-Organization-Id`). */
  organizationId: string;
  eventType: WebhookEventType;
  /** The activity the event concerns. */
  activityId: string | undefined;
  url: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  body: string;
}

export interface DeliveryLimits {
  /** Attempts per delivery, the first included. */
  maxAttempts: number;
  /** The pause before the second attempt; each further one is `backoffFactor` times longer. */
  firstRetryMs: number;
  backoffFactor: number;
  /** How long one attempt may take before it counts as failed. */
  attemptTimeoutMs: number;
  /** Deliveries waiting or being made; an event that finds the queue full is dropped (and says so). */
  maxQueued: number;
  /** Attempts made at once. */
  concurrency: number;
  /** Finished deliveries kept for the deliveries route, newest last. */
  historySize: number;
}

export const DEFAULT_DELIVERY_LIMITS: DeliveryLimits = {
  maxAttempts: 5,
  firstRetryMs: 500,
  backoffFactor: 4,
  attemptTimeoutMs: 10_000,
  maxQueued: 1_000,
  concurrency: 4,
  historySize: 1_000,
};

export interface WebhookDeliveriesOptions {
  /** Committed data: events are published after their transaction commits. */
  store: Repositories;
  signingKey: WebhookSigningKey;
  /** The wall clock the delivery timestamps are read from, which a receiver compares with its own. */
  wall: () => number;
  log: (line: string) => void;
  requestLog?: (entry: RequestLogEntry) => void;
  limits?: Partial<DeliveryLimits>;
}

export class WebhookDeliveries {
  private readonly limits: DeliveryLimits;
  /** Deliveries not yet finished, in the order they are due. */
  private readonly waiting: DeliveryRecord[] = [];
  /** Deliveries waiting out a pause before their next attempt, and the timers that end it. */
  private readonly retrying = new Set<DeliveryRecord>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Map<DeliveryRecord, { abort: AbortController; done: Promise<void> }>();
  private readonly history: DeliveryRecord[] = [];
  private queued = 0;
  private closed = false;
  /**
   * Whether an organization or its parent owns any endpoint, by organization, while neither table changes: most own
   * none, and then their every status change is neither serialised nor looked up.
   */
  private readonly endpointOwners = new TableMemo<boolean>(['organizations', 'webhook_endpoints']);

  constructor(private readonly options: WebhookDeliveriesOptions) {
    this.limits = { ...DEFAULT_DELIVERY_LIMITS, ...options.limits };
  }

  /**
   * Queues one delivery per active endpoint subscribed to the event: the organization's own and, for activity
   * updates, its parent's; a transaction's status and a balance change go to the organization that bills it (the
   * parent, when there is one), as Turnkey scopes them. Returns at once: the endpoints are looked up after the caller's turn, and nothing
   * about a delivery throws to it.
   */
  publish(event: WebhookEvent): void {
    if (!this.closed) setImmediate(() => this.enqueue(event));
  }

  private enqueue(event: WebhookEvent): void {
    if (this.closed) return;
    for (const endpoint of this.recipients(event.organizationId, event.eventType)) {
      const delivery: DeliveryRecord = {
        eventId: randomUUID(),
        endpointId: endpoint.id,
        organizationId: endpoint.organizationId,
        eventType: event.eventType,
        activityId: event.activityId,
        url: endpoint.url,
        state: 'PENDING',
        attempts: [],
        body: event.body,
      };
      if (this.queued >= this.limits.maxQueued) {
        delivery.state = 'DROPPED';
        this.remember(delivery);
        this.options.log(`webhook queue full (${this.limits.maxQueued} deliveries): dropped ${event.eventType} for ${endpoint.url}`);
        continue;
      }
      this.queued += 1;
      this.waiting.push(delivery);
    }
    this.pump();
  }

  /** Deliveries of the organization's endpoints, those still being made first, then the finished ones, newest first. */
  deliveriesOf(organizationId: string): DeliveryRecord[] {
    const pending = [...this.inFlight.keys(), ...this.waiting, ...this.retrying].filter((d) => d.organizationId === organizationId);
    const finished = this.history.filter((d) => d.organizationId === organizationId).reverse();
    return [...pending, ...finished];
  }

  /** Stops: nothing new is queued or retried, attempts under way are aborted and waited for. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    this.waiting.length = 0;
    for (const { abort } of this.inFlight.values()) abort.abort();
    await Promise.all([...this.inFlight.values()].map(({ done }) => done));
  }

  /** Whether any active endpoint of any organization listens for `eventType` now. */
  hasAnySubscriber(eventType: WebhookEventType): boolean {
    return this.options.store.webhookEndpoints.anySubscribedTo(eventType);
  }

  /**
   * False when no event in the organization could be delivered anywhere now, since neither it nor its parent owns an
   * endpoint (active or not). Cheap: read again only after an organization or an endpoint changed.
   */
  mayDeliverFor(organizationId: string): boolean {
    const { store } = this.options;
    return this.endpointOwners.get(
      organizationId,
      () => {
        const parentId = store.organizations.get(organizationId)?.parentId;
        return [organizationId, ...(parentId === undefined ? [] : [parentId])].some((owner) => store.webhookEndpoints.hasAny(owner));
      },
      this.endpointOwners.mayRemember(store.connection),
    );
  }

  /** Whether an event of `eventType` in the organization would be delivered anywhere now. */
  hasSubscriber(organizationId: string, eventType: WebhookEventType): boolean {
    return this.recipients(organizationId, eventType).length > 0;
  }

  private recipients(organizationId: string, eventType: WebhookEventType): WebhookEndpointRecord[] {
    if (!this.mayDeliverFor(organizationId)) return [];
    const { store } = this.options;
    const organization = store.organizations.get(organizationId);
    if (organization === undefined) return [];
    const owners = BILLING_SCOPED_EVENT_TYPES.includes(eventType)
      ? [organization.parentId ?? organization.id]
      : [organization.id, ...(organization.parentId === undefined ? [] : [organization.parentId])];
    return owners
      .flatMap((owner) => store.webhookEndpoints.listByOrganization(owner))
      .filter((endpoint) => endpoint.isActive && endpoint.subscriptions.some((s) => s.isActive && s.eventType === eventType));
  }

  private pump(): void {
    while (!this.closed && this.inFlight.size < this.limits.concurrency && this.waiting.length > 0) {
      const delivery = this.waiting.shift()!;
      const abort = new AbortController();
      const done = this.attempt(delivery, abort.signal).finally(() => {
        this.inFlight.delete(delivery);
        this.pump();
      });
      this.inFlight.set(delivery, { abort, done });
    }
  }

  private async attempt(delivery: DeliveryRecord, aborted: AbortSignal): Promise<void> {
    const { signingKey } = this.options;
    const atMs = this.options.wall();
    const timestamp = String(atMs);
    // Turnkey's v1 contract: the signature covers these fields and the body's exact bytes.
    const signedPrefix = `v1.ed25519.${signingKey.keyId}.${timestamp}.${delivery.eventId}.`;
    const signature = signingKey.sign(utf8Encode(signedPrefix + delivery.body));
    const started = performance.now();
    let httpStatus: number | undefined;
    let error: string | undefined;
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.any([aborted, AbortSignal.timeout(this.limits.attemptTimeoutMs)]),
        headers: {
          'content-type': 'application/json',
          'x-turnkey-organization-id': delivery.organizationId,
          'x-turnkey-event-type': delivery.eventType,
          'x-turnkey-timestamp': timestamp,
          'x-turnkey-webhook-version': '1',
          'x-turnkey-event-id': delivery.eventId,
          'x-turnkey-signature-key-id': signingKey.keyId,
          'x-turnkey-signature-algorithm': 'ed25519',
          'x-turnkey-signature-version': 'v1',
          'x-turnkey-signature': signature,
        },
        body: delivery.body,
      });
      httpStatus = response.status;
      // The answer's body is not read; cancelling it frees the connection.
      await response.body?.cancel();
    } catch (failure) {
      error = aborted.aborted ? 'the Sandbox stopped' : attemptError(failure, this.limits.attemptTimeoutMs);
    }
    const ms = performance.now() - started;
    delivery.attempts.push({ atMs, ms, ...(httpStatus === undefined ? {} : { httpStatus }), ...(error === undefined ? {} : { error }) });
    this.logAttempt(delivery, httpStatus, error, ms);
    if (httpStatus !== undefined && httpStatus >= 200 && httpStatus < 300) return this.finish(delivery, 'DELIVERED');
    const retryable = httpStatus === undefined || httpStatus >= 500;
    if (!retryable || aborted.aborted || this.closed || delivery.attempts.length >= this.limits.maxAttempts) return this.finish(delivery, 'FAILED');
    const pauseMs = this.limits.firstRetryMs * this.limits.backoffFactor ** (delivery.attempts.length - 1);
    this.retrying.add(delivery);
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.retrying.delete(delivery);
      this.waiting.push(delivery);
      this.pump();
    }, pauseMs);
    this.retryTimers.add(timer);
  }

  private finish(delivery: DeliveryRecord, state: DeliveryState): void {
    delivery.state = state;
    this.queued -= 1;
    this.remember(delivery);
  }

  private remember(delivery: DeliveryRecord): void {
    this.history.push(delivery);
    if (this.history.length > this.limits.historySize) this.history.shift();
  }

  /** One request-log line per attempt; an endpoint that gave no status is logged as a gateway would answer. */
  private logAttempt(delivery: DeliveryRecord, httpStatus: number | undefined, error: string | undefined, ms: number): void {
    const status = httpStatus ?? (error?.startsWith('no answer within') === true ? 504 : 502);
    const failed = httpStatus === undefined || httpStatus < 200 || httpStatus >= 300;
    this.options.requestLog?.({
      method: 'POST',
      path: delivery.url,
      operation: `webhook ${delivery.eventType} attempt ${delivery.attempts.length}`,
      organizationId: delivery.organizationId,
      ...(delivery.activityId === undefined ? {} : { activityId: delivery.activityId }),
      status,
      ...(failed ? { errorCode: 'WEBHOOK_NOT_DELIVERED', reason: error ?? `the endpoint answered ${status}` } : {}),
      ms,
    });
  }
}

function attemptError(failure: unknown, timeoutMs: number): string {
  const name = (failure as { name?: unknown }).name;
  if (name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = (failure as { cause?: { code?: unknown; message?: unknown } }).cause;
  return typeof cause?.message === 'string' ? cause.message : String(failure);
}
