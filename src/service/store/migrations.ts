/**
 * Numbered schema migrations, applied in order inside one transaction each and recorded in
 * `schema_migrations`. Adding a table is one more entry at the end of `migrations`; never edit an
 * entry that has shipped (existing databases have already applied it).
 *
 * Times are integer milliseconds since the epoch. JSON columns hold the wire shapes verbatim. Each repository module
 * owns the SQL of its tables; a migration that created several families' tables concatenates theirs in the order
 * it shipped with.
 */
import { APP_PROOFS_SQL } from './app-proofs';
import { CONTRACTS_SQL } from './contracts';
import { CREDENTIALS_SQL } from './credentials';
import { FIAT_ON_RAMP_CREDENTIALS_SQL } from './fiat-on-ramp-credentials';
import { IMPORT_TARGETS_FOR_SECRETS_SQL, IMPORT_TARGETS_SQL } from './export-import';
import { INVITATIONS_SQL } from './invitations';
import { IP_ALLOWLISTS_SQL } from './ip-allowlists';
import { MFA_POLICIES_SQL } from './mfa-policies';
import { ORGANIZATION_FEATURES_SQL } from './organizations';
import { OTP_AUTH_SQL } from './otp-auth';
import { PRIVATE_KEY_TAGS_SQL } from './private-key-tags';
import { PRIVATE_KEYS_SQL } from './private-keys';
import { OAUTH2_CREDENTIALS_SQL } from './oauth2-credentials';
import { SECRETS_SQL } from './secrets';
import { SEED_CONTENTS_SQL, SEEDS_SQL } from './seeds';
import { SENT_TRANSACTIONS_SQL } from './sent-transactions';
import { SESSIONS_SQL } from './sessions';
import { TVC_SQL } from './tvc';
import { WALLETS_SQL } from './wallets';
import { WEBHOOK_ENDPOINTS_SQL } from './webhooks';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /**
   * The migration rebuilds a table other tables reference: it runs with foreign keys off (dropping the old table
   * would otherwise cascade to every referencing row), and must leave no reference dangling (checked before COMMIT).
   */
  readonly rebuildsReferencedTables?: true;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'platform: organizations, users, api keys, tags, policies, activities, votes, service keys',
    sql: `
      CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        parent_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        root_quorum_threshold INTEGER NOT NULL CHECK (root_quorum_threshold >= 1),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX organizations_parent ON organizations(parent_id);

      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        email TEXT,
        phone_number TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX users_organization ON users(organization_id);

      CREATE TABLE root_quorum_members (
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        PRIMARY KEY (organization_id, user_id)
      );

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        public_key TEXT NOT NULL,
        credential_type TEXT NOT NULL,
        expiration_seconds INTEGER,
        session_profile_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (organization_id, public_key)
      );
      CREATE INDEX api_keys_public_key ON api_keys(public_key);
      CREATE INDEX api_keys_user ON api_keys(user_id);

      CREATE TABLE user_tags (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (organization_id, name)
      );

      CREATE TABLE user_tag_members (
        tag_id TEXT NOT NULL REFERENCES user_tags(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        PRIMARY KEY (tag_id, user_id)
      );
      CREATE INDEX user_tag_members_user ON user_tag_members(user_id);

      CREATE TABLE policies (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        effect TEXT NOT NULL CHECK (effect IN ('EFFECT_ALLOW', 'EFFECT_DENY')),
        condition TEXT NOT NULL,
        consensus TEXT NOT NULL,
        notes TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (organization_id, name)
      );

      -- seq orders activities by arrival (timestamps can tie); id is the public identifier.
      CREATE TABLE activities (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        status TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        body TEXT NOT NULL,
        intent TEXT NOT NULL,
        result TEXT,
        failure TEXT,
        proposer_user_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (organization_id, fingerprint)
      );
      CREATE INDEX activities_organization ON activities(organization_id, seq);

      CREATE TABLE votes (
        id TEXT PRIMARY KEY,
        activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        selection TEXT NOT NULL CHECK (selection IN ('VOTE_SELECTION_APPROVED', 'VOTE_SELECTION_REJECTED')),
        message TEXT NOT NULL,
        public_key TEXT NOT NULL,
        signature TEXT NOT NULL,
        scheme TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        credential_type TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (activity_id, user_id)
      );

      CREATE TABLE service_keys (
        purpose TEXT PRIMARY KEY,
        curve TEXT NOT NULL,
        public_key TEXT NOT NULL,
        private_key TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE auth_proxy_configs (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'auth records (authenticators, OAuth providers, session profiles, OTP), smart contract interfaces, TVC apps',
    sql: CREDENTIALS_SQL + SESSIONS_SQL + OTP_AUTH_SQL + CONTRACTS_SQL + TVC_SQL,
  },
  {
    version: 4,
    name: 'key material: wallets, wallet accounts, private keys, import targets, app proofs',
    sql: WALLETS_SQL + PRIVATE_KEYS_SQL + IMPORT_TARGETS_SQL + APP_PROOFS_SQL,
  },
  {
    version: 5,
    name: 'identity: organization features, sub-organization tombstones',
    sql: ORGANIZATION_FEATURES_SQL,
  },
  {
    version: 6,
    name: 'policies: the time expression (empty: always active)',
    sql: "ALTER TABLE policies ADD COLUMN time TEXT NOT NULL DEFAULT '';",
  },
  {
    version: 7,
    name: 'votes: a user may approve again once an approval window expired (no longer one vote per user)',
    // SQLite cannot drop a table constraint: the table is rebuilt, its rows copied in their order.
    sql: `
      CREATE TABLE votes_rebuilt (
        id TEXT PRIMARY KEY,
        activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        selection TEXT NOT NULL CHECK (selection IN ('VOTE_SELECTION_APPROVED', 'VOTE_SELECTION_REJECTED')),
        message TEXT NOT NULL,
        public_key TEXT NOT NULL,
        signature TEXT NOT NULL,
        scheme TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        credential_type TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      INSERT INTO votes_rebuilt SELECT id, activity_id, user_id, selection, message, public_key, signature, scheme,
                                       credential_id, credential_type, created_at
                                  FROM votes ORDER BY rowid;
      DROP TABLE votes;
      ALTER TABLE votes_rebuilt RENAME TO votes;
      CREATE INDEX votes_activity ON votes(activity_id, user_id);
    `,
  },
  {
    version: 8,
    name: 'import targets: a used target keeps the digest of the bundle that used it, not its sealed key',
    // Keys of targets used earlier are erased too; which bundle used them was not recorded, so a replay of one of
    // those bundles is refused as sealed to no usable target rather than as reused.
    sql: `
      ALTER TABLE import_targets ADD COLUMN used_bundle_digest TEXT;
      UPDATE import_targets SET sealed_secret = X'' WHERE used_at IS NOT NULL;
    `,
  },
  {
    version: 9,
    name: "policy evaluations: the policy engine's outcomes per policy, recorded at each vote that asked it",
    sql: `
      CREATE TABLE policy_evaluations (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
        vote_id TEXT NOT NULL,
        outcomes TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX policy_evaluations_activity ON policy_evaluations(activity_id, seq);
    `,
  },
  { version: 10, name: 'private key tags (memberships stay in private_keys.tags)', sql: PRIVATE_KEY_TAGS_SQL },
  { version: 11, name: 'invitations to join an organization', sql: INVITATIONS_SQL },
  { version: 12, name: 'IP allowlists of organizations and API keys', sql: IP_ALLOWLISTS_SQL },
  {
    version: 13,
    name: "IP allowlists: an API key's own list goes with the key",
    // A trigger rather than each deleting path: keys also go with their user (a cascade) and with session invalidation.
    sql: `
      DELETE FROM ip_allowlists WHERE public_key <> '' AND NOT EXISTS (
        SELECT 1 FROM api_keys WHERE api_keys.organization_id = ip_allowlists.organization_id AND api_keys.public_key = ip_allowlists.public_key
      );
      CREATE TRIGGER api_keys_drop_ip_allowlist AFTER DELETE ON api_keys BEGIN
        DELETE FROM ip_allowlists WHERE organization_id = OLD.organization_id AND public_key = OLD.public_key;
      END;
    `,
  },
  { version: 14, name: 'seeds: the seed file a database was created from', sql: SEEDS_SQL },
  { version: 15, name: 'sent transactions: what eth_send_transaction handed to a node', sql: SENT_TRANSACTIONS_SQL },
  { version: 16, name: 'seeds: the seed content, to say how another seed differs', sql: SEED_CONTENTS_SQL },
  { version: 17, name: 'webhook endpoints and the event types they receive', sql: WEBHOOK_ENDPOINTS_SQL },
  { version: 18, name: 'MFA policies of users, and the requirements their approvals raised', sql: MFA_POLICIES_SQL },
  { version: 19, name: 'secrets, sealed as private keys are; import targets also serve secrets', sql: SECRETS_SQL + IMPORT_TARGETS_FOR_SECRETS_SQL },
  { version: 20, name: 'stored credentials: OAuth 2.0 clients and fiat on-ramp keys', sql: OAUTH2_CREDENTIALS_SQL + FIAT_ON_RAMP_CREDENTIALS_SQL },
  {
    version: 21,
    name: 'activity records: no AUTOINCREMENT counter, no index on vote ids, policy evaluations kept with their votes',
    // Each B-tree an activity's transaction writes is a WAL frame at its COMMIT, and an index on random ids a random
    // page at each checkpoint. Activities keep their order by seq (a new row gets the largest seq plus one) without
    // sqlite_sequence; nothing looks a vote up by its id; and a policy evaluation, recorded with the vote that asked for
    // it (at most one a vote, in its transaction, at its time), is two columns of that vote rather than a table with
    // two indexes. Rows keep their seq and rowid, so every order is unchanged.
    rebuildsReferencedTables: true,
    sql: `
      CREATE TABLE activities_rebuilt (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        status TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        body TEXT NOT NULL,
        intent TEXT NOT NULL,
        result TEXT,
        failure TEXT,
        proposer_user_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (organization_id, fingerprint)
      );
      INSERT INTO activities_rebuilt SELECT seq, id, organization_id, type, status, fingerprint, body, intent, result,
                                            failure, proposer_user_id, created_at, updated_at
                                       FROM activities ORDER BY seq;
      DROP TABLE activities;
      ALTER TABLE activities_rebuilt RENAME TO activities;
      CREATE INDEX activities_organization ON activities(organization_id, seq);

      CREATE TABLE votes_rebuilt (
        id TEXT NOT NULL,
        activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        selection TEXT NOT NULL CHECK (selection IN ('VOTE_SELECTION_APPROVED', 'VOTE_SELECTION_REJECTED')),
        message TEXT NOT NULL,
        public_key TEXT NOT NULL,
        signature TEXT NOT NULL,
        scheme TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        credential_type TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        -- What the policy engine decided when this vote asked it (get_policy_evaluations); NULL if it asked nothing.
        policy_evaluation_id TEXT,
        policy_outcomes TEXT,
        CHECK ((policy_evaluation_id IS NULL) = (policy_outcomes IS NULL))
      );
      -- An evaluation that is not one vote's, in its activity and at its time, would be lost: the migration fails instead.
      CREATE TEMP TABLE evaluations_without_their_vote (
        count INTEGER CONSTRAINT every_policy_evaluation_is_one_votes CHECK (count = 0)
      );
      INSERT INTO evaluations_without_their_vote
           SELECT (SELECT count(*) FROM policy_evaluations e
                    WHERE NOT EXISTS (SELECT 1 FROM votes v
                                       WHERE v.id = e.vote_id AND v.activity_id = e.activity_id AND v.created_at = e.created_at))
                + (SELECT count(*) FROM (SELECT vote_id FROM policy_evaluations GROUP BY vote_id HAVING count(*) > 1));
      DROP TABLE evaluations_without_their_vote;
      INSERT INTO votes_rebuilt (rowid, id, activity_id, user_id, selection, message, public_key, signature, scheme,
                                 credential_id, credential_type, created_at, policy_evaluation_id, policy_outcomes)
           SELECT v.rowid, v.id, v.activity_id, v.user_id, v.selection, v.message, v.public_key, v.signature, v.scheme,
                  v.credential_id, v.credential_type, v.created_at, e.id, e.outcomes
             FROM votes v LEFT JOIN policy_evaluations e ON e.vote_id = v.id ORDER BY v.rowid;
      DROP TABLE votes;
      ALTER TABLE votes_rebuilt RENAME TO votes;
      CREATE INDEX votes_activity ON votes(activity_id, user_id);
      DROP TABLE policy_evaluations;
    `,
  },
];
