import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { QkError } from '../../shared/errors';
import { EXPORT_FILE_KIND, exportedKindOf, type ExportFile } from '../../shared/offline/export-file';
import type { ActiveProfileHandlerDeps } from '../activities/activities.ipc';
import { activityView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import type { Journal } from '../journal/journal';
import { localRecord } from '../journal/local-entry';
import type { Keychain } from '../keychain/keychain';
import type { Profiles } from '../profiles/profiles';
import { decryptBundleOffline, decryptedRecord } from './exporter';

export interface ExporterHandlerDeps extends ActiveProfileHandlerDeps {
  keychain: Keychain;
  profiles: Pick<Profiles, 'getActive'>;
  /** Where saved export files go. The renderer names files, never paths; people copy them to the offline desktop. */
  exportsDir: string;
  journal: Pick<Journal, 'record'>;
}

export function exporterHandlers({
  active,
  now,
  keychain,
  profiles,
  exportsDir,
  journal,
}: ExporterHandlerDeps): Pick<IpcHandlers, 'exports.reveal' | 'exports.decryptBundle' | 'exports.saveBundle'> {
  return {
    'exports.saveBundle': async ({ activityId, file: name }) => {
      const { client } = await active.services();
      const { activity } = await client.query('get_activity', { activityId });
      const exported = exportedKindOf(activity.type);
      if (exported === undefined) {
        throw new QkError('REQUEST_INVALID', `activity ${activityId} is not an export (it is ${activity.type}); choose an approved export`, { activityId });
      }
      if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') {
        throw new QkError('FAILED_PRECONDITION', `the export has no bundle yet: it is ${activity.status}; save it once it is approved`, { activityId });
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
      const { exporter, profile } = await active.services();
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
        if (target.kind !== 'encryption-key') {
          throw new QkError('REQUEST_INVALID', 'a completed export can only be opened with the stored encryption key it was sealed to', {
            field: 'target',
          });
        }
        const secret = await exporter.revealCompleted(subject.activityId, target.name, keyFormat);
        await revealed(subject.activityId, secret.kind);
        return { state: 'revealed', secret, activityId: subject.activityId };
      }
      const result = await exporter.reveal(subject, target, keyFormat);
      if (result.state === 'revealed') await revealed(result.activity.id, result.secret.kind);
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
