/**
 * The activity describer: every activity type the service serves has words (the list comes from the operation
 * table the service routes by; test/service/coverage/handlers.test.ts checks the route table serves exactly it),
 * and the descriptions show before → after with names, exports with their target, deletions and warnings.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { encodeFunctionData, erc20Abi, serializeTransaction } from 'viem';
import { describe, expect, it } from 'vitest';
import { activityOperations } from '../../../src/shared/api';
import type { ClearSigningContext } from '../../../src/shared/clear-signing';
import { signingDecoder } from '../../../src/main/activities/readings';
import { describeActivity, isDescribed, type ActivityDescription, type OrganizationLookup, type Ref } from '../../../src/shared/describe';

const servedTypes = Object.values(activityOperations).map((op) => ({ type: op.activityType, intentKey: op.intentKey }));

const ALICE = 'user-alice';
const BOB = 'user-bob';
const CAROL = 'user-carol';
const LOCAL_KEY = `04${'ab'.repeat(64)}`;
const FOREIGN_KEY = `04${'cd'.repeat(64)}`;

const lookup: OrganizationLookup = {
  organizationName: 'Acme',
  users: [
    {
      userId: ALICE,
      userName: 'Alice',
      userTags: ['tag-ops'],
      apiKeys: [{ apiKeyId: 'key-a', apiKeyName: 'alice laptop' }],
      authenticators: [],
      oauthProviders: [],
    },
    {
      userId: BOB,
      userName: 'Bob',
      userTags: [],
      apiKeys: [
        { apiKeyId: 'key-b1', apiKeyName: 'bob desk' },
        { apiKeyId: 'key-b2', apiKeyName: 'bob ci' },
      ],
      authenticators: [],
      oauthProviders: [],
    },
    { userId: CAROL, userName: 'Carol', userTags: ['tag-ops'], apiKeys: [], authenticators: [], oauthProviders: [] },
  ],
  tags: [{ tagId: 'tag-ops', tagName: 'operators' }],
  rootQuorum: { userIds: [ALICE, BOB], threshold: 2 },
  policies: [
    {
      policyId: 'pol-1',
      policyName: 'Ops may sign',
      effect: 'EFFECT_ALLOW',
      condition: "activity.resource == 'WALLET'",
      consensus: "approvers.any(user, user.tags.contains('tag-ops'))",
      notes: '',
    },
  ],
  wallets: [
    { walletId: 'w-1', walletName: 'Treasury', exported: false },
    { walletId: 'w-2', walletName: 'Payroll', exported: true },
  ],
  walletAccounts: [
    { walletId: 'w-1', address: '0xabc', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
    { walletId: 'w-1', address: 'So1', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' },
  ],
  privateKeys: [{ privateKeyId: 'pk-1', privateKeyName: 'Hot key', exported: false, addresses: ['0xhot'] }],
  localExportKeys: [{ name: 'offline desk', publicKey: LOCAL_KEY.toUpperCase() }],
};

function describeIntent(type: string, fields: Record<string, unknown>, org: OrganizationLookup = lookup): ActivityDescription {
  const intentKey = servedTypes.find((served) => served.type === type)?.intentKey ?? 'someIntent';
  return describeActivity({ type, intent: { [intentKey]: fields } }, org);
}

const texts = (values: readonly Ref[] | undefined) => values?.map((value) => value.text);

describe('every activity type the service accepts', () => {
  it.each(servedTypes)('$type has a description', ({ type, intentKey }) => {
    expect(isDescribed(type), `${type} has no describer in src/shared/describe/describers.ts`).toBe(true);
    // Recorded intents may lack fields (older versions, other services): still a description, never a throw.
    const description = describeActivity({ type, intent: { [intentKey]: {} } });
    expect(description.recognised).toBe(true);
    expect(description.title).not.toMatch(/ACTIVITY_TYPE_|_V\d/);
    expect(description.title.length).toBeGreaterThan(3);
  });
});

describe('root quorum', () => {
  it('shows members and approvals needed as before → after, by name with the id one click away', () => {
    const described = describeIntent('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { userIds: [ALICE, BOB, CAROL], threshold: 2 });
    expect(described.title).toBe('Change the root quorum');
    const members = described.changes.find((change) => change.label === 'Members')!;
    expect(texts(members.before)).toEqual(['Alice', 'Bob']);
    expect(texts(members.after)).toEqual(['Alice', 'Bob', 'Carol']);
    expect(members.after[2]).toEqual({ text: 'Carol', id: CAROL });
    const needed = described.changes.find((change) => change.label === 'Approvals needed')!;
    expect([texts(needed.before), texts(needed.after)]).toEqual([['2 of 2'], ['2 of 3']]);
    expect(described.warnings).toEqual([]);
  });

  it('warns in words when the quorum drops to one member, and names who leaves', () => {
    const described = describeIntent('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { userIds: [BOB], threshold: 1 });
    expect(described.warnings).toEqual([expect.stringContaining('drops to one member: Bob alone can approve anything')]);
    expect(described.facts).toContainEqual({ label: 'Leaving the quorum', value: [{ text: 'Alice', id: ALICE }] });
  });

  it('says "not known" (undefined before) without a lookup, and shows ids', () => {
    const described = describeIntent('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', { userIds: [ALICE], threshold: 1 }, {});
    expect(described.changes[0]!.before).toBeUndefined();
    expect(described.changes[0]!.after).toEqual([{ text: ALICE, id: ALICE, code: true }]);
  });
});

describe('policies', () => {
  it('shows a change as a diff against the stored policy, only the fields that change', () => {
    const described = describeIntent('ACTIVITY_TYPE_UPDATE_POLICY_V2', {
      policyId: 'pol-1',
      policyEffect: 'EFFECT_DENY',
      policyCondition: "activity.resource == 'WALLET'",
    });
    expect(described.title).toBe('Change a policy');
    expect(described.facts).toContainEqual({ label: 'Policy', value: [{ text: 'Ops may sign', id: 'pol-1' }] });
    expect(described.changes).toEqual([{ label: 'Effect', before: [{ text: 'Allow' }], after: [{ text: 'Deny' }] }]);
  });

  it('warns when a policy allows everything, created or changed', () => {
    const created = describeIntent('ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName: 'open', effect: 'EFFECT_ALLOW', notes: '' });
    expect(created.warnings).toEqual(['Policy open allows every activity to every user, with no approval from anyone else.']);
    expect(texts(created.changes.find((change) => change.label === 'Effect')?.after)).toEqual(['Allow']);
    expect(created.changes.find((change) => change.label === 'Name')).toEqual({ label: 'Name', before: [], after: [{ text: 'open' }] });
    const changed = describeIntent('ACTIVITY_TYPE_UPDATE_POLICY_V2', { policyId: 'pol-1', policyCondition: 'true', policyConsensus: '' });
    expect(changed.warnings).toEqual([expect.stringContaining('Ops may sign allows every activity to every user')]);
    const denied = describeIntent('ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName: 'block', effect: 'EFFECT_DENY', notes: '' });
    expect(denied.warnings).toEqual([]);
  });
});

describe('exports', () => {
  it('names what leaves and marks this desktop’s export key, with the fingerprint in full', () => {
    const described = describeIntent('ACTIVITY_TYPE_EXPORT_WALLET', { walletId: 'w-1', targetPublicKey: LOCAL_KEY });
    expect(texts(described.exports?.what)).toEqual(['Treasury', 'its seed phrase (2 accounts)']);
    expect(described.exports?.target).toEqual({
      publicKey: LOCAL_KEY,
      fingerprint: `sha256:${bytesToHex(sha256(hexToBytes(LOCAL_KEY)))}`,
      localKeyName: 'offline desk',
    });
    expect(described.warnings).toEqual([]);
  });

  it('marks an unknown key and warns', () => {
    const described = describeIntent('ACTIVITY_TYPE_EXPORT_PRIVATE_KEY', { privateKeyId: 'pk-1', targetPublicKey: FOREIGN_KEY });
    expect(texts(described.exports?.what)).toEqual(['Hot key']);
    expect(described.exports?.target.localKeyName).toBeUndefined();
    expect(described.warnings).toEqual([expect.stringContaining('a key this desktop does not hold')]);
    expect(described.summary).toBe('Hot key to an unknown key');
  });

  it('names the wallet an exported account belongs to', () => {
    const described = describeIntent('ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT', { address: '0xabc', targetPublicKey: LOCAL_KEY });
    expect(texts(described.exports?.what)).toEqual(['0xabc', 'of Treasury', 'its private key']);
  });
});

describe('deletions', () => {
  it('says what is destroyed and that an unexported wallet is refused unless asked', () => {
    const described = describeIntent('ACTIVITY_TYPE_DELETE_WALLETS', { walletIds: ['w-1', 'w-2'] });
    expect(described.deletions).toEqual([
      { what: { text: 'Treasury', id: 'w-1' }, kind: 'wallet', exported: false },
      { what: { text: 'Payroll', id: 'w-2' }, kind: 'wallet', exported: true },
    ]);
    expect(described.warnings).toEqual([expect.stringContaining('Treasury was never exported. The service refuses')]);
    const forced = describeIntent('ACTIVITY_TYPE_DELETE_WALLETS', { walletIds: ['w-1'], deleteWithoutExport: true });
    expect(forced.warnings).toEqual([expect.stringContaining('lost for good')]);
  });

  it('warns when a user loses their last credential, not before', () => {
    const last = describeIntent('ACTIVITY_TYPE_DELETE_API_KEYS', { userId: ALICE, apiKeyIds: ['key-a'] });
    expect(last.warnings).toEqual(['Alice loses their last credential: they can no longer sign in or approve anything.']);
    expect(texts(last.changes[0]!.before)).toEqual(['alice laptop']);
    expect(last.changes[0]!.after).toEqual([]);
    const notLast = describeIntent('ACTIVITY_TYPE_DELETE_API_KEYS', { userId: BOB, apiKeyIds: ['key-b2'] });
    expect(notLast.warnings).toEqual([]);
    expect(texts(notLast.changes[0]!.after)).toEqual(['bob desk']);
  });

  it('warns when a deleted user is a root quorum member', () => {
    const described = describeIntent('ACTIVITY_TYPE_DELETE_USERS', { userIds: [BOB] });
    expect(described.warnings).toEqual([
      'Bob is a root quorum member: the quorum loses a member.',
      'The root quorum needs 2 approvals but would keep only 1 members: it could approve nothing more.',
    ]);
  });
});

describe('users and wallets', () => {
  it('shows tags as before → after with names', () => {
    const described = describeIntent('ACTIVITY_TYPE_UPDATE_USER', { userId: BOB, userTagIds: ['tag-ops'] });
    expect(described.changes).toEqual([{ label: 'Tags', before: [], after: [{ text: 'operators', id: 'tag-ops' }] }]);
  });

  it('shows a wallet’s accounts before → after with chain and path', () => {
    const described = describeIntent('ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', {
      walletId: 'w-1',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/1", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    });
    expect(texts(described.changes[0]!.before)).toEqual(["Ethereum m/44'/60'/0'/0/0 0xabc", "Solana m/44'/501'/0'/0' So1"]);
    expect(texts(described.changes[0]!.after)?.at(-1)).toBe("Ethereum m/44'/60'/0'/0/1");
    expect(described.summary).toBe('Treasury: 1 new account');
  });
});

describe('unknown and signing activities', () => {
  it('describes an unknown type as an unrecognised activity with its raw intent, never blank', () => {
    const intent = { frobnicateIntent: { knob: 11 } };
    const described = describeActivity({ type: 'ACTIVITY_TYPE_FROBNICATE', intent });
    expect(described).toMatchObject({ title: 'Unrecognised activity', recognised: false, rawIntent: intent });
    expect(described.summary).toContain('Frobnicate');
  });

  it('passes signing requests to the clear-signing decoder, and shows the payload without one', () => {
    const intent = {
      signRawPayloadIntentV2: {
        signWith: '0xabc',
        payload: 'deadbeef',
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_KECCAK256',
      },
    };
    const plain = describeActivity({ type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', intent }, lookup);
    expect(plain.signing).toMatchObject({ payloads: ['deadbeef'], signWith: { text: '0xabc' } });
    expect(plain.signing?.decoded).toBeUndefined();
    expect(plain.facts).toContainEqual({
      label: 'Signs with',
      value: [
        { text: '0xabc', code: true },
        { text: 'in Treasury', id: 'w-1' },
      ],
    });
    const decoded = describeActivity({ type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', intent }, lookup, {
      decodeSigning: (request, activity) => ({
        title: 'Sign a message',
        summary: `${request.payloads.length} payload for ${Object.keys(activity.intent)[0]}`,
        facts: [{ label: 'Message', value: [{ text: 'hello' }] }],
        warnings: ['The message names another chain.'],
      }),
    });
    expect(decoded).toMatchObject({
      title: 'Sign a message',
      summary: '1 payload for signRawPayloadIntentV2',
      warnings: ['The message names another chain.'],
    });
    expect(decoded.signing?.decoded).toEqual([{ label: 'Message', value: [{ text: 'hello' }] }]);
  });
});

describe('settled activities', () => {
  it('do not take the organization as it stands now for their "before"', () => {
    const settled = { settled: true };
    const renamed = describeActivity(
      { type: 'ACTIVITY_TYPE_UPDATE_USER_NAME', intent: { updateUserNameIntent: { userId: ALICE, userName: 'Alice' } } },
      lookup,
      settled,
    );
    expect(renamed.changes).toEqual([{ label: 'Name', before: undefined, after: [{ text: 'Alice' }] }]);
    const policy = describeActivity(
      { type: 'ACTIVITY_TYPE_UPDATE_POLICY_V2', intent: { updatePolicyIntentV2: { policyId: 'pol-1', policyEffect: 'EFFECT_ALLOW' } } },
      lookup,
      settled,
    );
    expect(policy.changes).toEqual([{ label: 'Effect', before: undefined, after: [{ text: 'Allow' }] }]);
    const keys = describeActivity(
      { type: 'ACTIVITY_TYPE_DELETE_API_KEYS', intent: { deleteApiKeysIntent: { userId: ALICE, apiKeyIds: ['key-a'] } } },
      lookup,
      settled,
    );
    expect(keys.warnings).toEqual([]);
    expect(keys.deletions).toEqual([{ what: { text: 'key-a', code: true }, kind: 'API key' }]);
    const accounts = describeActivity(
      {
        type: 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS',
        intent: {
          createWalletAccountsIntent: { walletId: 'w-1', accounts: [{ path: "m/44'/60'/0'/0/1", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }] },
        },
      },
      lookup,
      settled,
    );
    expect(accounts.changes).toEqual([]);
    expect(accounts.facts).toContainEqual({ label: 'Accounts added', value: [{ text: "Ethereum m/44'/60'/0'/0/1", code: false }] });
  });
});

describe("clear signing through main's hook", () => {
  it('reads a raw payload signing request with the signer named from the lookup', () => {
    const intent = {
      signRawPayloadIntentV2: {
        signWith: '0xabc',
        payload: '68656c6c6f',
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_KECCAK256',
      },
    };
    const wallets = [{ walletId: 'w-1', walletName: 'Treasury', accounts: [{ address: '0xabc' }] }];
    const described = describeActivity({ type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', intent }, lookup, { decodeSigning: signingDecoder({ wallets }) });
    expect(described.title).toMatch(/^Sign /);
    expect(described.signing?.decoded?.find((fact) => fact.label === 'Signer')?.value[0]?.text).toContain('Treasury');
  });

  it('reads a token amount in the units an operator declared, as the signing card does', () => {
    const acme = '0x0000000000000000000000000000000000000ace';
    const unsignedTransaction = serializeTransaction({
      type: 'eip1559',
      chainId: 1,
      nonce: 0,
      gas: 60_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      to: acme,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: ['0x1111111111111111111111111111111111111111', 123_456n] }),
    });
    const intent = { signTransactionIntentV2: { signWith: '0xabc', unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' } };
    const summary = (context: ClearSigningContext) =>
      describeActivity({ type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', intent }, lookup, { decodeSigning: signingDecoder(context) }).summary;
    // The interface is uploaded (so the call decodes) but says nothing of decimals.
    const withAbi: ClearSigningContext = { contracts: [{ address: acme, type: 'ETHEREUM', label: 'Acme token', definition: erc20Abi }] };
    expect(summary(withAbi)).toContain('123456 raw units');
    const declared: ClearSigningContext = { ...withAbi, tokens: [{ family: 'ethereum', chainId: 1, address: acme, symbol: 'ACME', decimals: 2 }] };
    expect(summary(declared)).toContain('1,234.56 ACME');
  });

  it('falls back to the payload when clear signing cannot read the request', () => {
    const intent = { signTransactionIntentV2: { signWith: '0xabc', unsignedTransaction: 'zz', type: 'TRANSACTION_TYPE_ETHEREUM' } };
    const described = describeActivity({ type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', intent }, lookup, { decodeSigning: signingDecoder({}) });
    expect(described.title).toBe('Sign a transaction');
    expect(described.signing?.decoded).toBeUndefined();
    expect(described.signing?.payloads).toEqual(['zz']);
  });
});
