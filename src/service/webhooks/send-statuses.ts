/**
 * SEND_TRANSACTION_STATUS_UPDATES (docs/sandbox.md#webhooks): a send's status as Turnkey reports it in its webhooks.
 * The Sandbox learns a status only by asking the chain's node, so a send that some endpoint listens for is followed
 * from the activity that broadcast it: its first status at once (BROADCASTING, or FAILED when the node refused it),
 * then the node is asked again every second until the transaction is INCLUDED or FAILED, for ten minutes at most.
 */
import type { Activity } from '../../shared/api/activity-record';
import { sendStatusOf, type RpcNodes } from '../families/send-transactions';
import type { Repositories } from '../store';
import type { SentTransactionRecord } from '../store/sent-transactions';
import type { WebhookDeliveries } from './deliveries';

const EVENT_TYPE = 'SEND_TRANSACTION_STATUS_UPDATES';

export interface SendStatusLimits {
  /** Between two questions to the node about one send. */
  pollMs: number;
  /** How long a send is followed before the Sandbox stops asking (and reports nothing more). */
  followForMs: number;
  /** Sends followed at once; a send beyond them reports its first status only. */
  maxFollowed: number;
}

export const DEFAULT_SEND_STATUS_LIMITS: SendStatusLimits = { pollMs: 1_000, followForMs: 10 * 60 * 1000, maxFollowed: 100 };

export interface SendStatusesOptions {
  store: Repositories;
  rpc: RpcNodes;
  deliveries: WebhookDeliveries;
  wall: () => number;
  log: (line: string) => void;
  limits?: Partial<SendStatusLimits>;
}

type SendStatus = Awaited<ReturnType<typeof sendStatusOf>>;

/** The send status id an activity's result names (eth_send_transaction's, sol_send_transaction's…), if any. */
function sendStatusIdOf(activity: Activity): string | undefined {
  for (const member of Object.values(activity.result ?? {})) {
    const id = (member as { sendTransactionStatusId?: unknown } | null)?.sendTransactionStatusId;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

export class SendStatusWebhooks {
  private readonly limits: SendStatusLimits;
  private readonly followed = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: SendStatusesOptions) {
    this.limits = { ...DEFAULT_SEND_STATUS_LIMITS, ...options.limits };
  }

  /** Starts following the send a just-completed activity made, when an endpoint listens for its status. */
  onActivity(activity: Activity): void {
    if (this.closed || activity.status !== 'ACTIVITY_STATUS_COMPLETED') return;
    const id = sendStatusIdOf(activity);
    if (id === undefined) return;
    const sent = this.options.store.sentTransactions.get(activity.organizationId, id);
    if (sent === undefined || !this.options.deliveries.hasSubscriber(sent.organizationId, EVENT_TYPE)) return;
    if ('error' in sent.outcome) {
      this.publish(sent, { txStatus: 'FAILED', error: { message: sent.outcome.error } });
      return;
    }
    this.publish(sent, { txStatus: 'BROADCASTING' });
    if (this.followed.size >= this.limits.maxFollowed) {
      this.options.log(`following ${this.limits.maxFollowed} sends already: send ${sent.id} reports BROADCASTING only`);
      return;
    }
    this.follow(sent, this.options.wall() + this.limits.followForMs);
  }

  /** Stops asking the nodes; a question under way is answered into nothing. */
  close(): void {
    this.closed = true;
    for (const timer of this.followed.values()) clearTimeout(timer);
    this.followed.clear();
  }

  private follow(sent: SentTransactionRecord, untilMs: number): void {
    const timer = setTimeout(() => {
      void sendStatusOf(this.options.rpc, sent).then(
        (status) => {
          if (this.closed) return;
          if (status.txStatus === 'BROADCASTING' && this.options.wall() < untilMs) return this.follow(sent, untilMs);
          this.followed.delete(sent.id);
          if (status.txStatus !== 'BROADCASTING') this.publish(sent, status);
        },
        (error: unknown) => {
          this.followed.delete(sent.id);
          this.options.log(`could not read the status of send ${sent.id}: ${error instanceof Error ? error.message : String(error)}`);
        },
      );
    }, this.limits.pollMs);
    this.followed.set(sent.id, timer);
  }

  /** Turnkey's `transaction:status` body: the hash once included, the error once failed. */
  private publish(sent: SentTransactionRecord, status: Pick<SendStatus, 'txStatus' | 'error'>): void {
    const organization = this.options.store.organizations.get(sent.organizationId);
    const txHash = status.txStatus === 'INCLUDED' && 'txHash' in sent.outcome ? sent.outcome.txHash : undefined;
    const revertChain = status.error?.revertChain;
    const body = {
      type: 'transaction:status',
      organizationId: sent.organizationId,
      parentOrganizationId: organization?.parentId ?? sent.organizationId,
      msg: {
        sendTransactionStatusId: sent.id,
        activityId: sent.activityId,
        status: status.txStatus,
        caip2: sent.caip2,
        idempotencyKey: `${sent.id}:${status.txStatus}`,
        timestamp: String(Math.floor(this.options.wall() / 1000)),
        ...(txHash === undefined ? {} : { txHash }),
        ...(status.error === undefined
          ? {}
          : { error: { message: status.error.message, ...(revertChain === undefined ? {} : { eth: { revertChain } }) } }),
      },
    };
    this.options.deliveries.publish({
      eventType: EVENT_TYPE,
      organizationId: sent.organizationId,
      activityId: sent.activityId,
      body: JSON.stringify(body),
    });
  }
}
