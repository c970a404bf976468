/**
 * Token keys for the Keys screen and a profile's switch to one (channels in keys.ipc.ts and profiles.ipc.ts). The
 * window chooses a module among those main offers, a token by label and a key by label; main opens the token (asking
 * the PIN on its own surface), reads the public key itself and pins that, never one the window sends.
 */
import { QkError } from '../../shared/errors';
import type { HandlerInput } from '../../shared/ipc/contract';
import type { Profiles } from '../profiles/profiles';
import { assertOffered, offeredModules, type Pkcs11ModuleChoice } from './known-modules';
import type { Pkcs11Tokens, TokenKeyInfo } from './pkcs11-tokens';
import { describeTokenKey, validateTokenKeyRef, validLabel } from './token-key';

export interface TokenKeysDeps {
  pkcs11: Pick<Pkcs11Tokens, 'listTokens' | 'listKeys' | 'generateKey' | 'findKey'>;
  profiles: Pick<Profiles, 'list'>;
  /** Whether a module file exists (the file system's by default). */
  moduleExists?: (path: string) => boolean;
}

/** A token key as the Keys screen lists it: with the profiles that sign with it. */
export type ListedTokenKey = Omit<TokenKeyInfo, 'keyId'> & { keyId?: string; usedByProfiles: string[] };

/**
 * What the Keys screen and a profile's switch to a token key may do with tokens, each module checked against those
 * main offers first (loading a module runs its code in main).
 */
export class TokenKeys {
  readonly #pkcs11: TokenKeysDeps['pkcs11'];
  readonly #profiles: TokenKeysDeps['profiles'];
  readonly #moduleExists: TokenKeysDeps['moduleExists'];

  constructor({ pkcs11, profiles, moduleExists }: TokenKeysDeps) {
    this.#pkcs11 = pkcs11;
    this.#profiles = profiles;
    this.#moduleExists = moduleExists;
  }

  /** The modules offered: the usual places of SoftHSM2, OpenSC and ykcs11 found here, and those profiles use. */
  async modules(): Promise<Pkcs11ModuleChoice[]> {
    const modules = (await this.#profiles.list()).flatMap((profile) => (profile.tokenKey === undefined ? [] : [profile.tokenKey.module]));
    return offeredModules(modules, this.#moduleExists);
  }

  async listTokens(module: string) {
    return this.#pkcs11.listTokens(await this.#offered(module));
  }

  async listKeys(module: string, tokenLabel: string): Promise<ListedTokenKey[]> {
    const token = { module: await this.#offered(module), tokenLabel: validLabel(tokenLabel, 'token', 'tokenLabel') };
    return this.#withUse(await this.#pkcs11.listKeys(token));
  }

  async generate(input: HandlerInput<'keys.generateTokenKey'>): Promise<ListedTokenKey> {
    const ref = validateTokenKeyRef({ ...input, module: await this.#offered(input.module) }, 'token key');
    const generated = await this.#pkcs11.generateKey(ref);
    // Listed as the token now describes it (kept on it or not), not as it was asked for.
    const [listed] = await this.#withUse((await this.#pkcs11.listKeys(ref)).filter((key) => key.keyId === generated.keyId));
    if (listed === undefined) throw new QkError('KEY_NOT_FOUND', `${describeTokenKey(generated)} was generated but the token does not list it`);
    return listed;
  }

  /** The key as the token itself answers it, after the PIN: what a profile pins, never a public key the window sends. */
  async find(key: HandlerInput<'profiles.useTokenKey'>['key']) {
    return this.#pkcs11.findKey(validateTokenKeyRef({ ...key, module: await this.#offered(key.module) }, 'key'));
  }

  async #offered(module: string): Promise<string> {
    assertOffered(module, await this.modules());
    return module;
  }

  async #withUse(keys: TokenKeyInfo[]): Promise<ListedTokenKey[]> {
    const all = await this.#profiles.list();
    return keys.map(({ keyId, ...key }) => ({
      ...key,
      ...(keyId === undefined ? {} : { keyId }),
      usedByProfiles: all.filter((profile) => profile.tokenKey?.publicKey === key.publicKey).map((profile) => profile.name),
    }));
  }
}
