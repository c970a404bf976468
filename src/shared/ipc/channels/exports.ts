/** The `exports.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { mnemonicLanguage } from '../../api/enums';
import { activityView, channel, epochMs, id, keyName, noInput, privateKeyFormat, publicKeyHex, stampedFileName } from '../schemas';

/** What an export reveals. PLAINTEXT: the mnemonic, passphrase or private key itself. */
const revealedSecret = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('mnemonic'),
    mnemonic: z.string(),
    passphrase: z.string().optional(),
    language: mnemonicLanguage,
  }),
  z.strictObject({ kind: z.literal('private-key'), format: privateKeyFormat, privateKey: z.string() }),
]);

const exportSubject = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('wallet'), walletId: id, language: mnemonicLanguage.optional() }),
  z.strictObject({ kind: z.literal('private-key'), privateKeyId: id }),
  z.strictObject({ kind: z.literal('wallet-account'), address: z.string().min(1).max(256) }),
  /**
   * An export that waited for votes and has since completed: opened with the stored encryption key it was sealed to,
   * or (`ephemeral` target) with the one-time key this desktop holds for it.
   */
  z.strictObject({ kind: z.literal('completed-export'), activityId: id }),
]);

const exportTarget = z.discriminatedUnion('kind', [
  /** A one-time key made for this export: wiped right after, or held in the keychain while it waits for votes. */
  z.strictObject({ kind: z.literal('ephemeral') }),
  z.strictObject({ kind: z.literal('encryption-key'), name: keyName }),
]);

/** An export bundle (JSON text, about 1 kB); the bound leaves room for whitespace, not abuse. */
const exportBundle = z.string().min(1).max(16_384);

export const exportsChannels = {
  /**
   * PLAINTEXT OUTPUT. Exports `subject` sealed to `target`, verifies the bundle against the active profile's pinned
   * enclave signer and organization, and answers the decrypted secret (wallets as their mnemonic, keys in
   * `keyFormat`, default hexadecimal). An export waiting for votes answers its state (a one-time key is then held in
   * the keychain for it) and is listed by `exports.requests`; once approved, reveal it with
   * `{kind: 'completed-export', activityId}` and the same target.
   */
  reveal: channel(
    z.strictObject({ subject: exportSubject, target: exportTarget, keyFormat: privateKeyFormat.optional() }),
    z.discriminatedUnion('state', [
      z.strictObject({ state: z.literal('revealed'), secret: revealedSecret, activityId: z.string() }),
      z.strictObject({ state: z.enum(['consensus-needed', 'pending', 'rejected']), activity: activityView }),
    ]),
  ),
  /**
   * The exports the active profile asked for from this desktop that had to wait for votes, oldest first: what, what
   * it is sealed to, and whether it is approved (then `exports.reveal` opens it). Ended ones are dropped.
   */
  requests: channel(
    noInput,
    z.array(
      z.strictObject({
        activityId: z.string(),
        what: z.string(),
        sealedTo: z.discriminatedUnion('kind', [
          z.strictObject({ kind: z.literal('one-time') }),
          z.strictObject({ kind: z.literal('encryption-key'), name: z.string() }),
        ]),
        requestedAtMs: epochMs,
        approved: z.boolean(),
      }),
    ),
  ),
  /**
   * Withdraws an export the active profile asked for from this desktop that still waits for votes. Main decides how:
   * when this desktop's user may still vote on it, it rejects the export (a stamp, confirmed on main's surface like
   * every vote); otherwise it asks the person on main's surface too, and the activity stays open on the service. Either
   * way the request is dropped and its held one-time key deleted, so a bundle it yields can never be opened here.
   * `rejected` says which it was; `summary` is main's words for what happened.
   */
  withdraw: channel(z.strictObject({ activityId: id }), z.strictObject({ activityId: z.string(), rejected: z.boolean(), summary: z.string() })),
  /**
   * PLAINTEXT OUTPUT. Offline: verifies `bundle` was signed by `signerPublicKey` (default: the active profile's pinned
   * enclave signer) for `organizationId`, opens it with the stored encryption key, and decodes it: as a mnemonic, or
   * as a private key in `keyFormat` when given.
   */
  decryptBundle: channel(
    z.strictObject({
      bundle: exportBundle,
      encryptionKeyName: keyName,
      organizationId: z.string().min(1).max(64),
      signerPublicKey: publicKeyHex.optional(),
      keyFormat: privateKeyFormat.optional(),
    }),
    revealedSecret,
  ),
  /**
   * Writes a completed export's signed bundle, with the organization, target key and kind the offline Decrypt screen
   * preselects from, to `file` in the exports directory kept by main (never overwriting). Nothing secret: the bundle
   * stays sealed to its target key.
   */
  saveBundle: channel(z.strictObject({ activityId: id, file: stampedFileName }), z.strictObject({ file: z.string(), exportsDir: z.string() })),
} as const;
