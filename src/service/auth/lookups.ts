/**
 * The rows every stamped request reads before anything else (organization, API keys by public key, user),
 * remembered while the database is unchanged. `current()` compares the process-wide write counter of the store's
 * connections once per request (no SQL), so a write anywhere (a new key, a deleted user, an expired session
 * swept) is seen by the next request exactly as without the cache. Inside an open transaction nothing is
 * remembered: the transaction's own writes could still roll back.
 */
import type { Repositories } from '../store';
import { Connection } from '../store/connection';
import type { ApiKeyRecord } from '../store/api-keys';
import type { OrganizationRecord } from '../store/organizations';
import type { UserRecord } from '../store/users';

/** Per kind of row; beyond this the kind starts over (keys come from verified stamps, but anyone can make keys). */
const MAX_ENTRIES_PER_KIND = 4096;

class Memo<T> {
  private readonly entries = new Map<string, T>();

  get(key: string, load: () => T, remember: boolean): T {
    if (!remember) return load();
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const value = load();
    if (this.entries.size >= MAX_ENTRIES_PER_KIND) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Shared records are frozen: a caller that tried to modify one would otherwise change it for every later request. */
function frozen<T extends object>(record: T | undefined): T | undefined {
  return record === undefined ? undefined : Object.freeze(record);
}

export class AuthLookups {
  private static readonly byRepositories = new WeakMap<Repositories, AuthLookups>();

  private changeCounter: number | undefined;
  private remember = false;
  private readonly organizations = new Memo<OrganizationRecord | undefined>();
  private readonly apiKeys = new Memo<readonly ApiKeyRecord[]>();
  private readonly users = new Memo<UserRecord | undefined>();

  private constructor(private readonly repositories: Repositories) {}

  /** The lookups over `repositories`' connection, brought up to date with the database. */
  static current(repositories: Repositories): AuthLookups {
    let lookups = AuthLookups.byRepositories.get(repositories);
    if (lookups === undefined) {
      lookups = new AuthLookups(repositories);
      AuthLookups.byRepositories.set(repositories, lookups);
    }
    lookups.refresh();
    return lookups;
  }

  private refresh(): void {
    const connection = this.repositories.connection;
    this.remember = !connection.db.isTransaction;
    if (!this.remember) return;
    const counter = Connection.changeCounter();
    if (counter === this.changeCounter) return;
    this.changeCounter = counter;
    this.organizations.clear();
    this.apiKeys.clear();
    this.users.clear();
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
}
