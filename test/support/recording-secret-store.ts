import type { SecretStore } from '../../src/main/keychain/secret-store';

/** Wraps a SecretStore and remembers every secret handed to the OS keychain, so tests can prove none reached disk. */
export class RecordingStore implements SecretStore {
  readonly secrets: Uint8Array[] = [];
  constructor(private readonly inner: SecretStore) {}
  get(account: string) {
    return this.inner.get(account);
  }
  async set(account: string, secret: Uint8Array) {
    this.secrets.push(Uint8Array.from(secret));
    await this.inner.set(account, secret);
  }
  delete(account: string) {
    return this.inner.delete(account);
  }
}
