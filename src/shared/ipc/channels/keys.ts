/** The `keys.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import {
  apiKeyCurve,
  channel,
  keyName,
  noInput,
  nothing,
  pkcs11Label,
  pkcs11Module,
  privateKeyHex,
  publicKeyHex,
  tokenKeyRef,
  tokenRef,
} from '../schemas';

const filePath = z.string().min(1).max(4096);

const isoTimestamp = z.iso.datetime({ offset: true });

const apiKeyInfo = z.strictObject({
  name: keyName,
  id: z.string().max(128),
  curve: apiKeyCurve,
  publicKey: publicKeyHex,
  createdAt: isoTimestamp,
  /** The index lists the key but the OS keychain no longer holds its secret. */
  missing: z.boolean(),
  /** Names of the profiles that sign with this key. */
  usedByProfiles: z.array(z.string().max(64)),
});

const encryptionKeyInfo = z.strictObject({
  name: keyName,
  id: z.string().max(128),
  /** Uncompressed P-256 point, 130 hex characters: the export target key. */
  publicKey: publicKeyHex,
  createdAt: isoTimestamp,
  missing: z.boolean(),
});

const tokenInfo = tokenRef.extend({ serial: z.string().max(64), manufacturer: z.string().max(64), model: z.string().max(64) });

const tokenKeyInfo = tokenKeyRef.extend({
  publicKey: z.string().regex(/^0[23][0-9a-f]{64}$/),
  /** The token holds the private half too. */
  canSign: z.boolean(),
  /** The private half is sensitive and not extractable: it never leaves the token. */
  keptOnToken: z.boolean(),
  /** Names of the profiles that sign with this key. */
  usedByProfiles: z.array(z.string().max(64)),
});

export const keysChannels = {
  generateApiKey: channel(z.strictObject({ name: keyName, curve: apiKeyCurve.optional() }), apiKeyInfo),
  importApiKey: channel(
    z.strictObject({ name: keyName, curve: apiKeyCurve, privateKey: privateKeyHex, publicKey: publicKeyHex.optional() }),
    apiKeyInfo,
  ),
  importTkcliApiKey: channel(z.strictObject({ name: keyName, privateKeyFile: filePath, publicKeyFile: filePath.optional() }), apiKeyInfo),
  listApiKeys: channel(noInput, z.array(apiKeyInfo)),
  renameApiKey: channel(z.strictObject({ name: keyName, newName: keyName }), apiKeyInfo),
  deleteApiKey: channel(z.strictObject({ name: keyName }), nothing),
  generateEncryptionKey: channel(z.strictObject({ name: keyName }), encryptionKeyInfo),
  importEncryptionKey: channel(z.strictObject({ name: keyName, privateKey: privateKeyHex }), encryptionKeyInfo),
  listEncryptionKeys: channel(noInput, z.array(encryptionKeyInfo)),
  pkcs11Modules: channel(noInput, z.array(z.strictObject({ path: pkcs11Module, name: z.string().max(64) }))),
  listTokens: channel(z.strictObject({ module: pkcs11Module }), z.array(tokenInfo)),
  listTokenKeys: channel(tokenRef, z.array(tokenKeyInfo)),
  generateTokenKey: channel(tokenRef.extend({ keyLabel: pkcs11Label }), tokenKeyInfo),
  deleteEncryptionKey: channel(z.strictObject({ name: keyName }), nothing),
} as const;
