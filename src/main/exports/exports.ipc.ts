import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { activityStatusInWords, activityTypeInWords } from '../../shared/describe';
import { QkError } from '../../shared/errors';
import { EXPORT_FILE_KIND, exportedKindOf, type ExportFile } from '../../shared/offline/export-file';
import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { activityView } from '../activities/activity-views';
import type { ApiClient } from '../client/api-client';
import type { Confirm } from '../confirmation/confirmation';
import type { IpcHandlers } from '../ipc/register';
import type { Journal } from '../journal/journal';
import { localRecord } from '../journal/local-entry';
import type { Keychain } from '../keychain/keychain';
import type { Profiles } from '../profiles/profiles';
import type { ExportRequests } from './export-requests';
import { decryptBundleOffline, decryptedRecord, type ExportSubject } from './exporter';
import { withdrawExport } from './withdrawal';

export interface ExportsHandlerDeps extends ActiveProfileHandlerDeps {
  keychain: Keychain;
  profiles: Pick<Profiles, 'getActive'>;
  /** Where saved export files go. The renderer names files, never paths; people copy them to the offline desktop. */
  exportsDir: string;
  journal: Pick<Journal, 'record'>;
  exportRequests: ExportRequests;
  /** Main's confirmation surface, for a withdrawal that stamps nothing (a stamp passes the active profile's check). */
  confirm: Confirm;
}

type ExportChannel = 'exports.reveal' | 'exports.decryptBundle' | 'exports.saveBundle' | 'exports.requests' | 'exports.withdraw';

export function exportsHandlers({
  active,
  now,
  keychain,
  profiles,
  exportsDir,
  journal,
  exportRequests,
  confirm,
}: ExportsHandlerDeps): Pick<IpcHandlers, ExportChannel> {
  return {
    'exports.requests': async () => {
      const { client, profile } = await active.services();
      // Read each waiting one first: an export approved, rejected or expired while the app was closed settles here.
      for (const request of await exportRequests.list(profile.id)) {
        if (request.approvedAtMs !== undefined) continue;
        const { activity } = await client.query('get_activity', { activityId: request.activityId });
        await exportRequests.follow(activity, now());
      }
      return (await exportRequests.list(profile.id)).map(({ activityId, what, sealedTo, requestedAtMs, approvedAtMs }) => ({
        activityId,
        what,
        sealedTo,
        requestedAtMs,
        approved: approvedAtMs !== undefined,
      }));
    },
    'exports.withdraw': async ({ activityId }) =>
      withdrawExport({ services: await active.services(), exportRequests, confirm, journal, nowMs: now() }, activityId),
    'exports.saveBundle': async ({ activityId, file: name }) => {
      const { client } = await active.services();
      const { activity } = await client.query('get_activity', { activityId });
      const exported = exportedKindOf(activity.type);
      if (exported === undefined) {
        throw new QkError(
          'REQUEST_INVALID',
          `the activity is not an export but ${activityTypeInWords(activity.type).toLowerCase()} (${activityId}); choose an approved export`,
          { activityId },
        );
      }
      if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') {
        throw new QkError(
          'FAILED_PRECONDITION',
          `the export has no bundle yet: it is ${activityStatusInWords(activity.status).toLowerCase()}; save it once it is approved`,
          { activityId },
        );
      }
      const result = Object.values(activity.result)[0] as { exportBundle?: unknown } | undefined;
      const intent = Object.values(activity.intent)[0] as { targetPublicKey?: unknown } | undefined;
      if (typeof result?.exportBundle !== 'string' || typeof intent?.targetPublicKey !== 'string') {
        throw new QkError('RESPONSE_INVALID', `the service answered export ${activityId} without its bundle or target key`, { activityId });
      }
      const contents: ExportFile = {
        kind: EXPORT_FILE_KIND,
        version: 1,
        activityId,
        organizationId: activity.organizationId,
        exported,
        targetPublicKey: intent.targetPublicKey,
        exportBundle: result.exportBundle,
      };
      await mkdir(exportsDir, { recursive: true, mode: 0o700 });
      const file = join(exportsDir, name);
      try {
        await writeFile(file, `${JSON.stringify(contents, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
      } catch (error) {
        throw new QkError('FILE_ERROR', `cannot write ${name}: ${(error as Error).message}; choose another file name`, { path: file });
      }
      return { file, exportsDir };
    },
    'exports.reveal': async ({ subject, target, keyFormat }) => {
      const { exporter, profile, client } = await active.services();
      /** Journaled before the secret is answered: what was opened and how, never the secret. */
      const revealed = (activityId: string, kind: string) =>
        journal.record(
          localRecord(
            'export.revealed',
            {
              title: 'Export revealed on screen',
              summary: `the ${kind} of export ${activityId}, opened with ${target.kind === 'encryption-key' ? `encryption key ${target.name}` : 'a one-time key'}`,
              facts: { Activity: activityId, Shown: kind, Format: keyFormat ?? (kind === 'mnemonic' ? 'mnemonic' : 'hexadecimal') },
              verdict: 'revealed',
            },
            { profile, activityId },
          ),
        );
      if (subject.kind === 'completed-export') {
        const secret = await exporter.revealCompleted(subject.activityId, target, keyFormat);
        await revealed(subject.activityId, secret.kind);
        // Opened: a held one-time key has done its work, and the requester has what was asked for.
        await exportRequests.forget(subject.activityId, 'opened');
        return { state: 'revealed', secret, activityId: subject.activityId };
      }
      const result = await exporter.reveal(subject, target, keyFormat);
      if (result.state === 'revealed') await revealed(result.activity.id, result.secret.kind);
      if (result.state === 'consensus-needed' || result.state === 'pending') {
        await exportRequests.add({
          activityId: result.activity.id,
          profileId: profile.id,
          organizationId: result.activity.organizationId,
          what: await subjectInWords(client, subject),
          sealedTo: target.kind === 'ephemeral' ? { kind: 'one-time' } : target,
          requestedAtMs: now(),
        });
      }
      return result.state === 'revealed'
        ? { state: 'revealed', secret: result.secret, activityId: result.activity.id }
        : { state: result.state, activity: activityView(result.activity, now()) };
    },
    'exports.decryptBundle': async ({ bundle, encryptionKeyName, organizationId, signerPublicKey, keyFormat }) => {
      const signer = signerPublicKey ?? (await profiles.getActive())?.enclaveSignerPublicKey;
      if (signer === undefined) {
        throw new QkError('REQUEST_INVALID', 'no profile is active to take the enclave signer key from; give signerPublicKey', {
          field: 'signerPublicKey',
        });
      }
      const secret = await decryptBundleOffline({
        bundle,
        key: { kind: 'encryption-key', name: encryptionKeyName },
        keychain,
        expected: { signerPublicKey: signer, organizationId },
        format: keyFormat ?? 'mnemonic',
      });
      await journal.record(decryptedRecord({ kind: secret.kind, organizationId, encryptionKey: encryptionKeyName, signer }));
      return secret;
    },
  };
}

/** "wallet Treasury", as the requester knows it, for the list of exports waiting for votes. */
async function subjectInWords(client: ApiClient, subject: ExportSubject): Promise<string> {
  switch (subject.kind) {
    case 'wallet':
      return `wallet ${(await client.query('get_wallet', { walletId: subject.walletId })).wallet.walletName}`;
    case 'private-key':
      return `private key ${(await client.query('get_private_key', { privateKeyId: subject.privateKeyId })).privateKey.privateKeyName}`;
    case 'wallet-account':
      return `wallet account ${subject.address}`;
  }
}
