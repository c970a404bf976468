import { type Connection, integer, optionalText, text } from './connection';

/** Schema of the sent-transactions migration: what eth_send_transaction broadcast, for get_send_transaction_status. */
export const SENT_TRANSACTIONS_SQL = `
  CREATE TABLE sent_transactions (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    activity_id TEXT NOT NULL,
    caip2 TEXT NOT NULL,
    tx_hash TEXT,
    error TEXT,
    created_at INTEGER NOT NULL,
    CHECK ((tx_hash IS NULL) <> (error IS NULL))
  );
  CREATE INDEX sent_transactions_organization ON sent_transactions(organization_id, id);
`;

/** A transaction as the service handed it to the node: broadcast (its hash) or refused by the node (the reason). */
export interface SentTransactionRecord {
  id: string;
  organizationId: string;
  activityId: string;
  caip2: string;
  outcome: { txHash: string } | { error: string };
  createdAt: number;
}

export class SentTransactionRepository {
  constructor(private readonly connection: Connection) {}

  insert(record: SentTransactionRecord): void {
    this.connection.run(
      `INSERT INTO sent_transactions (id, organization_id, activity_id, caip2, tx_hash, error, created_at)
       VALUES (:id, :organizationId, :activityId, :caip2, :txHash, :error, :createdAt)`,
      {
        id: record.id,
        organizationId: record.organizationId,
        activityId: record.activityId,
        caip2: record.caip2,
        txHash: 'txHash' in record.outcome ? record.outcome.txHash : null,
        error: 'error' in record.outcome ? record.outcome.error : null,
        createdAt: record.createdAt,
      },
    );
  }

  get(organizationId: string, id: string): SentTransactionRecord | undefined {
    return this.fromRow(
      this.connection.get('SELECT * FROM sent_transactions WHERE organization_id = :organizationId AND id = :id', { organizationId, id }),
    );
  }

  /** The organization's sends of `txHashes` on `caip2`, by hash as given (the hashes the node reports, lowercase hex). */
  findByTxHashes(organizationId: string, caip2: string, txHashes: readonly string[]): Map<string, SentTransactionRecord> {
    const found = new Map<string, SentTransactionRecord>();
    for (const txHash of txHashes) {
      const record = this.fromRow(
        this.connection.get(
          'SELECT * FROM sent_transactions WHERE organization_id = :organizationId AND caip2 = :caip2 AND tx_hash = :txHash ORDER BY created_at LIMIT 1',
          { organizationId, caip2, txHash },
        ),
      );
      if (record !== undefined) found.set(txHash, record);
    }
    return found;
  }

  private fromRow(row: Record<string, unknown> | undefined): SentTransactionRecord | undefined {
    if (row === undefined) return undefined;
    const txHash = optionalText(row, 'tx_hash');
    return {
      id: text(row, 'id'),
      organizationId: text(row, 'organization_id'),
      activityId: text(row, 'activity_id'),
      caip2: text(row, 'caip2'),
      outcome: txHash === undefined ? { error: text(row, 'error') } : { txHash },
      createdAt: integer(row, 'created_at'),
    };
  }
}
