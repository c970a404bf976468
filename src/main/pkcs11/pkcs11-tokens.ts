/**
 * API keys on PKCS#11 tokens (a YubiKey through ykcs11, a smart card through OpenSC, SoftHSM2 in tests). The private
 * key is generated on the token, marked sensitive and not extractable, and signs there: main hashes the body and the
 * token computes the ECDSA signature. One logged-in session per token, opened with a PIN asked on main's surface the
 * first time the token is needed and not kept after login; `close()` (on lock and quit) logs out and closes them all.
 * pkcs11js is a native module loaded only once a token is used, so the app runs without it when no token is set up.
 */
import { randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type * as Pkcs11Module from 'pkcs11js';
import { bytesToHex, hexToBytes } from '../../shared/crypto/encoding';
import { compressP256 } from '../../shared/crypto/keys';
import { fingerprintOf, type StampSigner } from '../../shared/crypto/stamp';
import { QkError } from '../../shared/errors';
import { describeTokenKey, type TokenKey, type TokenKeyRef } from './token-key';

type Pkcs11Library = typeof Pkcs11Module;
type Handle = Pkcs11Module.Handle;

/** Which token a PIN is asked for, and, when it is asked to sign, what the token will sign. */
export interface PinRequest {
  module: string;
  tokenLabel: string;
  signing?: PinSigning | undefined;
}

/** What a PIN asked for a signature unlocks: restated on the prompt so a request swapped under it shows. */
export interface PinSigning {
  /** The one line main's confirmation showed for this body, or what the body is when nobody was asked (a query). */
  reading: string;
  /** `sha256:` + hex of the exact bytes the token will sign, computed here from them (fingerprintOf). */
  bodyFingerprint: string;
}

/** Asks a person for the token's user PIN on main's surface; `undefined` when they cancelled. */
export type AskPin = (request: PinRequest) => Promise<string | undefined>;

/** What anyone may see of a key on a token. */
export interface TokenKeyInfo extends TokenKey {
  /** False when the token holds the public half only (the private key was deleted or lives elsewhere). */
  canSign: boolean;
  /** The private key is sensitive and not extractable: no one, PIN or not, can read it off the token. */
  keptOnToken: boolean;
}

/** A token a module sees, as it describes itself (no PIN needed). */
export interface TokenInfo {
  module: string;
  tokenLabel: string;
  serial: string;
  manufacturer: string;
  model: string;
}

export interface Pkcs11TokensOptions {
  askPin: AskPin;
  /** Loads pkcs11js; tests may pass their own import. */
  loadLibrary?: () => Promise<Pkcs11Library>;
}

/** DER of the named curve prime256v1 (OID 1.2.840.10045.3.1.7): CKA_EC_PARAMS of a P-256 key. */
const P256_EC_PARAMS = Buffer.from('06082a8648ce3d030107', 'hex');
const KEY_ID_BYTES = 16;
const RAW_POINT_BYTES = 65;

async function importPkcs11js(): Promise<Pkcs11Library> {
  try {
    const loaded = (await import('pkcs11js')) as Pkcs11Library & { default?: Pkcs11Library };
    return loaded.default ?? loaded;
  } catch (error) {
    throw new QkError(
      'KEYCHAIN_UNAVAILABLE',
      `PKCS#11 support (the pkcs11js native module) could not be loaded: ${(error as Error).message}; reinstall with npm ci on this machine`,
    );
  }
}

interface OpenToken {
  library: Pkcs11Library;
  pkcs11: Pkcs11Module.PKCS11;
  session: Handle;
  /** Token operations on one session must not interleave: each waits for the one before. */
  queue: Promise<unknown>;
}

interface LoadedModule {
  library: Pkcs11Library;
  pkcs11: Pkcs11Module.PKCS11;
}

export class Pkcs11Tokens {
  readonly #askPin: AskPin;
  readonly #loadLibrary: () => Promise<Pkcs11Library>;
  readonly #modules = new Map<string, Promise<LoadedModule>>();
  readonly #tokens = new Map<string, Promise<OpenToken>>();

  constructor({ askPin, loadLibrary = importPkcs11js }: Pkcs11TokensOptions) {
    this.#askPin = askPin;
    this.#loadLibrary = loadLibrary;
  }

  /** The P-256 keys on the token, with their public keys in the service's compressed form. */
  async listKeys(token: PinRequest): Promise<TokenKeyInfo[]> {
    return this.#withToken(token, ({ library, pkcs11, session }) => {
      const publics = findObjects(pkcs11, session, [{ type: library.CKA_CLASS, value: library.CKO_PUBLIC_KEY }]);
      const keys: TokenKeyInfo[] = [];
      for (const handle of publics) {
        const [params, label, id] = pkcs11.C_GetAttributeValue(session, handle, [
          { type: library.CKA_EC_PARAMS },
          { type: library.CKA_LABEL },
          { type: library.CKA_ID },
        ]);
        if (params === undefined || !params.value.equals(P256_EC_PARAMS)) continue;
        const keyLabel = label?.value.toString('utf8') ?? '';
        const keyId = id === undefined || id.value.length === 0 ? undefined : id.value.toString('hex');
        const [privateKey] = findObjects(pkcs11, session, [
          { type: library.CKA_CLASS, value: library.CKO_PRIVATE_KEY },
          ...(id === undefined || id.value.length === 0
            ? [{ type: library.CKA_LABEL, value: keyLabel }]
            : [{ type: library.CKA_ID, value: id.value }]),
        ]);
        keys.push({
          module: token.module,
          tokenLabel: token.tokenLabel,
          keyLabel,
          ...(keyId === undefined ? {} : { keyId }),
          publicKey: readPublicKey(library, pkcs11, session, handle, keyLabel),
          canSign: privateKey !== undefined,
          keptOnToken: privateKey !== undefined && keptOnToken(library, pkcs11, session, privateKey),
        });
      }
      return keys;
    });
  }

  /** The initialized tokens present in `module` (SoftHSM2 always shows one blank more), read without logging in. */
  async listTokens(module: string): Promise<TokenInfo[]> {
    const { library, pkcs11 } = await this.#loadModule(module);
    return pkcs11.C_GetSlotList(true).flatMap((slot) => {
      // PKCS#11 pads these fields with spaces to their fixed widths.
      const info = pkcs11.C_GetTokenInfo(slot);
      if ((info.flags & library.CKF_TOKEN_INITIALIZED) === 0) return [];
      return [
        {
          module,
          tokenLabel: info.label.trimEnd(),
          serial: info.serialNumber.trimEnd(),
          manufacturer: info.manufacturerID.trimEnd(),
          model: info.model.trimEnd(),
        },
      ];
    });
  }

  /**
   * The key `ref` names, with its public key read from the token: what a profile pins. KEY_NOT_FOUND when the token
   * holds no such key that can sign, KEY_INVALID when the label names more than one and no CKA_ID tells them apart.
   */
  async findKey(ref: TokenKeyRef): Promise<TokenKey> {
    const matching = (await this.listKeys(ref)).filter(
      (key) => key.canSign && key.keyLabel === ref.keyLabel && (ref.keyId === undefined || key.keyId === ref.keyId),
    );
    const [key, another] = matching;
    if (key === undefined)
      throw new QkError('KEY_NOT_FOUND', `${describeTokenKey(ref)} was not found, or cannot sign; list the token's keys to see what it holds`);
    if (another !== undefined) throw new QkError('KEY_INVALID', `${describeTokenKey(ref)} names more than one key; name it by its CKA_ID too`);
    const { canSign: _canSign, keptOnToken: _keptOnToken, ...tokenKey } = key;
    return tokenKey;
  }

  /**
   * Generates a P-256 key pair on the token under `keyLabel`, with a random CKA_ID: the private half sensitive, not
   * extractable and kept on the token. KEY_EXISTS when the label is taken.
   */
  async generateKey(ref: Omit<TokenKeyRef, 'keyId'>): Promise<TokenKey> {
    return this.#withToken(ref, async ({ library, pkcs11, session }) => {
      if (findObjects(pkcs11, session, [{ type: library.CKA_LABEL, value: ref.keyLabel }]).length > 0) {
        throw new QkError(
          'KEY_EXISTS',
          `token ${JSON.stringify(ref.tokenLabel)} already holds a key labelled ${JSON.stringify(ref.keyLabel)}; choose another label`,
          {
            field: 'keyLabel',
          },
        );
      }
      const id = randomBytes(KEY_ID_BYTES);
      const shared = [
        { type: library.CKA_TOKEN, value: true },
        { type: library.CKA_KEY_TYPE, value: library.CKK_EC },
        { type: library.CKA_LABEL, value: ref.keyLabel },
        { type: library.CKA_ID, value: id },
      ];
      const pair = await pkcs11.C_GenerateKeyPairAsync(
        session,
        { mechanism: library.CKM_EC_KEY_PAIR_GEN },
        [
          ...shared,
          { type: library.CKA_CLASS, value: library.CKO_PUBLIC_KEY },
          { type: library.CKA_EC_PARAMS, value: P256_EC_PARAMS },
          { type: library.CKA_VERIFY, value: true },
        ],
        [
          ...shared,
          { type: library.CKA_CLASS, value: library.CKO_PRIVATE_KEY },
          { type: library.CKA_PRIVATE, value: true },
          { type: library.CKA_SENSITIVE, value: true },
          { type: library.CKA_EXTRACTABLE, value: false },
          { type: library.CKA_SIGN, value: true },
        ],
      );
      return {
        module: ref.module,
        tokenLabel: ref.tokenLabel,
        keyLabel: ref.keyLabel,
        keyId: id.toString('hex'),
        publicKey: readPublicKey(library, pkcs11, session, pair.publicKey, ref.keyLabel),
      };
    });
  }

  /**
   * Runs `use` with a signer over the token key. Refuses with KEY_INVALID when the token's key is not the one whose
   * public key was pinned (another token under the same label, a key replaced since).
   */
  async withSigner<T>(key: TokenKey, use: (signer: StampSigner) => Promise<T>, reading: string): Promise<T> {
    const signer: StampSigner = {
      curve: 'p256',
      publicKey: key.publicKey,
      sign: (message) => this.#sign(key, message, reading),
    };
    return use(signer);
  }

  /** Logs out of every token, closes the sessions and unloads the modules; the next use asks for the PIN again. */
  async close(): Promise<void> {
    const tokens = [...this.#tokens.values()];
    const modules = [...this.#modules.values()];
    this.#tokens.clear();
    this.#modules.clear();
    for (const opening of tokens) {
      const token = await opening.catch(() => undefined);
      if (token === undefined) continue;
      await token.queue.catch(() => undefined);
      ignoreTokenError(() => token.pkcs11.C_Logout(token.session));
      ignoreTokenError(() => token.pkcs11.C_CloseSession(token.session));
    }
    for (const loading of modules) {
      const loaded = await loading.catch(() => undefined);
      if (loaded === undefined) continue;
      ignoreTokenError(() => loaded.pkcs11.C_Finalize());
      ignoreTokenError(() => loaded.pkcs11.close());
    }
  }

  async #sign(key: TokenKey, message: Uint8Array, reading: string): Promise<string> {
    const digest = sha256(message);
    const signing = { reading, bodyFingerprint: fingerprintOf(message) };
    return this.#withToken({ ...key, signing }, async ({ library, pkcs11, session }) => {
      const [publicHandle] = findObjects(pkcs11, session, keyTemplate(library, library.CKO_PUBLIC_KEY, key));
      const [privateHandle, another] = findObjects(pkcs11, session, keyTemplate(library, library.CKO_PRIVATE_KEY, key));
      if (privateHandle === undefined) {
        throw new QkError('KEY_NOT_FOUND', `${describeTokenKey(key)} was not found, or cannot sign; list the token's keys to see what it holds`);
      }
      if (another !== undefined) {
        throw new QkError('KEY_INVALID', `${describeTokenKey(key)} matches more than one private key; name it by its CKA_ID too`);
      }
      if (publicHandle === undefined || readPublicKey(library, pkcs11, session, publicHandle, key.keyLabel) !== key.publicKey) {
        throw new QkError(
          'KEY_INVALID',
          `${describeTokenKey(key)} is not the key with public key ${key.publicKey} this profile was set up with; nothing was signed`,
        );
      }
      pkcs11.C_SignInit(session, { mechanism: library.CKM_ECDSA }, privateHandle);
      const raw = await pkcs11.C_SignAsync(session, Buffer.from(digest), Buffer.alloc(2 * 32));
      // Tokens return r‖s with whatever s they computed; stamps carry DER, low-S like the keychain signer's.
      const signature = p256.Signature.fromBytes(new Uint8Array(raw), 'compact');
      const lowS = signature.hasHighS() ? new p256.Signature(signature.r, p256.Point.Fn.ORDER - signature.s) : signature;
      return bytesToHex(lowS.toBytes('der'));
    });
  }

  /** Runs `use` on the token's logged-in session, after whatever else is using it. */
  async #withToken<T>(token: PinRequest, use: (open: OpenToken) => T | Promise<T>): Promise<T> {
    const open = await this.#open(token);
    const result = open.queue.then(() => use(open));
    open.queue = result.catch(() => undefined);
    try {
      return await result;
    } catch (error) {
      throw tokenError(open.library, token, error);
    }
  }

  #open(token: PinRequest): Promise<OpenToken> {
    const id = `${token.module}\n${token.tokenLabel}`;
    let opening = this.#tokens.get(id);
    if (opening === undefined) {
      opening = this.#login(token);
      this.#tokens.set(id, opening);
      // A failed login (wrong PIN, cancelled) is not remembered: the next use asks again.
      opening.catch(() => {
        if (this.#tokens.get(id) === opening) this.#tokens.delete(id);
      });
    }
    return opening;
  }

  async #login(token: PinRequest): Promise<OpenToken> {
    const { library, pkcs11 } = await this.#loadModule(token.module);
    let session: Handle | undefined;
    let slot: Handle | undefined;
    try {
      slot = findSlot(pkcs11, token);
      session = pkcs11.C_OpenSession(slot, library.CKF_SERIAL_SESSION | library.CKF_RW_SESSION);
      const pin = await this.#askPin({
        module: token.module,
        tokenLabel: token.tokenLabel,
        ...(token.signing === undefined ? {} : { signing: token.signing }),
      });
      if (pin === undefined || pin === '') {
        throw new QkError('TOKEN_PIN_REQUIRED', `the PIN of token ${JSON.stringify(token.tokenLabel)} was not given; nothing was signed`);
      }
      try {
        pkcs11.C_Login(session, library.CKU_USER, pin);
      } catch (error) {
        // Login state belongs to the application: a session logged in earlier leaves this one logged in too.
        if (!(error instanceof library.Pkcs11Error && error.code === library.CKR_USER_ALREADY_LOGGED_IN)) throw error;
      }
    } catch (error) {
      const opened = session;
      if (opened !== undefined) ignoreTokenError(() => pkcs11.C_CloseSession(opened));
      throw tokenError(library, token, error, slot === undefined ? undefined : pinTriesLeft(library, pkcs11, slot));
    }
    return { library, pkcs11, session, queue: Promise.resolve() };
  }

  #loadModule(module: string): Promise<LoadedModule> {
    let loading = this.#modules.get(module);
    if (loading === undefined) {
      loading = (async () => {
        const library = await this.#loadLibrary();
        const pkcs11 = new library.PKCS11();
        try {
          pkcs11.load(module);
        } catch (error) {
          throw new QkError('KEYCHAIN_UNAVAILABLE', `the PKCS#11 module ${module} could not be loaded: ${(error as Error).message}`, {
            field: 'module',
          });
        }
        try {
          pkcs11.C_Initialize();
        } catch (error) {
          if (!(error instanceof library.Pkcs11Error && error.code === library.CKR_CRYPTOKI_ALREADY_INITIALIZED)) {
            ignoreTokenError(() => pkcs11.close());
            throw error;
          }
        }
        return { library, pkcs11 };
      })();
      this.#modules.set(module, loading);
      loading.catch(() => {
        if (this.#modules.get(module) === loading) this.#modules.delete(module);
      });
    }
    return loading;
  }
}

