import type { SecretStore } from '../../src/main/keychain/secret-store';

/** A secret store in memory, for tests and benches whose subject is not the OS keychain. */
export class MemoryStore implements SecretStore {
  readonly secrets = new Map<string, Uint8Array>();
  async get(account: string) {
    const secret = this.secrets.get(account);
    return secret === undefined ? null : Uint8Array.from(secret);
  }
  async set(account: string, secret: Uint8Array) {
    this.secrets.set(account, Uint8Array.from(secret));
  }
  async delete(account: string) {
    return this.secrets.delete(account);
  }
}
