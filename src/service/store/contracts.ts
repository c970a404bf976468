/** Smart contract interfaces: the ABIs and IDLs uploaded for clear signing and policies (schema: migration 2). */
import { type Connection, type Row, integer, text } from './connection';

export const CONTRACTS_SQL = `
  CREATE TABLE smart_contract_interfaces (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    address TEXT NOT NULL,
    interface TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('ETHEREUM', 'SOLANA')),
    label TEXT NOT NULL,
    notes TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX smart_contract_interfaces_organization ON smart_contract_interfaces(organization_id);
`;

export type SmartContractInterfaceType = 'ETHEREUM' | 'SOLANA';

export interface SmartContractInterfaceRecord {
  id: string;
  organizationId: string;
  address: string;
  interface: string;
  type: SmartContractInterfaceType;
  label: string;
  notes: string;
  createdAt: number;
  updatedAt: number;
}

function toInterface(row: Row): SmartContractInterfaceRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    address: text(row, 'address'),
    interface: text(row, 'interface'),
    type: text(row, 'type') as SmartContractInterfaceType,
    label: text(row, 'label'),
    notes: text(row, 'notes'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

export class SmartContractInterfaceRepository {
  constructor(private readonly connection: Connection) {}

  insert(record: Omit<SmartContractInterfaceRecord, 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO smart_contract_interfaces (id, organization_id, address, interface, type, label, notes, created_at, updated_at)
       VALUES (:id, :organizationId, :address, :interface, :type, :label, :notes, :now, :now)`,
      { ...record },
    );
  }

  get(organizationId: string, id: string): SmartContractInterfaceRecord | undefined {
    const row = this.connection.get('SELECT * FROM smart_contract_interfaces WHERE id = :id AND organization_id = :organizationId', {
      id,
      organizationId,
    });
    return row === undefined ? undefined : toInterface(row);
  }

  listByOrganization(organizationId: string): SmartContractInterfaceRecord[] {
    return this.connection
      .all('SELECT * FROM smart_contract_interfaces WHERE organization_id = :organizationId ORDER BY rowid', { organizationId })
      .map(toInterface);
  }

  delete(id: string): void {
    this.connection.run('DELETE FROM smart_contract_interfaces WHERE id = :id', { id });
  }
}
