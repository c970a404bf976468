/**
 * BALANCE_CONFIRMED_UPDATES and BALANCE_FINALIZED_UPDATES (docs/sandbox.md#webhooks): a wallet account's balance
 * changes, as Turnkey delivers them, read from the chains' nodes (`--rpc`). The hosted service reads an indexer; the
 * Sandbox has only JSON-RPC, so it follows each EVM chain's new blocks itself, off the request path: once a second it
 * asks the node for its latest (and finalized) block and reads the blocks since the last look, a bounded number per
 * look. A change is a transaction's native value, or an ERC-20 `Transfer` of a token the Sandbox knows (`--token`), to
 * or from a wallet account address of any organization.
 */
import { createHash } from 'node:crypto';
import { getAddress, isAddressEqual, parseAbiItem, type Block, type Hex, type PublicClient, type Transaction } from 'viem';
import type { Repositories } from '../store';
import type { WalletAccountRecord } from '../store/wallets';
import { nodeClient, nodeReason, type RpcNodes } from '../families/send-transactions';
import { nativeAsset, tokenAsset, type Asset, type SandboxTokens } from '../families/wallet-data';
import type { WebhookDeliveries, WebhookEventType } from './deliveries';

/** Each event type, the body's `type` and the block tag whose blocks it reports. */
const WATCHED = [
  { eventType: 'BALANCE_CONFIRMED_UPDATES', type: 'balances:confirmed', blockTag: 'latest' },
  { eventType: 'BALANCE_FINALIZED_UPDATES', type: 'balances:finalized', blockTag: 'finalized' },
] as const satisfies readonly { eventType: WebhookEventType; type: string; blockTag: 'latest' | 'finalized' }[];

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export interface BalanceWatchLimits {
  /** Between two looks at a chain's nodes. */
  pollMs: number;
  /** Blocks read in one look at one chain; a node further ahead is caught up with over the next looks. */
  maxBlocksPerLook: number;
}

export const DEFAULT_BALANCE_WATCH_LIMITS: BalanceWatchLimits = { pollMs: 1_000, maxBlocksPerLook: 100 };

export interface BalanceWebhooksOptions {
  /** Committed data: the wallet accounts and endpoints as they stand at each look. */
  store: Repositories;
  rpc: RpcNodes;
  tokens: SandboxTokens;
  deliveries: WebhookDeliveries;
  log: (line: string) => void;
  limits?: Partial<BalanceWatchLimits>;
}

/** One balance change: one address, one asset, one direction, in one transaction. */
interface Change {
  account: WalletAccountRecord;
  operation: 'deposit' | 'withdraw';
  asset: Asset;
  amount: bigint;
  transaction: Transaction;
}