function findSlot(pkcs11: Pkcs11Module.PKCS11, token: PinRequest): Handle {
  const labels: string[] = [];
  for (const slot of pkcs11.C_GetSlotList(true)) {
    // Token labels are padded with spaces to 32 bytes.
    const label = pkcs11.C_GetTokenInfo(slot).label.trimEnd();
    if (label === token.tokenLabel) return slot;
    labels.push(label);
  }
  throw new QkError(
    'KEY_NOT_FOUND',
    `no token labelled ${JSON.stringify(token.tokenLabel)} is present in ${token.module}; ${
      labels.length === 0 ? 'the module sees no token (is it plugged in?)' : `it sees ${labels.map((label) => JSON.stringify(label)).join(', ')}`
    }`,
    { field: 'tokenLabel' },
  );
}

function keyTemplate(library: Pkcs11Library, objectClass: number, key: TokenKeyRef): Pkcs11Module.Template {
  return [
    { type: library.CKA_CLASS, value: objectClass },
    { type: library.CKA_LABEL, value: key.keyLabel },
    ...(key.keyId === undefined ? [] : [{ type: library.CKA_ID, value: Buffer.from(hexToBytes(key.keyId, 'CKA_ID')) }]),
  ];
}

function keptOnToken(library: Pkcs11Library, pkcs11: Pkcs11Module.PKCS11, session: Handle, privateKey: Handle): boolean {
  const [sensitive, extractable] = pkcs11.C_GetAttributeValue(session, privateKey, [
    { type: library.CKA_SENSITIVE },
    { type: library.CKA_EXTRACTABLE },
  ]);
  return sensitive?.value[0] === 1 && extractable?.value[0] === 0;
}

