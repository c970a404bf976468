/**
 * Imports of wallets and private keys (docs/formats.md#import-bundles): init_import_* gives an enclave-signed target,
 * which is verified against the profile's pinned signer, organization and the importing user before the secret is
 * encrypted to it; import_* then sends only the ciphertext. Plaintext bytes are wiped once encrypted.
 */
import type { z } from 'zod';
import type { Activity, address, addressFormat, curve, WalletAccountParams } from '../../shared/api';
import { encodeWalletImportPlaintext, encryptToImportBundle, parsePrivateKey, type PrivateKeyFormat } from '../../shared/crypto/bundles';
import { zeroize } from '../../shared/crypto/keys';
import { QkError } from '../../shared/errors';
import type { ApiClient } from '../client/api-client';

/** Formats a private key can be imported from; `mnemonic` is for wallets. */
export type ImportKeyFormat = 'mnemonic' | PrivateKeyFormat;

export type ImportResult<R> =
  | { state: 'imported'; result: R; activity: Activity }
  | { state: 'consensus-needed' | 'pending' | 'rejected'; activity: Activity; step: 'init' | 'import' };

export interface ImportTarget {
  /** The bundle returned by init_import_* (JSON text). */
  importBundle: string;
  signerPublicKey: string;
  organizationId: string;
  userId: string;
}

/**
 * Encrypts a secret to an import bundle: a mnemonic (checksum validated, optional passphrase) or a private key in
 * `format`. Returns the `encryptedBundle` JSON. Works offline.
 */
export async function encryptForImport(
  target: ImportTarget,
  secret: { format: ImportKeyFormat; text: string; passphrase?: string },
): Promise<string> {
  const plaintext =
    secret.format === 'mnemonic'
      ? encodeWalletImportPlaintext(normalizeMnemonic(secret.text), secret.passphrase)
      : parsePrivateKey(secret.text, secret.format);
  try {
    return await encryptToImportBundle({ ...target, importBundle: target.importBundle.trim(), plaintext });
  } finally {
    zeroize(plaintext);
  }
}

/** Words separated by single spaces (Japanese phrases keep their ideographic space). */
function normalizeMnemonic(text: string): string {
  const trimmed = text.trim();
  return trimmed.includes('\u3000') ? trimmed : trimmed.split(/\s+/).join(' ');
}

export interface ImporterOptions {
  client: ApiClient;
  enclaveSignerPublicKey: string;
}

export class Importer {
  private readonly client: ApiClient;
  private readonly signerPublicKey: string;

  constructor({ client, enclaveSignerPublicKey }: ImporterOptions) {
    this.client = client;
    this.signerPublicKey = enclaveSignerPublicKey;
  }

  async importWallet(input: {
    name: string;
    mnemonic: string;
    passphrase?: string | undefined;
    accounts: WalletAccountParams[];
  }): Promise<ImportResult<{ walletId: string; addresses: string[] }>> {
    // Checked before any activity is created, so a typo costs no init_import round trip.
    zeroize(encodeWalletImportPlaintext(normalizeMnemonic(input.mnemonic), input.passphrase));
    const userId = await this.userId();
    const init = await this.client.submit('init_import_wallet', { userId });
    if (init.state !== 'completed') return { state: init.state, activity: init.activity, step: 'init' };
    const encryptedBundle = await encryptForImport(this.target(init.result.importBundle, userId), {
      format: 'mnemonic',
      text: input.mnemonic,
      ...(input.passphrase === undefined ? {} : { passphrase: input.passphrase }),
    });
    const imported = await this.client.submit('import_wallet', { userId, walletName: input.name, encryptedBundle, accounts: input.accounts });
    if (imported.state !== 'completed') return { state: imported.state, activity: imported.activity, step: 'import' };
    return { state: 'imported', result: imported.result, activity: imported.activity };
  }

  async importPrivateKey(input: {
    name: string;
    privateKey: string;
    format: PrivateKeyFormat;
    curve: z.infer<typeof curve>;
    addressFormats: z.infer<typeof addressFormat>[];
  }): Promise<ImportResult<{ privateKeyId: string; addresses: z.infer<typeof address>[] }>> {
    zeroize(parsePrivateKey(input.privateKey, input.format));
    const userId = await this.userId();
    const init = await this.client.submit('init_import_private_key', { userId });
    if (init.state !== 'completed') return { state: init.state, activity: init.activity, step: 'init' };
    const encryptedBundle = await encryptForImport(this.target(init.result.importBundle, userId), { format: input.format, text: input.privateKey });
    const imported = await this.client.submit('import_private_key', {
      userId,
      privateKeyName: input.name,
      encryptedBundle,
      curve: input.curve,
      addressFormats: input.addressFormats,
    });
    if (imported.state !== 'completed') return { state: imported.state, activity: imported.activity, step: 'import' };
    return { state: 'imported', result: imported.result, activity: imported.activity };
  }

  private target(importBundle: string, userId: string): ImportTarget {
    return { importBundle, signerPublicKey: this.signerPublicKey, organizationId: this.client.organizationId, userId };
  }

  private async userId(): Promise<string> {
    const { userId } = await this.client.query('whoami', {});
    if (userId === '') throw new QkError('RESPONSE_INVALID', 'whoami answered no user id; imports are made on behalf of a user');
    return userId;
  }
}
