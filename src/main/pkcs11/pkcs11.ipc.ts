/**
 * The Keys screen's token channels and a profile's switch to a token key. The window chooses a module among those main
 * offers, a token by label and a key by label; main opens the token (asking the PIN on its own surface), reads the
 * public key itself and pins that, never one the window sends.
 */
import { QkError } from '../../shared/errors';
import type { Confirm } from '../confirmation/confirmation';
import type { IpcHandlers } from '../ipc/register';
import type { Journal } from '../journal/journal';
import { profileRecord } from '../journal/local-entry';
import { confirmingCheck } from '../profiles/confirmation';
import type { Profile, Profiles } from '../profiles/profiles';
import { assertOffered, offeredModules } from './known-modules';
import type { Pkcs11Tokens, TokenKeyInfo } from './pkcs11-tokens';
import { describeTokenKey, validateTokenKeyRef, validLabel } from './token-key';

type Pkcs11Channel = 'keys.pkcs11Modules' | 'keys.listTokens' | 'keys.listTokenKeys' | 'keys.generateTokenKey' | 'profiles.useTokenKey';

export interface Pkcs11HandlerDeps {
  pkcs11: Pick<Pkcs11Tokens, 'listTokens' | 'listKeys' | 'generateKey' | 'findKey'>;
  profiles: Profiles;
  confirm: Confirm;
  journal: Pick<Journal, 'record'>;
  /** Whether a module file exists (the file system's by default). */
  moduleExists?: (path: string) => boolean;
}

export function pkcs11Handlers({ pkcs11, profiles, confirm, journal, moduleExists }: Pkcs11HandlerDeps): Pick<IpcHandlers, Pkcs11Channel> {
  const confirmedByUser = confirmingCheck(confirm);
  const offered = async () => {
    const modules = (await profiles.list()).flatMap((profile) => (profile.tokenKey === undefined ? [] : [profile.tokenKey.module]));
    return offeredModules(modules, moduleExists);
  };
  const checkedModule = async (module: string) => {
    assertOffered(module, await offered());
    return module;
  };
  const withUse = async (keys: TokenKeyInfo[]) => {
    const all = await profiles.list();
    return keys.map(({ keyId, ...key }) => ({
      ...key,
      ...(keyId === undefined ? {} : { keyId }),
      usedByProfiles: all.filter((profile) => usesKey(profile, key.publicKey)).map((profile) => profile.name),
    }));
  };
  return {
    'keys.pkcs11Modules': () => offered(),
    'keys.listTokens': async ({ module }) => pkcs11.listTokens(await checkedModule(module)),
    'keys.listTokenKeys': async ({ module, tokenLabel }) => {
      const token = { module: await checkedModule(module), tokenLabel: validLabel(tokenLabel, 'token', 'tokenLabel') };
      return withUse(await pkcs11.listKeys(token));
    },
    'keys.generateTokenKey': async (input) => {
      const ref = validateTokenKeyRef({ ...input, module: await checkedModule(input.module) }, 'token key');
      const generated = await pkcs11.generateKey(ref);
      // Listed as the token now describes it (kept on it or not), not as it was asked for.
      const [listed] = await withUse((await pkcs11.listKeys(ref)).filter((key) => key.keyId === generated.keyId));
      if (listed === undefined) throw new QkError('KEY_NOT_FOUND', `${describeTokenKey(generated)} was generated but the token does not list it`);
      return listed;
    },
    'profiles.useTokenKey': async ({ id, key }) => {
      const ref = validateTokenKeyRef({ ...key, module: await checkedModule(key.module) }, 'key');
      // The public key pinned is the token's own answer, after the PIN; main's confirmation then shows it.
      const tokenKey = await pkcs11.findKey(ref);
      const updated = await profiles.update(id, { tokenKey }, confirmedByUser);
      await journal.record(profileRecord('profile.updated', updated, ['tokenKey']));
      return updated;
    },
  };
}

function usesKey(profile: Profile, publicKey: string): boolean {
  return profile.tokenKey?.publicKey === publicKey;
}