function findObjects(pkcs11: Pkcs11Module.PKCS11, session: Handle, template: Pkcs11Module.Template): Handle[] {
  pkcs11.C_FindObjectsInit(session, template);
  try {
    return pkcs11.C_FindObjects(session, 16);
  } finally {
    pkcs11.C_FindObjectsFinal(session);
  }
}

/**
 * The compressed public key of a P-256 public key object. CKA_EC_POINT is the uncompressed point wrapped in a DER
 * OCTET STRING (some modules return the bare point, which is accepted too).
 */
function readPublicKey(library: Pkcs11Library, pkcs11: Pkcs11Module.PKCS11, session: Handle, handle: Handle, keyLabel: string): string {
  const [attribute] = pkcs11.C_GetAttributeValue(session, handle, [{ type: library.CKA_EC_POINT }]);
  const value = attribute?.value ?? Buffer.alloc(0);
  const wrapped = value.length === RAW_POINT_BYTES + 2 && value[0] === 0x04 && value[1] === RAW_POINT_BYTES;
  const point = wrapped ? value.subarray(2) : value;
  try {
    p256.Point.fromBytes(new Uint8Array(point));
  } catch {
    throw new QkError(
      'KEY_INVALID',
      `the token's key ${JSON.stringify(keyLabel)} has no valid P-256 public point (CKA_EC_POINT ${value.toString('hex')})`,
    );
  }
  return compressP256(point.toString('hex'));
}