export class BalanceWebhooks {
  private readonly limits: BalanceWatchLimits;
  /** Per chain and event type, the last block looked at. */
  private readonly lastSeen = new Map<string, bigint>();
  /** Token metadata read from the contracts once. */
  private readonly tokenAssets = new Map<string, Asset | undefined>();
  private readonly chains: { caip2: string; client: PublicClient }[];
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: BalanceWebhooksOptions) {
    this.limits = { ...DEFAULT_BALANCE_WATCH_LIMITS, ...options.limits };
    this.chains = Object.entries(options.rpc)
      .filter(([caip2]) => caip2.startsWith('eip155:'))
      .map(([caip2, url]) => ({ caip2, client: nodeClient(url) }));
  }

  /** The EVM chains whose balances are watched: balance events need one (`--rpc eip155:…`). */
  get watchedChains(): string[] {
    return this.chains.map(({ caip2 }) => caip2);
  }

  /**
   * Notes each chain's heads before the Sandbox is reported started, so that a change a test makes after the start is
   * never taken for an older one; then looks again every `pollMs`.
   */
  async start(): Promise<void> {
    if (this.chains.length === 0) return;
    await this.lookAtChains();
    this.schedule();
  }

  /** Stops looking; a look under way is waited for, and publishes nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.looking;
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.looking = this.lookAtChains().finally(() => {
        this.looking = undefined;
        this.schedule();
      });
    }, this.limits.pollMs);
    // The watch alone must not keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  private async lookAtChains(): Promise<void> {
    for (const chain of this.chains) {
      for (const watched of WATCHED) {
        if (this.closed) return;
        try {
          await this.look(chain.caip2, chain.client, watched);
        } catch (error) {
          this.options.log(`could not read ${chain.caip2}'s ${watched.blockTag} blocks for balance webhooks: ${nodeReason(error)}`);
        }
      }
    }
  }

  /**
   * Reads the blocks after the last one looked at, up to the tag's head. While no endpoint listens the head is only
   * noted, so blocks before a subscription (older than one look) are not reported to it.
   */
  private async look(caip2: string, client: PublicClient, watched: (typeof WATCHED)[number]): Promise<void> {
    const key = `${caip2} ${watched.eventType}`;
    // Older nodes have no finalized block: then nothing is reported as finalized.
    const head = await client.getBlock({ blockTag: watched.blockTag }).then(
      (block) => block.number,
      (error: unknown) => {
        if (watched.blockTag === 'latest') throw error;
        return null;
      },
    );
    if (head === null) return;
    const last = this.lastSeen.get(key);
    if (last === undefined || !this.options.deliveries.hasAnySubscriber(watched.eventType)) {
      this.lastSeen.set(key, head);
      return;
    }
    const until = head - last > BigInt(this.limits.maxBlocksPerLook) ? last + BigInt(this.limits.maxBlocksPerLook) : head;
    for (let number = last + 1n; number <= until; number++) {
      const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
      for (const change of await this.changesIn(caip2, client, block)) {
        if (this.closed) return;
        this.publish(caip2, watched, block, change);
      }
      this.lastSeen.set(key, number);
    }
  }

  /** The balance changes of wallet account addresses in one block, in transaction order. */
  private async changesIn(caip2: string, client: PublicClient, block: Block): Promise<Change[]> {
    const transactions = block.transactions as Transaction[];
    const tokens = this.options.tokens[caip2] ?? [];
    const logs = tokens.length === 0 ? [] : await client.getLogs({ address: [...tokens], event: TRANSFER_EVENT, blockHash: block.hash! });
    const candidates = new Set<Hex>();
    for (const transaction of transactions) {
      if (transaction.value > 0n && transaction.to != null) candidates.add(transaction.from).add(transaction.to);
    }
    for (const log of logs) candidates.add(log.args.from!).add(log.args.to!);
    const accounts = this.accountsOf([...candidates]);
    if (accounts.length === 0) return [];
    const native = nativeAsset(caip2, { kind: 'eip155', chainId: Number(caip2.slice('eip155:'.length)) });
    const changes: Change[] = [];
    const byIndex = new Map(transactions.map((transaction) => [transaction.transactionIndex, transaction]));
    for (const transaction of transactions) {
      if (transaction.value === 0n || transaction.to == null) continue;
      const involved = accounts.filter(
        (account) => isAddressEqual(account.address as Hex, transaction.from) || isAddressEqual(account.address as Hex, transaction.to!),
      );
      if (involved.length === 0) continue;
      // A reverted transaction moved no value.
      const receipt = await client.getTransactionReceipt({ hash: transaction.hash });
      if (receipt.status !== 'success') continue;
      for (const account of involved) {
        if (isAddressEqual(account.address as Hex, transaction.from))
          changes.push({ account, operation: 'withdraw', asset: native, amount: transaction.value, transaction });
        if (isAddressEqual(account.address as Hex, transaction.to))
          changes.push({ account, operation: 'deposit', asset: native, amount: transaction.value, transaction });
      }
    }
    for (const log of logs) {
      const transaction = byIndex.get(log.transactionIndex);
      const asset = await this.tokenAssetOf(caip2, client, log.address);
      if (transaction === undefined || asset === undefined) continue;
      for (const account of accounts) {
        const address = account.address as Hex;
        if (isAddressEqual(address, log.args.from!)) changes.push({ account, operation: 'withdraw', asset, amount: log.args.value!, transaction });
        if (isAddressEqual(address, log.args.to!)) changes.push({ account, operation: 'deposit', asset, amount: log.args.value!, transaction });
      }
    }
    return combined(changes);
  }

  /** Wallet accounts (of any organization) at these addresses, however each was spelt when it was stored. */
  private accountsOf(addresses: readonly Hex[]): WalletAccountRecord[] {
    const spellings = new Set(addresses.flatMap((address) => [address, getAddress(address), address.toLowerCase()]));
    return this.options.store.walletAccounts.listByAddresses([...spellings]);
  }

  private async tokenAssetOf(caip2: string, client: PublicClient, token: Hex): Promise<Asset | undefined> {
    const key = `${caip2} ${token.toLowerCase()}`;
    if (!this.tokenAssets.has(key)) this.tokenAssets.set(key, await tokenAsset(client, caip2, token));
    return this.tokenAssets.get(key);
  }

  /** Turnkey's balance event body: one address, one asset, one direction, keyed for de-duplication. */
  private publish(caip2: string, watched: (typeof WATCHED)[number], block: Block, change: Change): void {
    const { account, asset } = change;
    const organization = this.options.store.organizations.get(account.organizationId);
    const txHash = change.transaction.hash;
    // Stable across looks and restarts: the same change always has the same key, another change another one.
    const idempotencyKey = createHash('sha256')
      .update([watched.type, caip2, txHash, account.organizationId, account.address.toLowerCase(), asset.caip19, change.operation].join('\n'))
      .digest('hex');
    const body = {
      type: watched.type,
      msg: {
        operation: change.operation,
        caip2,
        txHash,
        address: account.address,
        orgID: account.organizationId,
        parentOrgID: organization?.parentId ?? account.organizationId,
        idempotencyKey,
        asset: { ...asset, amount: String(change.amount) },
        block: {
          number: Number(block.number),
          hash: block.hash,
          timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace('.000Z', 'Z'),
        },
      },
    };
    this.options.deliveries.publish({ eventType: watched.eventType, organizationId: account.organizationId, body: JSON.stringify(body) });
  }
}

/** One change per transaction, account, asset and direction: several transfers of one token in a transaction add up. */
function combined(changes: readonly Change[]): Change[] {
  const byKey = new Map<string, Change>();
  for (const change of changes) {
    const key = [change.transaction.hash, change.account.id, change.asset.caip19, change.operation].join(' ');
    const earlier = byKey.get(key);
    byKey.set(key, earlier === undefined ? change : { ...earlier, amount: earlier.amount + change.amount });
  }
  return [...byKey.values()];
}
