/**
 * Issue 39's end-to-end scenario in one run, against a real Sandbox over main's real composition root, every request
 * after set-up sent by Turnkey's own client (@turnkey/http's TurnkeyClient) through a stamper that hands the body to
 * main's Stamper: Dee's API key is generated on a SoftHSM2 token, Bea votes with a security key (Chromium's virtual
 * FIDO2 authenticator on main's passkey page, registered with create_authenticators) and reads with a keychain key,
 * Cal's API key is in the OS keychain (Secret Service). The three are a 2-of-3 root quorum; Bea's MFA policy, voted
 * in by the quorum, asks her passkey for every signing request. Her sign request waits in AUTHENTICATORS_NEEDED: her
 * vote stamped with the keychain key and Cal's are refused, her passkey's completes it with a signature that
 * recovers to the account's address. Skipped, saying so, only where softhsm2 or Chromium is absent.
 */
import { chromium, type Browser } from '@playwright/test';
import { TurnkeyClient } from '@turnkey/http';
import * as pkcs11js from 'pkcs11js';
import { keccak256, recoverAddress, serializeSignature, stringToHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { utf8Encode } from '../../src/shared/crypto/encoding';
import { fingerprintOf } from '../../src/shared/crypto/stamp';
import type { StampCredential } from '../../src/main/stamper/stamp';
import type { Profile } from '../../src/main/profiles/profiles';
import type { TokenKey } from '../../src/main/pkcs11/token-key';
import { findChromium } from '../support/chromium';
import { clientRefusal } from '../support/client-refusal';
import { completed } from '../support/completed-outcome';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { initSoftHsmToken, SOFTHSM_MODULE, softhsmPresent } from '../support/softhsm';
import { virtualSecurityKey, type VirtualSecurityKey } from '../support/virtual-authenticator';

const TOKEN_LABEL = 'qk-quorum';
const PIN = '864200';
const token = { module: SOFTHSM_MODULE, tokenLabel: TOKEN_LABEL };
const PASSKEY = 'AUTHENTICATION_TYPE_PASSKEY';
const PAYLOAD = 'pay the auditors';
const SIGNING = "activity.action == 'SIGN'";

function chromiumPath(): string | undefined {
  try {
    return findChromium();
  } catch (error) {
    console.warn(`three-credential quorum test skipped: ${(error as Error).message}`);
    return undefined;
  }
}
const chromiumExecutable = chromiumPath();
const runnable = softhsmPresent && chromiumExecutable !== undefined;

let removeToken: () => Promise<void>;
let browser: Browser;
let key: VirtualSecurityKey;
let bed: DispatchBed;
let organizationId: string;
let baseUrl: string;

/** Each user's credential as main's Stamper takes it. */
let root: StampCredential;
let dee: StampCredential & { tokenKey: TokenKey };
let bea: Profile;
let cal: StampCredential;
const ids = { dee: '', bea: '', cal: '', beaPasskey: '', signWith: '' };

/** Every body the stampers handed to main's Stamper, in order, with the header its stamp went out in. */
const stamped: { body: string; header: string }[] = [];

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

/**
 * Turnkey's client stamping through main's Stamper: the credential's token key (on the token, after its PIN), its
 * keychain key, or, for a vote of a credential with a passkey, the passkey's assertion on main's page.
 */
function clientOf(credential: StampCredential): TurnkeyClient {
  const stamper: ConstructorParameters<typeof TurnkeyClient>[1] = {
    stamp: async (body) => {
      const { headerName, headerValue } = await bed.services.stamper.stamp(credential, body);
      stamped.push({ body, header: headerName });
      return { stampHeaderName: headerName, stampHeaderValue: headerValue };
    },
  };
  return new TurnkeyClient({ baseUrl }, stamper);
}

let lastTimestampMs = 0;
/** A fresh envelope: two requests in one millisecond still differ. */
function envelope<T extends string>(type: T): { type: T; timestampMs: string; organizationId: string } {
  lastTimestampMs = Math.max(Date.now(), lastTimestampMs + 1);
  return { type, timestampMs: String(lastTimestampMs), organizationId };
}

function approve(credential: StampCredential, fingerprint: string) {
  return clientOf(credential).approveActivity({ ...envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'), parameters: { fingerprint } });
}

/** The public key each vote of `activityId` was stamped with, by voter, and its scheme. */
async function votesOf(activityId: string): Promise<{ userId: string; publicKey: string; scheme: string }[]> {
  const { activity } = await clientOf(root).getActivity({ organizationId, activityId });
  return activity.votes.map(({ userId, publicKey, scheme }) => ({ userId, publicKey, scheme }));
}

async function mfaStatusOf(activityId: string) {
  const { mfaStatuses } = await clientOf(root).getMfaStatus({ organizationId, activityId, userId: ids.bea });
  return mfaStatuses;
}

beforeAll(async () => {
  if (!runnable) return;
  removeToken = await initSoftHsmToken(TOKEN_LABEL, PIN);
  browser = await chromium.launch({ executablePath: chromiumExecutable, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  key = await virtualSecurityKey(await browser.newContext());
  bed = await startDispatchBed({
    dataDirPrefix: 'qk-three-credentials-',
    openPasskeyPage: key.openPasskeyPage,
    // Main's PIN prompt: here, the person typing the token's PIN.
    askPkcs11Pin: async () => PIN,
  });
  await call('sandbox.start', {});
  // The Sandbox's own profile, active once it starts: its root user signs with a keychain key.
  const sandboxProfile = (await bed.services.profiles.getActive())!;
  ({ organizationId, baseUrl } = sandboxProfile);
  root = sandboxProfile;
}, 120_000);

afterAll(async () => {
  if (!runnable) return;
  await bed?.close();
  await browser?.close();
  await removeToken?.();
});

describe.skipIf(!runnable)('a 2-of-3 root quorum on a token key, a passkey and a keychain key, and a passkey MFA step', () => {
  it("generates Dee's API key on the SoftHSM2 token, where its private key cannot be read (CKR_ATTRIBUTE_SENSITIVE)", async () => {
    const generated = await call('keys.generateTokenKey', { ...token, keyLabel: 'dee' });
    expect(generated).toMatchObject({ canSign: true, keptOnToken: true });
    const { canSign: _canSign, keptOnToken: _kept, usedByProfiles: _used, ...tokenKey } = generated;
    dee = { apiKeyName: 'dee', tokenKey };
    // Main's session closed, a second application with the PIN reads the token as an attacker would.
    await bed.services.pkcs11.close();
    const pkcs11 = new pkcs11js.PKCS11();
    pkcs11.load(SOFTHSM_MODULE);
    pkcs11.C_Initialize();
    try {
      const slot = pkcs11.C_GetSlotList(true).find((candidate) => pkcs11.C_GetTokenInfo(candidate).label.trimEnd() === TOKEN_LABEL)!;
      const session = pkcs11.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION);
      pkcs11.C_Login(session, pkcs11js.CKU_USER, PIN);
      pkcs11.C_FindObjectsInit(session, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
        { type: pkcs11js.CKA_LABEL, value: 'dee' },
      ]);
      const [privateKey] = pkcs11.C_FindObjects(session, 2);
      pkcs11.C_FindObjectsFinal(session);
      expect(privateKey).toBeDefined();
      const read = (() => {
        try {
          return pkcs11.C_GetAttributeValue(session, privateKey!, [{ type: pkcs11js.CKA_VALUE }]);
        } catch (error) {
          return error;
        }
      })();
      expect(read).toBeInstanceOf(pkcs11js.Pkcs11Error);
      expect((read as pkcs11js.Pkcs11Error).code).toBe(pkcs11js.CKR_ATTRIBUTE_SENSITIVE);
      pkcs11.C_Logout(session);
      pkcs11.C_CloseSession(session);
    } finally {
      pkcs11.C_Finalize();
      pkcs11.close();
    }
  });

  it('makes the three users, each with its credential, and Bea registers her security key on main’s page', async () => {
    await call('keys.generateApiKey', { name: 'bea' });
    await call('keys.generateApiKey', { name: 'cal' });
    cal = { apiKeyName: 'cal' };
    const create = async (userName: string, apiKey: ChannelInput<'users.create'>['apiKey']) =>
      completed(await call('users.create', { userName, apiKey })).result.userId;
    ids.dee = await create('Dee', { kind: 'token', apiKeyName: 'dee', ...token, keyLabel: 'dee' });
    ids.bea = await create('Bea', { kind: 'keychain', keyName: 'bea' });
    ids.cal = await create('Cal', { kind: 'keychain', keyName: 'cal' });
    // Cal's key is in the OS keychain this run's Secret Service holds, not in a stand-in store.
    expect((await bed.services.keychain.listApiKeys()).map((stored) => stored.name)).toEqual(expect.arrayContaining(['bea', 'cal']));

    const beaProfile = await bed.addSandboxProfile('Bea', 'bea');
    await call('profiles.setActive', { id: beaProfile.id });
    [ids.beaPasskey] = completed(await call('users.addPasskey', { name: 'yk-5' })).result.authenticatorIds as [string];
    expect(key.shown.at(-1)?.heading).toBe('Add a security key to vote with');
    bea = (await bed.services.profiles.getActive())!;
    expect(bea.passkey).toMatchObject({ name: 'yk-5', authenticatorId: ids.beaPasskey });

    const { users } = await clientOf(root).getUsers({ organizationId });
    const byName = new Map(users.map((user) => [user.userName, user]));
    expect(byName.get('Dee')?.apiKeys.map((apiKey) => apiKey.credential.publicKey)).toEqual([dee.tokenKey.publicKey]);
    expect(byName.get('Bea')?.authenticators.map((authenticator) => authenticator.credentialId)).toEqual([bea.passkey!.credentialId]);
    expect(byName.get('Cal')?.apiKeys.map((apiKey) => apiKey.apiKeyName)).toEqual(['cal']);
  });

  it('puts a wallet in place and hands the root quorum to the three, two of them needed', async () => {
    const wallet = await clientOf(root).createWallet({
      ...envelope('ACTIVITY_TYPE_CREATE_WALLET'),
      parameters: {
        walletName: 'Reserve',
        accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
      },
    });
    ids.signWith = wallet.activity.result.createWalletResult!.addresses[0]!;
    const quorum = await clientOf(root).updateRootQuorum({
      ...envelope('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM'),
      parameters: { threshold: 2, userIds: [ids.dee, ids.bea, ids.cal] },
    });
    expect(quorum.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { organizationData } = await clientOf(cal).getOrganization({ organizationId });
    expect(organizationData.rootQuorum).toMatchObject({ threshold: 2, userIds: expect.arrayContaining([ids.dee, ids.bea, ids.cal]) });
  });

  it("votes Bea's passkey MFA policy in: Dee proposes on the token, Cal approves with the keychain key", async () => {
    const proposed = await clientOf(dee).createMfaPolicy({
      ...envelope('ACTIVITY_TYPE_CREATE_MFA_POLICY'),
      parameters: {
        userId: ids.bea,
        mfaPolicyName: 'Signing with the key',
        condition: SIGNING,
        requiredAuthenticationMethods: [{ any: [{ type: PASSKEY, id: ids.beaPasskey }] }],
        order: 0,
      },
    });
    expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const decided = await approve(cal, proposed.activity.fingerprint);
    expect(decided.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const calPublicKey = (await bed.services.keychain.getApiKeyPublic('cal')).publicKey;
    expect(await votesOf(proposed.activity.id)).toEqual([
      { userId: ids.dee, publicKey: dee.tokenKey.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256' },
      { userId: ids.cal, publicKey: calPublicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256' },
    ]);
    const { mfaPolicies } = await clientOf(root).getMfaPolicies({ organizationId, userId: ids.bea });
    expect(mfaPolicies).toMatchObject([{ condition: SIGNING, requiredAuthenticationMethods: [{ any: [{ type: PASSKEY, id: ids.beaPasskey }] }] }]);
  });

  it('votes in a policy that lets Bea sign: Dee proposes on the token, Bea approves with her passkey', async () => {
    const proposed = await clientOf(dee).createPolicy({
      ...envelope('ACTIVITY_TYPE_CREATE_POLICY_V3'),
      parameters: {
        policyName: 'Bea signs',
        effect: 'EFFECT_ALLOW',
        condition: SIGNING,
        consensus: `approvers.any(user, user.id == '${ids.bea}')`,
        notes: '',
      },
    });
    expect(proposed.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const decided = await approve(bea, proposed.activity.fingerprint);
    expect(decided.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(stamped.at(-1)?.header).toBe('X-Stamp-WebAuthn');
    expect(await votesOf(proposed.activity.id)).toEqual([
      { userId: ids.dee, publicKey: dee.tokenKey.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256' },
      { userId: ids.bea, publicKey: bea.passkey!.credentialId, scheme: 'SIGNATURE_SCHEME_TK_API_P256_WEBAUTHN' },
    ]);
  });

  describe('Bea’s sign request', () => {
    let waiting: { id: string; fingerprint: string };

    it('waits in AUTHENTICATORS_NEEDED, proposed with her keychain key: 0 of 1 steps met', async () => {
      const { activity } = await clientOf(bea).signRawPayload({
        ...envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'),
        parameters: { signWith: ids.signWith, payload: PAYLOAD, encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' },
      });
      expect(stamped.at(-1)?.header).toBe('X-Stamp');
      expect(activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
      waiting = { id: activity.id, fingerprint: activity.fingerprint };
      expect(await mfaStatusOf(waiting.id)).toMatchObject([
        { userId: ids.bea, satisfied: false, satisfiedMethods: [], requiredMethods: [{ any: [{ type: PASSKEY, id: ids.beaPasskey }] }] },
      ]);
    });

    it('refuses her vote stamped with the keychain key, and Cal’s, counting neither: it still waits, 0 of 1', async () => {
      const withKeychainKey = await clientRefusal(approve({ apiKeyName: 'bea' }, waiting.fingerprint));
      expect(stamped.at(-1)?.header).toBe('X-Stamp');
      expect(withKeychainKey.details?.[0]).toMatchObject({ turnkeyErrorCode: 'AUTHENTICATOR_NOT_ACCEPTED' });
      expect(withKeychainKey.message).toMatch(
        /stamped with AUTHENTICATION_TYPE_API_KEY .*approve it again stamped with: AUTHENTICATION_TYPE_PASSKEY/,
      );
      // Nobody else votes while the proposer's MFA waits, whatever their credential.
      const fromCal = await clientRefusal(approve(cal, waiting.fingerprint));
      expect(fromCal.details?.[0]).toMatchObject({ turnkeyErrorCode: 'ACTIVITY_NOT_PENDING' });

      const { activity } = await clientOf(root).getActivity({ organizationId, activityId: waiting.id });
      expect(activity.status).toBe('ACTIVITY_STATUS_AUTHENTICATORS_NEEDED');
      expect(activity.votes.map((vote) => vote.userId)).toEqual([ids.bea]);
      expect(await mfaStatusOf(waiting.id)).toMatchObject([{ satisfied: false, satisfiedMethods: [] }]);
    });

    it('takes her passkey’s vote, touched on main’s page over the very body sent: 1 of 1, and the signature recovers', async () => {
      const shownBefore = key.shown.length;
      const decided = await approve(bea, waiting.fingerprint);
      const sent = stamped.at(-1)!;
      expect(sent.header).toBe('X-Stamp-WebAuthn');
      expect(key.shown.length).toBe(shownBefore + 1);
      expect(key.shown.at(-1)).toMatchObject({
        heading: expect.stringMatching(/^Vote with security key "yk-5"/),
        bodyFingerprint: fingerprintOf(utf8Encode(sent.body)),
      });

      expect(decided.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(await mfaStatusOf(waiting.id)).toMatchObject([{ satisfied: true, satisfiedMethods: [{ type: PASSKEY, id: ids.beaPasskey }] }]);
      expect((await votesOf(waiting.id)).map((vote) => vote.scheme)).toEqual([
        'SIGNATURE_SCHEME_TK_API_P256',
        'SIGNATURE_SCHEME_TK_API_P256_WEBAUTHN',
      ]);
      const { r, s, v } = decided.activity.result.signRawPayloadResult!;
      const signature = serializeSignature({ r: `0x${r}`, s: `0x${s}`, yParity: Number(v) });
      expect(await recoverAddress({ hash: keccak256(stringToHex(PAYLOAD)), signature })).toBe(ids.signWith);
    });
  });
});