/**
 * What the token says of the tries its user PIN has left, in words: PKCS#11 tells no count, only that few are left,
 * that the next is the last, or that the PIN is locked. Undefined when it says none of these (or cannot be asked).
 */
function pinTriesLeft(library: Pkcs11Library, pkcs11: Pkcs11Module.PKCS11, slot: Handle): string | undefined {
  let flags: number;
  try {
    flags = pkcs11.C_GetTokenInfo(slot).flags;
  } catch {
    return undefined;
  }
  if ((flags & library.CKF_USER_PIN_LOCKED) !== 0) return 'the PIN is now locked (CKF_USER_PIN_LOCKED): unblock it with the SO PIN';
  if ((flags & library.CKF_USER_PIN_FINAL_TRY) !== 0) return 'one try is left before the token locks (CKF_USER_PIN_FINAL_TRY)';
  if ((flags & library.CKF_USER_PIN_COUNT_LOW) !== 0) return 'few tries are left before the token locks (CKF_USER_PIN_COUNT_LOW)';
  return undefined;
}

/** A token's refusal as an error that says what to do; other errors unchanged. `triesLeft` after a login refused. */
function tokenError(library: Pkcs11Library, token: PinRequest, error: unknown, triesLeft?: string): unknown {
  if (!(error instanceof library.Pkcs11Error)) return error;
  const name = JSON.stringify(token.tokenLabel);
  if (error.code === library.CKR_PIN_INCORRECT) {
    return new QkError(
      'TOKEN_PIN_INVALID',
      `token ${name} refused the PIN (CKR_PIN_INCORRECT); nothing was signed. ${
        triesLeft === undefined ? 'Too many wrong PINs lock the token' : `The token says ${triesLeft}`
      }`,
    );
  }
  if (error.code === library.CKR_PIN_LOCKED) {
    return new QkError('TOKEN_PIN_INVALID', `token ${name} is locked after too many wrong PINs (CKR_PIN_LOCKED); unblock it with its SO PIN`);
  }
  if (error.code === library.CKR_PIN_LEN_RANGE) {
    return new QkError('TOKEN_PIN_INVALID', `token ${name} refused the PIN as too short or too long (CKR_PIN_LEN_RANGE)`);
  }
  return new QkError('KEYCHAIN_UNAVAILABLE', `token ${name} refused: ${error.message} in ${error.method}`);
}

/** Closing down goes on past a token that was removed or already logged out. */
function ignoreTokenError(step: () => void): void {
  try {
    step();
  } catch {
    // The session or module is already gone; there is nothing left to close.
  }
}
