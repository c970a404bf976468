/** App proofs: the enclave's signed statements attached to an activity (schema: migration 4). */
import { type Connection, text } from './connection';

export const APP_PROOFS_SQL = `
  CREATE TABLE app_proofs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    scheme TEXT NOT NULL,
    public_key TEXT NOT NULL,
    proof_payload TEXT NOT NULL,
    signature TEXT NOT NULL
  );
  CREATE INDEX app_proofs_activity ON app_proofs(activity_id, seq);
`;

/** A type alias (not an interface) so that it is assignable to the wire schema's open object type. */
export type AppProofRecord = {
  scheme: 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256';
  publicKey: string;
  proofPayload: string;
  signature: string;
};

export class AppProofRepository {
  constructor(private readonly connection: Connection) {}

  insert(activityId: string, proof: AppProofRecord): void {
    this.connection.run(
      `INSERT INTO app_proofs (activity_id, scheme, public_key, proof_payload, signature)
       VALUES (:activityId, :scheme, :publicKey, :proofPayload, :signature)`,
      { activityId, ...proof },
    );
  }

  listByActivity(activityId: string): AppProofRecord[] {
    return this.connection.all('SELECT * FROM app_proofs WHERE activity_id = :activityId ORDER BY seq', { activityId }).map((row) => ({
      scheme: text(row, 'scheme') as AppProofRecord['scheme'],
      publicKey: text(row, 'public_key'),
      proofPayload: text(row, 'proof_payload'),
      signature: text(row, 'signature'),
    }));
  }
}
