import { QkError } from '../../shared/errors';
import type { ActiveProfileHandlerDeps } from '../activities/activities.ipc';
import { activityView } from '../activities/activity-views';
import type { IpcHandlers } from '../ipc/register';
import type { Keychain } from '../keychain/keychain';
import type { Profiles } from '../profiles/profiles';
import { decryptBundleOffline } from './exporter';

export interface ExporterHandlerDeps extends ActiveProfileHandlerDeps {
  keychain: Keychain;
  profiles: Pick<Profiles, 'getActive'>;
}

export function exporterHandlers({ active, now, keychain, profiles }: ExporterHandlerDeps): Pick<IpcHandlers, 'exports.reveal' | 'exports.decryptBundle'> {
  return {
    'exports.reveal': async ({ subject, target, keyFormat }) => {
      const { exporter } = await active.services();
      if (subject.kind === 'completed-export') {
        if (target.kind !== 'encryption-key') {
          throw new QkError('REQUEST_INVALID', 'a completed export can only be opened with the stored encryption key it was sealed to', {
            field: 'target',
          });
        }
        const secret = await exporter.revealCompleted(subject.activityId, target.name, keyFormat);
        return { state: 'revealed', secret, activityId: subject.activityId };
      }
      const result = await exporter.reveal(subject, target, keyFormat);
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
      return decryptBundleOffline({
        bundle,
        key: { kind: 'encryption-key', name: encryptionKeyName },
        keychain,
        expected: { signerPublicKey: signer, organizationId },
        format: keyFormat ?? 'mnemonic',
      });
    },
  };
}
