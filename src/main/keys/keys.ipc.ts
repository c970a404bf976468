import type { IpcHandlers } from '../ipc/register';
import type { Keychain } from '../keychain/keychain';

type KeyChannel =
  | 'keys.generateApiKey'
  | 'keys.importApiKey'
  | 'keys.importTkcliApiKey'
  | 'keys.listApiKeys'
  | 'keys.renameApiKey'
  | 'keys.deleteApiKey'
  | 'keys.generateEncryptionKey'
  | 'keys.importEncryptionKey'
  | 'keys.listEncryptionKeys'
  | 'keys.deleteEncryptionKey';

export function keysHandlers({ keychain }: { keychain: Keychain }): Pick<IpcHandlers, KeyChannel> {
  return {
    'keys.generateApiKey': (input) => keychain.generateApiKey(input),
    'keys.importApiKey': (input) => keychain.importApiKey(input),
    'keys.importTkcliApiKey': (input) => keychain.importTkcliApiKey(input),
    'keys.listApiKeys': () => keychain.listApiKeys(),
    'keys.renameApiKey': ({ name, newName }) => keychain.renameApiKey(name, newName),
    'keys.deleteApiKey': async ({ name }) => {
      await keychain.deleteApiKey(name);
      return null;
    },
    'keys.generateEncryptionKey': (input) => keychain.generateEncryptionKey(input),
    'keys.importEncryptionKey': (input) => keychain.importEncryptionKey(input),
    'keys.listEncryptionKeys': () => keychain.listEncryptionKeys(),
    'keys.deleteEncryptionKey': async ({ name }) => {
      await keychain.deleteEncryptionKey(name);
      return null;
    },
  };
}
