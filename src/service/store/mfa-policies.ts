/**
 * MFA policies (schema: migration 18): per user, a condition and the ordered steps of authenticators an activity it
 * matches waits for; and, per activity and user, the requirement an approval raised and the methods presented for it
 * (docs/service.md#mfa-policies).
 */
import type { z } from 'zod';
import type { authenticationType } from '../../shared/api/enums';
import { type Connection, type Row, integer, optionalText, text } from './connection';

export const MFA_POLICIES_SQL = `
  CREATE TABLE mfa_policies (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    condition TEXT NOT NULL,
    required_methods TEXT NOT NULL,
    sort_order INTEGER NOT NULL,
    notes TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX mfa_policies_user ON mfa_policies(user_id, sort_order);
  -- The requirement stays as it was raised: editing or deleting the policy later does not change what a waiting
  -- activity needs.
  CREATE TABLE mfa_requirements (
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    mfa_policy_id TEXT NOT NULL,
    required_methods TEXT NOT NULL,
    presented_methods TEXT NOT NULL,
    satisfied INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (activity_id, user_id)
  );
`;

/**
 * An authentication method as policies name it and stamps present it: a type, and the credential's id if any. Type
 * aliases, not interfaces, so that they are the wire shapes (objects open to more members).
 */
export type AuthenticationMethod = {
  type: z.infer<typeof authenticationType>;
  id?: string | undefined;
};

/** One step: any one of its methods meets it. */
export type RequiredStep = {
  any: AuthenticationMethod[];
};

export interface MfaPolicyRecord {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  condition: string;
  requiredMethods: RequiredStep[];
  order: number;
  notes: string | undefined;
  createdAt: number;
  updatedAt: number;
}

export interface MfaRequirementRecord {
  activityId: string;
  userId: string;
  mfaPolicyId: string;
  requiredMethods: RequiredStep[];
  /** Every method the user presented on this activity, in order, each once. */
  presentedMethods: AuthenticationMethod[];
  satisfied: boolean;
  createdAt: number;
  updatedAt: number;
}

function toPolicy(row: Row): MfaPolicyRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    userId: text(row, 'user_id'),
    name: text(row, 'name'),
    condition: text(row, 'condition'),
    requiredMethods: JSON.parse(text(row, 'required_methods')) as RequiredStep[],
    order: integer(row, 'sort_order'),
    notes: optionalText(row, 'notes'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

function toRequirement(row: Row): MfaRequirementRecord {
  return {
    activityId: text(row, 'activity_id'),
    userId: text(row, 'user_id'),
    mfaPolicyId: text(row, 'mfa_policy_id'),
    requiredMethods: JSON.parse(text(row, 'required_methods')) as RequiredStep[],
    presentedMethods: JSON.parse(text(row, 'presented_methods')) as AuthenticationMethod[],
    satisfied: integer(row, 'satisfied') === 1,
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
  };
}

type MfaPolicyFields = Omit<MfaPolicyRecord, 'createdAt' | 'updatedAt'> & { now: number };

function columnsOf(policy: MfaPolicyFields) {
  const { id, organizationId, userId, name, condition, requiredMethods, order, notes, now } = policy;
  return { id, organizationId, userId, name, condition, requiredMethods: JSON.stringify(requiredMethods), order, notes: notes ?? null, now };
}

export class MfaPolicyRepository {
  constructor(private readonly connection: Connection) {}

  insert(policy: MfaPolicyFields): void {
    this.connection.run(
      `INSERT INTO mfa_policies (id, organization_id, user_id, name, condition, required_methods, sort_order, notes, created_at, updated_at)
       VALUES (:id, :organizationId, :userId, :name, :condition, :requiredMethods, :order, :notes, :now, :now)`,
      columnsOf(policy),
    );
  }

  update(policy: MfaPolicyFields): void {
    this.connection.run(
      `UPDATE mfa_policies SET name = :name, condition = :condition, required_methods = :requiredMethods, sort_order = :order,
              notes = :notes, updated_at = :now
       WHERE id = :id AND organization_id = :organizationId AND user_id = :userId`,
      columnsOf(policy),
    );
  }

  delete(organizationId: string, userId: string, id: string): void {
    this.connection.run('DELETE FROM mfa_policies WHERE id = :id AND organization_id = :organizationId AND user_id = :userId', {
      id,
      organizationId,
      userId,
    });
  }

  get(organizationId: string, userId: string, id: string): MfaPolicyRecord | undefined {
    const row = this.connection.get('SELECT * FROM mfa_policies WHERE id = :id AND organization_id = :organizationId AND user_id = :userId', {
      id,
      organizationId,
      userId,
    });
    return row === undefined ? undefined : toPolicy(row);
  }

  /** A user's policies in the order they are evaluated: by `order`, then oldest first. */
  listByUser(userId: string): MfaPolicyRecord[] {
    return this.connection.all('SELECT * FROM mfa_policies WHERE user_id = :userId ORDER BY sort_order, rowid', { userId }).map(toPolicy);
  }

  countByUser(userId: string): number {
    const row = this.connection.get('SELECT count(*) AS n FROM mfa_policies WHERE user_id = :userId', { userId });
    return row === undefined ? 0 : integer(row, 'n');
  }

  requirement(activityId: string, userId: string): MfaRequirementRecord | undefined {
    const row = this.connection.get('SELECT * FROM mfa_requirements WHERE activity_id = :activityId AND user_id = :userId', { activityId, userId });
    return row === undefined ? undefined : toRequirement(row);
  }

  requirementsOf(activityId: string): MfaRequirementRecord[] {
    return this.connection
      .all('SELECT * FROM mfa_requirements WHERE activity_id = :activityId ORDER BY created_at, rowid', { activityId })
      .map(toRequirement);
  }

  /** Records or replaces the requirement of `userId` on the activity. */
  putRequirement(requirement: Omit<MfaRequirementRecord, 'createdAt' | 'updatedAt'> & { now: number }): void {
    this.connection.run(
      `INSERT INTO mfa_requirements (activity_id, user_id, mfa_policy_id, required_methods, presented_methods, satisfied, created_at, updated_at)
       VALUES (:activityId, :userId, :mfaPolicyId, :requiredMethods, :presentedMethods, :satisfied, :now, :now)
       ON CONFLICT (activity_id, user_id) DO UPDATE SET presented_methods = excluded.presented_methods,
              satisfied = excluded.satisfied, updated_at = excluded.updated_at`,
      {
        activityId: requirement.activityId,
        userId: requirement.userId,
        mfaPolicyId: requirement.mfaPolicyId,
        requiredMethods: JSON.stringify(requirement.requiredMethods),
        presentedMethods: JSON.stringify(requirement.presentedMethods),
        satisfied: requirement.satisfied ? 1 : 0,
        now: requirement.now,
      },
    );
  }
}
