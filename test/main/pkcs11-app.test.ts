/**
 * A token key in the app, through main's channels against a real SoftHSM2 token and the Sandbox: the Keys screen's
 * token channels (modules main offers, tokens, keys, a key generated on the token), a profile switched to a token
 * key through main's confirmation, the PIN asked through main's prompt (once per session, again after a lock), a
 * vote stamped on the token, and the journal naming which credential stamped each entry, verified.
 * Skipped, saying so, only where softhsm2 is not installed (.ci/run installs it).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pkcs11js from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../../src/main/confirmation/confirmation';
import { createDispatch, type Dispatch } from '../../src/main/ipc/register';
import { createRendererUrlCheck } from '../../src/main/ipc/sender';
import { Pkcs11Tokens, type PinRequest } from '../../src/main/pkcs11/pkcs11-tokens';
import type { Profile } from '../../src/main/profiles/profiles';
import { createMainHandlers, createMainServices, type MainServices } from '../../src/main/services';
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import type { ErrorData } from '../../src/shared/errors';
import { MemoryClipboard } from '../support/memory-clipboard';
import { MemoryStore } from '../support/memory-secret-store';
import { initSoftHsmToken, SOFTHSM_MODULE, softhsmPresent } from '../support/softhsm';

const RENDERER_INDEX = '/opt/QuorumKey/out/renderer/index.html';
const TOKEN_LABEL = 'qk-app';
const PIN = '135790';
const token = { module: SOFTHSM_MODULE, tokenLabel: TOKEN_LABEL };

let removeToken: () => Promise<void>;
let dataDir: string;
let services: MainServices;
let dispatch: Dispatch;
const pinsAsked: PinRequest[] = [];
let pinAnswer: string | undefined = PIN;
const confirmations: ConfirmationRequest[] = [];

async function call<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  const answer = await dispatch(channel, input, `file://${RENDERER_INDEX}`);
  if (!answer.ok) throw Object.assign(new Error(answer.error.message), { data: answer.error });
  return answer.value as ChannelOutput<C>;
}

async function refusal<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<ErrorData> {
  const answer = await dispatch(channel, input, `file://${RENDERER_INDEX}`);
  if (answer.ok) throw new Error(`${channel} was expected to be refused`);
  return answer.error;
}

beforeAll(async () => {
  if (!softhsmPresent) return;
  removeToken = await initSoftHsmToken(TOKEN_LABEL, PIN);
  dataDir = await mkdtemp(join(tmpdir(), 'qk-pkcs11-app-'));
  services = createMainServices({
    dataDir,
    keychainServiceName: `QuorumKey-test-${randomUUID()}`,
    secretStore: new MemoryStore(),
    clipboard: new MemoryClipboard(),
    // Main's PIN prompt (a window of main's own in the app): here, the person typing the PIN.
    askPkcs11Pin: async (request) => {
      pinsAsked.push(request);
      return pinAnswer;
    },
  });
  const handlers = createMainHandlers(services, {
    app: { version: '0.0.0-test', platform: process.platform, packaged: false },
    confirm: async (request) => {
      confirmations.push(request);
      return true;
    },
  });
  dispatch = createDispatch({ handlers, isTrustedSender: createRendererUrlCheck({ rendererIndexPath: RENDERER_INDEX }) });
});

afterAll(async () => {
  if (!softhsmPresent) return;
  await services.close();
  await rm(dataDir, { recursive: true, force: true });
  await removeToken();
});

describe.skipIf(!softhsmPresent)('a token key on the Keys screen, a profile on it, and the journal', () => {
  let tokenKey: ChannelOutput<'keys.generateTokenKey'>;
  let deskProfile: Profile;
  let rootProfile: Profile;

  it('offers the installed module, lists its token without a PIN, and refuses a module it does not offer', async () => {
    expect(await call('keys.pkcs11Modules', {})).toContainEqual({ path: SOFTHSM_MODULE, name: 'SoftHSM2' });
    const [listed, ...others] = await call('keys.listTokens', { module: SOFTHSM_MODULE });
    expect(others).toEqual([]);
    expect(listed).toMatchObject({ ...token, manufacturer: 'SoftHSM project', model: 'SoftHSM v2' });
    expect(listed!.serial).toMatch(/^[0-9a-f]{16}$/);
    expect(pinsAsked).toEqual([]);
    // Loading a module runs its code in main: a library the window names is refused before anything loads it.
    const refused = await refusal('keys.listTokens', { module: '/tmp/not-a-module.so' });
    expect(refused).toMatchObject({ code: 'REQUEST_INVALID' });
    expect(refused.message).toContain(`is not one this app offers (${SOFTHSM_MODULE}`);
  });

  it('generates a key on the token, kept on it, asking the PIN through main once for the session', async () => {
    tokenKey = await call('keys.generateTokenKey', { ...token, keyLabel: 'desk' });
    expect(tokenKey).toMatchObject({ ...token, keyLabel: 'desk', canSign: true, keptOnToken: true, usedByProfiles: [] });
    expect(await call('keys.listTokenKeys', token)).toEqual([tokenKey]);
    expect(pinsAsked).toEqual([token]);
    const taken = await refusal('keys.generateTokenKey', { ...token, keyLabel: 'desk' });
    expect(taken).toMatchObject({ code: 'KEY_EXISTS' });
  });

  it('switches a profile to the token key after main confirms it, pinning the public key the token gave', async () => {
    const { info } = await services.sandbox.start();
    rootProfile = (await services.profiles.getActive())!;
    const root = new ApiClient({ profile: rootProfile, stamper: new Stamper(services.keychain) });
    const created = await root.submit('create_users', {
      users: [
        {
          userName: 'desk',
          apiKeys: [{ apiKeyName: 'desk on token', publicKey: tokenKey.publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    if (created.state !== 'completed') throw new Error(`creating the desk user is ${created.state}`);
    const deskUserId = created.result.userIds[0]!;
    const quorum = await root.submit('update_root_quorum', { threshold: 2, userIds: [info.rootUserId, deskUserId] });
    expect(quorum.state).toBe('completed');
    const added = await services.profiles.add({
      name: 'Desk',
      kind: 'hosted',
      baseUrl: info.baseUrl,
      organizationId: info.organizationId,
      apiKeyName: 'desk',
      enclaveSignerPublicKey: info.enclaveSignerPublicKey,
    });
    confirmations.length = 0;
    deskProfile = await call('profiles.useTokenKey', { id: added.id, key: { ...token, keyLabel: 'desk' } });
    const { canSign: _canSign, keptOnToken: _kept, usedByProfiles: _used, ...pinned } = tokenKey;
    expect(deskProfile.tokenKey).toEqual(pinned);
    expect(confirmations).toHaveLength(1);
    expect([confirmations[0]!.message, confirmations[0]!.detail].join('\n')).toContain(tokenKey.publicKey);
    expect((await call('keys.listTokenKeys', token))[0]?.usedByProfiles).toEqual(['Desk']);
  });

  it('votes with the token key through the approvals channel, and the journal names the token', async () => {
    // The root user proposes on its keychain key; the quorum of two waits for the desk's vote.
    await services.profiles.setActive(rootProfile.id);
    const proposed = await call('policies.create', {
      name: 'needs the desk',
      effect: 'EFFECT_DENY',
      condition: "activity.type == 'ACTIVITY_TYPE_DELETE_USERS'",
    });
    expect(proposed.state).toBe('consensus-needed');
    // A lock logs out of the token: the vote asks the PIN again.
    services.lock.lock();
    services.lock.unlock();
    pinsAsked.length = 0;
    await services.profiles.setActive(deskProfile.id);
    const [waiting] = await call('approvals.pending', {});
    expect(waiting).toBeDefined();
    const voted = await call('approvals.approve', { fingerprint: waiting!.fingerprint });
    expect(voted.status).toBe('ACTIVITY_STATUS_COMPLETED');
    // Asked once, by the first stamp after the lock: listing what waits, a read, which the PIN page says was not confirmed.
    expect(pinsAsked).toEqual([
      {
        ...token,
        signing: { bodyFingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/u), reading: expect.stringContaining('did not confirm') },
      },
    ]);

    const { entries, verification } = await call('journal.list', {});
    expect(verification).toMatchObject({ valid: true });
    const vote = entries.find((entry) => entry.action === 'vote.approved');
    expect(vote?.credential).toEqual({ kind: 'pkcs11', name: `PKCS#11 token "${TOKEN_LABEL}" key "desk"`, publicKey: tokenKey.publicKey });
    const proposal = entries.find((entry) => entry.action === 'activity.submitted');
    expect(proposal?.credential).toMatchObject({ kind: 'keychain', name: `API key "${rootProfile.apiKeyName}" in the OS keychain` });
  });

  it('refuses a wrong PIN with the token’s words, and a cancelled prompt, signing nothing', async () => {
    await services.pkcs11.close();
    pinAnswer = '000000';
    const wrong = await refusal('keys.listTokenKeys', token);
    expect(wrong).toMatchObject({ code: 'TOKEN_PIN_INVALID' });
    expect(wrong.message).toContain(`token "${TOKEN_LABEL}" refused the PIN (CKR_PIN_INCORRECT)`);
    pinAnswer = undefined;
    expect(await refusal('keys.listTokenKeys', token)).toMatchObject({ code: 'TOKEN_PIN_REQUIRED' });
    pinAnswer = PIN;
  });
});

describe('the tries a token says its PIN has left', () => {
  // SoftHSM2 never counts wrong PINs, so the flags a YubiKey or smart card sets are played by a module stand-in.
  // The CommonJS module itself (its namespace object does not spread into one with every constant).
  const library = (pkcs11js as typeof pkcs11js & { default?: typeof pkcs11js }).default ?? pkcs11js;
  const flagsAfterRefusal = async (flags: number) => {
    const { Pkcs11Error, CKR_PIN_INCORRECT } = library;
    class StandIn {
      load() {}
      C_Initialize() {}
      C_GetSlotList() {
        return [Buffer.from([1])];
      }
      C_GetTokenInfo() {
        return { label: `${TOKEN_LABEL}${' '.repeat(32 - TOKEN_LABEL.length)}`, flags };
      }
      C_OpenSession() {
        return Buffer.from([2]);
      }
      C_Login() {
        throw new Pkcs11Error('CKR_PIN_INCORRECT', CKR_PIN_INCORRECT, 'C_Login');
      }
      C_CloseSession() {}
      C_Finalize() {}
      close() {}
    }
    const tokens = new Pkcs11Tokens({
      askPin: async () => '000000',
      loadLibrary: async () => ({ ...library, PKCS11: StandIn }) as never,
    });
    return tokens.listKeys(token).then(
      () => undefined,
      (error: Error) => error.message,
    );
  };

  it('says one try is left, few are left, or the PIN is now locked, as the token flags it', async () => {
    const { CKF_USER_PIN_FINAL_TRY, CKF_USER_PIN_COUNT_LOW, CKF_USER_PIN_LOCKED } = library;
    expect(await flagsAfterRefusal(CKF_USER_PIN_FINAL_TRY)).toContain('The token says one try is left before the token locks');
    expect(await flagsAfterRefusal(CKF_USER_PIN_COUNT_LOW)).toContain('The token says few tries are left');
    expect(await flagsAfterRefusal(CKF_USER_PIN_LOCKED)).toContain('The token says the PIN is now locked');
    expect(await flagsAfterRefusal(0)).toContain('Too many wrong PINs lock the token');
  });
});
