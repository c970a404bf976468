import type { IpcHandlers } from '../ipc/register';
import type { Keychain } from '../keychain/keychain';
import type { TokenKeys } from '../pkcs11/token-keys';

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
  | 'keys.deleteEncryptionKey'
  | 'keys.pkcs11Modules'
  | 'keys.listTokens'
  | 'keys.listTokenKeys'
  | 'keys.generateTokenKey';

export function keysHandlers({ keychain, tokenKeys }: { keychain: Keychain; tokenKeys: TokenKeys }): Pick<IpcHandlers, KeyChannel> {
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
    'keys.pkcs11Modules': () => tokenKeys.modules(),
    'keys.listTokens': ({ module }) => tokenKeys.listTokens(module),
    'keys.listTokenKeys': ({ module, tokenLabel }) => tokenKeys.listKeys(module, tokenLabel),
    'keys.generateTokenKey': (input) => tokenKeys.generate(input),
  };
}
