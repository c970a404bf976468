/**
 * The rows every stamped request reads before anything else (organization, API keys by public key, user, the IP
 * allowlists that apply), remembered while their tables are unchanged. `current()` compares the process-wide change
 * counts of each kind's tables (no SQL), so a write to one of them (a new key, a deleted user, an expired session
 * swept) is seen by the next request exactly as without the cache, while writes elsewhere (an activity and its votes)
 * leave it whole. Inside an open transaction nothing is remembered: the transaction's own writes could still roll back.
 */
import type { Repositories } from '../store';
import { TableMemo } from '../store/table-memo';
import type { ApiKeyRecord } from '../store/api-keys';
import type { IpAllowlistRecord } from '../store/ip-allowlists';
import type { OrganizationRecord } from '../store/organizations';
import type { UserRecord } from '../store/users';

/** Shared records are frozen: a caller that tried to modify one would otherwise change it for every later request. */
function frozen<T extends object>(record: T | undefined): T | undefined {
  return record === undefined ? undefined : Object.freeze(record);
}

export class AuthLookups {
  private static readonly byRepositories = new WeakMap<Repositories, AuthLookups>();

  private remember = false;
  private readonly organizations = new TableMemo<OrganizationRecord | undefined>(['organizations']);
  private readonly apiKeys = new TableMemo<readonly ApiKeyRecord[]>(['api_keys']);
  private readonly users = new TableMemo<UserRecord | undefined>(['users']);
  private readonly ipAllowlists = new TableMemo<IpAllowlistRecord | undefined>(['ip_allowlists']);

  private constructor(private readonly repositories: Repositories) {}

  /** The lookups over `repositories`' connection, brought up to date with the database. */
  static current(repositories: Repositories): AuthLookups {
    let lookups = AuthLookups.byRepositories.get(repositories);
    if (lookups === undefined) {
      lookups = new AuthLookups(repositories);
      AuthLookups.byRepositories.set(repositories, lookups);
    }
    lookups.remember = !repositories.connection.db.isTransaction;
    return lookups;
  }

  organization(id: string): OrganizationRecord | undefined {
    return this.organizations.get(id, () => frozen(this.repositories.organizations.get(id)), this.remember);
  }

  /** Every API key holding this public key, in any organization (see ApiKeyRepository.findByPublicKey). */
  apiKeysByPublicKey(publicKey: string): readonly ApiKeyRecord[] {
    return this.apiKeys.get(
      publicKey.toLowerCase(),
      () => Object.freeze(this.repositories.apiKeys.findByPublicKey(publicKey).map((key) => Object.freeze(key))),
      this.remember,
    );
  }

  user(id: string): UserRecord | undefined {
    return this.users.get(id, () => frozen(this.repositories.users.get(id)), this.remember);
  }

  /** The organization's own list (`publicKey` undefined) or an API key's (IpAllowlistRepository.get). */
  ipAllowlist(organizationId: string, publicKey: string | undefined): IpAllowlistRecord | undefined {
    return this.ipAllowlists.get(
      JSON.stringify([organizationId, publicKey ?? null]),
      () => frozen(this.repositories.ipAllowlists.get(organizationId, publicKey)),
      this.remember,
    );
  }
}
