import { describe, expect, it, vi } from 'vitest';
import { QkError } from '../../src/shared/errors';
import { bridgeError, createBridgeApi, withPlainErrors } from '../../src/shared/ipc/bridge';
import { channels, ipcContract, splitChannel, type Channel, type ChannelOutput } from '../../src/shared/ipc/contract';
import { createDispatch, registerIpcHandlers, type IpcHandlers } from '../../src/main/ipc/register';
import { createRendererUrlCheck } from '../../src/main/ipc/sender';
import { AppLock, guardWhileLocked, CHANNELS_OPEN_WHILE_LOCKED } from '../../src/main/lock/lock';

const RENDERER_URL = 'file:///opt/QuorumKey/resources/app.asar/out/renderer/index.html';
const isTrustedSender = createRendererUrlCheck({ rendererIndexPath: '/opt/QuorumKey/resources/app.asar/out/renderer/index.html' });

const appInfo = {
  version: '0.1.0',
  platform: 'linux',
  packaged: false,
  locked: false,
  unlockPassphraseSet: false,
  touchIdAvailable: false,
  captureProtectionSupported: false,
};
const apiKey = {
  name: 'ops',
  id: 'k1',
  curve: 'p256' as const,
  publicKey: '02' + 'ab'.repeat(32),
  createdAt: '2025-01-01T00:00:00.000Z',
  missing: false,
  usedByProfiles: ['Sandbox'],
};
const encryptionKey = { name: 'target', id: 'k2', publicKey: '04' + 'cd'.repeat(64), createdAt: '2025-01-01T00:00:00Z', missing: false };
const profile = {
  id: '4b1e3f0c-5a0e-4c55-9d33-1f2a7e9c0b11',
  name: 'Sandbox',
  kind: 'sandbox',
  baseUrl: 'http://127.0.0.1:8080',
  organizationId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  apiKeyName: 'ops',
  enclaveSignerPublicKey: '04' + 'ef'.repeat(64),
} as const;
const settings = {
  idleLockMinutes: 10,
  reauthMinutes: 5,
  theme: 'system',
  captureProtection: true,
  inbox: { intervalSeconds: 10, notifyWaiting: true, notifyDecided: true, notifyExpiring: true },
} as const;
const FINGERPRINT = `sha256:${'0f'.repeat(32)}`;
const voter = { userId: 'u1', userName: 'Root', selection: 'approved', votedAtMs: 1_700_000_000_000, expired: false } as const;
const activity: ChannelOutput<'activities.get'> = {
  id: 'a1',
  organizationId: profile.organizationId,
  type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
  status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
  fingerprint: FINGERPRINT,
  intent: { createPolicyIntentV3: { policyName: 'p', effect: 'EFFECT_ALLOW' } },
  voters: [voter],
  approvals: 1,
  timeLeftMs: 3_600_000,
  canApprove: true,
  canReject: true,
  createdAtMs: 1_700_000_000_000,
  updatedAtMs: 1_700_000_000_500,
};
const waiting = { state: 'consensus-needed', activity } as const;
const completed: ChannelOutput<'activities.get'> = { ...activity, status: 'ACTIVITY_STATUS_COMPLETED' };
const reading: ChannelOutput<'activities.list'>[number]['reading'] = {
  type: activity.type,
  kind: 'activity',
  title: 'Create a policy',
  recognised: true,
  summary: 'Allow transfers: Allow',
  facts: [],
  changes: [{ label: 'Name', before: [], after: [{ text: 'Allow transfers' }] }],
  deletions: [],
  warnings: [],
};
const sandboxStatus = {
  running: true,
  state: 'running' as const,
  error: null,
  restarts: 0,
  notice: null,
  profileId: profile.id,
  organizationId: profile.organizationId,
  rootUserId: 'u1',
  baseUrl: 'http://127.0.0.1:41234',
  enclaveSignerPublicKey: profile.enclaveSignerPublicKey,
};
const policy = {
  policyId: 'p1',
  policyName: 'allow ops',
  effect: 'EFFECT_ALLOW',
  condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'",
  consensus: "approvers.any(user, user.id == 'u1')",
  time: "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')",
  notes: '',
  createdAtMs: 1_700_000_000_000,
  updatedAtMs: 1_700_000_000_000,
} as const;
const address = { format: 'ADDRESS_FORMAT_ETHEREUM', address: '0x' + '12'.repeat(20) } as const;
const mnemonic = { kind: 'mnemonic', mnemonic: 'abandon '.repeat(11) + 'about', language: 'MNEMONIC_LANGUAGE_ENGLISH' } as const;

const signingStanding: ChannelOutput<'signing.preview'>['standing'] = {
  outcome: 'NEEDS_CONSENSUS',
  matchedPolicies: [{ policyId: 'p1', policyName: 'allow ops', effect: 'EFFECT_ALLOW', outcome: 'NEEDS_CONSENSUS' }],
  failedPolicies: [],
  stillToVote: [],
  consensusNeeds: 'needs 1 more approver tagged ops',
  viewerCanApprove: true,
  why: [
    {
      policyId: 'p1',
      policyName: 'allow ops',
      field: 'consensus',
      outcome: 'false',
      parts: [
        {
          pieces: [{ text: 'approvers.any(user, user.id == ' }, { text: "'u1'", name: 'Bea', kind: 'user' }, { text: ')' }],
          line: 1,
          column: 1,
          outcome: 'false',
          reads: [{ expression: 'approvers', value: '1 item' }],
        },
      ],
    },
  ],
};
const signingCard: ChannelOutput<'signing.preview'> = {
  description: {
    title: 'Sign an Ethereum transaction',
    summary: 'Send 1 ETH',
    warnings: [{ kind: 'NEW_RECIPIENT', message: 'This organization has never sent to this address.', subject: address.address }],
  },
  facts: [
    { label: 'Signer', value: [{ text: 'Treasury', id: address.address }] },
    { label: 'Value', value: [{ text: '1 ETH', id: '1000000000000000000 wei' }] },
    {
      label: 'Call',
      value: [{ text: 'transfer(address,uint256)', code: true }],
      children: [{ label: 'amount', value: [{ text: '5 USDC' }, { text: 'known token list', note: true }] }],
    },
  ],
  standing: signingStanding,
};

const token = { module: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'qk' };
const tokenKeyInfo = {
  ...token,
  keyLabel: 'ops-1',
  keyId: '0a1b',
  publicKey: `02${'ab'.repeat(32)}`,
  canSign: true,
  keptOnToken: true,
  usedByProfiles: [],
};

/** One valid answer per channel; typed by the handler table, so a new channel without a sample is a type error. */
const sampleOutputs: { [C in Channel]: Awaited<ReturnType<IpcHandlers[C]>> } = {
  'app.info': appInfo,
  'app.lock': null,
  'app.unlock': null,
  'app.reauthenticate': null,
  'app.setUnlockPassphrase': null,
  'app.getSettings': settings,
  'app.setSettings': settings,
  'app.setSecretOnScreen': { captureProtectionSupported: false },
  'clipboard.copySecret': { clearAfterMs: 30_000 },
  'clipboard.clearPasted': null,
  'keys.generateApiKey': apiKey,
  'keys.importApiKey': apiKey,
  'keys.importTkcliApiKey': apiKey,
  'keys.listApiKeys': [apiKey, { ...apiKey, name: 'gone', missing: true, usedByProfiles: [] }],
  'keys.renameApiKey': apiKey,
  'keys.deleteApiKey': null,
  'keys.generateEncryptionKey': encryptionKey,
  'keys.importEncryptionKey': encryptionKey,
  'keys.listEncryptionKeys': [encryptionKey],
  'keys.deleteEncryptionKey': null,
  'keys.pkcs11Modules': [{ path: '/usr/lib/softhsm/libsofthsm2.so', name: 'SoftHSM2' }],
  'keys.listTokens': [{ ...token, serial: '3f2a9c1b7d0e4a55', manufacturer: 'SoftHSM project', model: 'SoftHSM v2' }],
  'keys.listTokenKeys': [tokenKeyInfo],
  'keys.generateTokenKey': tokenKeyInfo,
  'profiles.list': [profile],
  'profiles.get': profile,
  'profiles.getActive': null,
  'profiles.add': profile,
  'profiles.update': profile,
  'profiles.remove': null,
  'profiles.useTokenKey': profile,
  'profiles.setActive': null,
  'requests.pending': [{ id: 'r1', url: 'http://127.0.0.1:41234/public/v1/query/whoami', startedAtMs: 1_700_000_000_000 }],
  'requests.cancel': { cancelled: 1 },
  'sandbox.status': {
    ...sandboxStatus,
    running: false,
    state: 'failed' as const,
    error: 'the sandbox process ended (exit code 1)',
    rootUserId: null,
    baseUrl: null,
  },
  'sandbox.start': sandboxStatus,
  'sandbox.stop': sandboxStatus,
  'sandbox.reset': sandboxStatus,
  'sandbox.restoreProfile': sandboxStatus,
  'activities.list': [
    { ...activity, reading },
    { ...completed, voters: [], failure: { code: 9, message: 'denied' }, reading },
  ],
  'activities.get': activity,
  'approvals.whoami': { organizationId: profile.organizationId, organizationName: 'Sandbox', userId: 'u1', username: 'Root' },
  'approvals.pending': [
    {
      activityId: 'a1',
      type: activity.type,
      fingerprint: FINGERPRINT,
      organizationId: profile.organizationId,
      createdAtMs: activity.createdAtMs,
      approvals: 1,
      proposer: 'Ann',
      voters: [voter],
      timeLeftMs: 1000,
      canApprove: true,
      canReject: true,
      activity,
      reading,
    },
  ],
  'approvals.approve': completed,
  'approvals.reject': { ...activity, status: 'ACTIVITY_STATUS_REJECTED' },
  'approvals.stampToFile': {
    file: '/data/stamped-requests/approval.json',
    stampedRequestsDir: '/data/stamped-requests',
    path: '/public/v1/submit/approve_activity',
    body: '{}',
  },
  'approvals.postStampedFile': completed,
  'inbox.list': { waitingForMe: 0, profiles: [] },
  'inbox.vote': completed,
  'inbox.clearDecided': null,
  'passkeys.notices': [
    {
      activityId: 'a1',
      what: 'Security key "yk" was not added to profile "Bea": its registration was rejected by a vote (activity a1).',
      next: 'Add it again.',
    },
  ],
  'passkeys.dismissNotice': null,
  'organization.lookup': {
    organizationId: 'o1',
    organizationName: 'Acme',
    users: [{ userId: 'u1', userName: 'Alice', userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }],
    tags: [],
    rootQuorum: { userIds: ['u1'], threshold: 1 },
    policies: [{ ...policy, activeNow: true }],
    wallets: [],
    walletAccounts: [],
    privateKeys: [],
    localExportKeys: [],
    contracts: [],
    declaredTokens: [{ family: 'ethereum', chainId: 1, address: '0x0000000000000000000000000000000000000abc', symbol: 'ACME', decimals: 2 }],
  },
  'organization.updateRootQuorum': { state: 'consensus-needed', activity: completed },
  'users.create': { state: 'completed', result: { userId: 'u2' }, activity: completed },
  'users.delete': { state: 'completed', result: { userIds: ['u2'] }, activity: completed },
  'users.deletionCheck': { refusal: 'it deletes Alice, a member of the root quorum' },
  'users.credentials': {
    userId: 'u1',
    userName: 'Alice',
    credentials: [
      {
        id: 'k1',
        name: 'ops-1',
        kind: 'token-key',
        kindInWords: 'API key on hardware token "yk" (key "ops-1") of this desktop',
        profiles: ['Ops'],
        working: true,
        leaves: 'no working credential',
        refusal: 'it removes API key "ops-1" of Alice, the key profile "Ops" signs with',
      },
    ],
  },
  'users.setTags': { state: 'completed', result: { userId: 'u2' }, activity: completed },
  'users.createTag': { state: 'completed', result: { tagId: 't1' }, activity: completed },
  'users.addApiKey': { state: 'completed', result: { apiKeyIds: ['k1'] }, activity: completed },
  'users.removeApiKeys': { state: 'completed', result: { apiKeyIds: ['k1'] }, activity: completed },
  'users.addPasskey': { state: 'completed', result: { authenticatorIds: ['a1'] }, activity: completed },
  'exports.requests': [{ activityId: 'a1', what: 'wallet Treasury', sealedTo: { kind: 'one-time' }, requestedAtMs: 1, approved: true }],
  'exports.withdraw': { activityId: 'a1', rejected: true, summary: 'The export of wallet Treasury was rejected.' },
  'exports.saveBundle': { file: '/data/exports/treasury.json', exportsDir: '/data/exports' },
  'policies.list': [
    {
      ...policy,
      reading: {
        condition: [{ text: policy.condition }],
        consensus: [{ text: 'approvers.any(user, user.id == ' }, { text: "'u1'", name: 'Bea', kind: 'user' }, { text: ')' }],
        time: [{ text: policy.time }],
      },
    },
  ],
  'policies.mfaList': [
    {
      mfaPolicyId: 'm1',
      mfaPolicyName: 'Signing from the desk',
      userId: 'u1',
      userName: 'Bea',
      order: 0,
      condition: "activity.action == 'SIGN'",
      conditionReading: [{ text: "activity.action == 'SIGN'" }],
      requirement: 'need, in order: a passkey, then an API key — for Bea',
      steps: [{ any: [{ type: 'AUTHENTICATION_TYPE_PASSKEY' }] }, { any: [{ type: 'AUTHENTICATION_TYPE_API_KEY' }] }],
    },
  ],
  'policies.review': [
    {
      field: 'consensus',
      label: 'Consensus',
      pieces: [
        { text: '1,000', change: 'removed', units: '0.001 USDC' },
        { text: '2,000', change: 'added' },
      ],
    },
  ],
  'policies.read': { condition: [{ text: 'true' }], consensus: [{ text: "'tag-1'", name: 'ops', kind: 'tag' }], time: [] },
  'policies.get': policy,
  'policies.create': { state: 'completed', result: { policyId: 'p1' }, activity: completed },
  'policies.update': waiting,
  'policies.delete': { state: 'rejected', activity },
  'policies.mfaCreate': { state: 'completed', result: { mfaPolicyId: 'm1' }, activity: completed },
  'policies.mfaUpdate': waiting,
  'policies.mfaDelete': { state: 'completed', result: { mfaPolicyId: 'm1' }, activity: completed },
  'policies.lint': [
    {
      rule: 'unknown-interface-name',
      severity: 'warning',
      field: 'condition',
      span: { offset: 26, line: 1, column: 27, length: 7 },
      message:
        "No uploaded ABI has an argument named 'amout' (did you mean 'amount'?), so no decoded call has it: reading it is an evaluation error, and the policy does not apply.",
      suggestion: 'amount',
    },
  ],
  'policies.rehearse': {
    replayed: 1,
    unreproduced: [],
    changes: [
      {
        activityId: 'a1',
        type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
        reading: 'Send 500 USDC',
        createdAtMs: 1,
        before: 'allowed',
        after: 'consensus-needed',
        approvalsBefore: 1,
        approvalsAfter: 1,
        words: "was allowed on the proposer's vote alone, would now wait for approvals beyond the proposer's",
        policies: [{ policyId: 'p1', policyName: 'limit', before: 'OUTCOME_ALLOW', after: 'OUTCOME_REQUIRES_CONSENSUS' }],
      },
    ],
    totals: { allowedToDenied: 0, deniedToAllowed: 0, toConsensus: 1, fromConsensus: 0, fewerApprovals: 0, moreApprovals: 0, unchanged: 0 },
  },
  'policies.dryRun': {
    ...signingCard,
    policies: [{ policyId: 'p1', policyName: 'allow ops', effect: 'EFFECT_ALLOW', verdict: 'needs consensus' }],
  },
  'signing.describe': { ...signingCard, activity: waiting.activity },
  'signing.preview': signingCard,
  'signing.submit': { state: 'completed', result: { kind: 'signed-transaction', signedTransaction: '02f8' }, activity: completed },
  'signing.result': { activity: completed, result: { kind: 'signatures', signatures: [{ r: '01', s: '02', v: '00' }] } },
  'signing.saveResult': { file: '/data/signatures/payout.json', signaturesDir: '/data/signatures' },
  'signing.stampToFile': {
    file: '/data/stamped-requests/sign-1.json',
    stampedRequestsDir: '/data/stamped-requests',
    path: '/public/v1/submit/sign_transaction',
    body: '{}',
  },
  'simulation.forActivity': {
    status: 'simulated',
    block: { number: '21,000,000', hash: `0x${'ab'.repeat(32)}` },
    node: 'https://node.example',
    lines: [{ kind: 'balance', text: 'Treasury (0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266): −1.5 ETH (network fee included)' }],
  },
  'simulation.saveStateBundle': { saved: true, file: '/home/alice/state-bundle.json', block: '21,000,000' },
  'simulation.fromStateBundle': {
    status: 'simulated',
    block: { number: '21,000,000', hash: `0x${'ab'.repeat(32)}` },
    stateBundle: { madeBy: 'alice of Acme, from the node at https://node.example', madeAt: '2026-11-29T06:00:00.000Z', forThisTransaction: true },
    lines: [{ kind: 'balance', text: 'Treasury (0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266): −1.5 ETH (network fee included)' }],
  },
  'simulation.forRequest': { status: 'not-simulated', reason: 'no node set for Ethereum (eip155:1) in Settings' },
  'contracts.list': [
    {
      smartContractInterfaceId: 'c1',
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      address: address.address,
      label: 'USDC',
      notes: '',
      network: 'Ethereum (chain id 1)',
      summary: '1 function',
      definition: '[]',
      createdAtMs: 1_700_000_000_000,
    },
  ],
  'contracts.check': { summary: '1 function' },
  'contracts.create': { state: 'completed', result: { smartContractInterfaceId: 'c1' }, activity: completed },
  'contracts.delete': waiting,
  'tokens.list': [{ family: 'ethereum', chainId: 1, address: address.address, symbol: 'ACME', decimals: 2 }],
  'tokens.catalog': [
    {
      token: { family: 'ethereum', chainId: 1, address: address.address },
      symbol: 'ACME',
      decimals: 2,
      origin: 'declared by an operator',
      network: 'Ethereum (chain id 1)',
      warnAbove: '10000',
    },
  ],
  'tokens.declare': [{ family: 'solana', address: 'So11111111111111111111111111111111111111112', symbol: 'wSOL', decimals: 9, name: 'Wrapped SOL' }],
  'tokens.remove': [],
  'addressBook.list': [{ family: 'ethereum', chainId: 1, address: address.address, name: 'Payroll' }],
  'addressBook.add': [{ family: 'solana', address: 'So11111111111111111111111111111111111111112', name: 'Desk' }],
  'addressBook.rename': [{ family: 'bitcoin', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', name: 'Cold' }],
  'addressBook.remove': [],
  'wallets.list': [
    { walletId: 'w1', walletName: 'Treasury', createdAtMs: 1_700_000_000_000, updatedAtMs: 1_700_000_000_000, exported: false, imported: true },
  ],
  'wallets.accounts': [
    {
      walletAccountId: 'wa1',
      walletId: 'w1',
      curve: 'CURVE_SECP256K1',
      pathFormat: 'PATH_FORMAT_BIP32',
      path: "m/44'/60'/0'/0/0",
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
      address: address.address,
      createdAtMs: 1_700_000_000_000,
    },
  ],
  'wallets.create': { state: 'completed', result: { walletId: 'w1', addresses: [address.address] }, activity: completed },
  'wallets.createAccounts': waiting,
  'privateKeys.list': [
    {
      privateKeyId: 'pk1',
      privateKeyName: 'hot',
      curve: 'CURVE_SECP256K1',
      publicKey: '02' + 'ab'.repeat(32),
      addresses: [address],
      tags: [],
      createdAtMs: 1_700_000_000_000,
      exported: false,
      imported: false,
    },
  ],
  'privateKeys.create': { state: 'completed', result: { privateKeyId: 'pk1', addresses: [address] }, activity: completed },
  'exports.reveal': { state: 'revealed', secret: mnemonic, activityId: 'a1' },
  'exports.decryptBundle': { kind: 'private-key', format: 'hexadecimal', privateKey: '11'.repeat(32) },
  'imports.wallet': { state: 'imported', result: { walletId: 'w1', addresses: [] }, activity: completed },
  'imports.privateKey': { ...waiting, step: 'init' },
  'journal.list': {
    entries: [
      {
        seq: 1,
        at: '2026-11-26T14:00:00.000Z',
        action: 'vote.approved',
        profileId: 'profile-1',
        activityId: 'activity-1',
        reading: { title: 'Send 1 ETH', summary: 'to 0xabc', facts: [{ label: 'Value', value: '1 ETH' }], warnings: [], verdict: 'completed' },
        appProofCount: 1,
        vouchedBy: [
          { fingerprint: 'ef'.repeat(32), subject: 'CN=QuorumKey Sandbox attestation root', pinnedAs: "Sandbox, this desktop's own service" },
        ],
      },
    ],
    verification: {
      valid: true,
      count: 2,
      journalKey: `04${'ab'.repeat(64)}`,
      head: 'cd'.repeat(32),
      tornTail: false,
      pinnedRoots: [{ fingerprint: 'ef'.repeat(32), name: "Sandbox, this desktop's own service" }],
    },
  },
  'journal.verify': {
    valid: false,
    count: 1,
    tornTail: false,
    pinnedRoots: [],
    problem: { kind: 'signature', line: 2, seq: 1, message: 'entry 1: the signature does not verify' },
  },
  'journal.export': { file: '/data/journal-exports/audit.jsonl', checkpointFile: '/data/journal-exports/audit.checkpoint.json', count: 2 },
  'journal.checkpoint': { file: '/data/journal-exports/head.json', count: 2, head: 'cd'.repeat(32) },
};

/** A handler table whose every handler records its input and answers its channel's sample output. */
function recordingHandlers(): { handlers: IpcHandlers; calls: [Channel, unknown][] } {
  const calls: [Channel, unknown][] = [];
  const handlers = Object.fromEntries(
    channels.map((name) => [
      name,
      async (input: unknown) => {
        calls.push([name, input]);
        return sampleOutputs[name];
      },
    ]),
  ) as unknown as IpcHandlers;
  return { handlers, calls };
}

describe('createRendererUrlCheck', () => {
  it('accepts only the built index.html (with any fragment) or the dev server origin', () => {
    expect(isTrustedSender(RENDERER_URL)).toBe(true);
    expect(isTrustedSender(`${RENDERER_URL}#/keys`)).toBe(true);
    expect(isTrustedSender(`${RENDERER_URL}?x=1`)).toBe(false);
    expect(isTrustedSender('file:///opt/QuorumKey/resources/app.asar/out/renderer/other.html')).toBe(false);
    expect(isTrustedSender('file:///tmp/index.html')).toBe(false);
    expect(isTrustedSender('https://evil.example/')).toBe(false);
    expect(isTrustedSender('not a url')).toBe(false);
    expect(isTrustedSender('http://localhost:5173/')).toBe(false);

    const dev = createRendererUrlCheck({ rendererIndexPath: '/x/index.html', devServerUrl: 'http://localhost:5173' });
    expect(dev('http://localhost:5173/#/keys')).toBe(true);
    expect(dev('http://localhost:5174/')).toBe(false);
    expect(dev('https://localhost:5173/')).toBe(false);
  });
});

describe('createDispatch', () => {
  it('refuses a handler table with a channel missing', () => {
    const { handlers } = recordingHandlers();
    const { ['keys.listApiKeys']: _missing, ...incomplete } = handlers;
    expect(() => createDispatch({ handlers: incomplete as IpcHandlers, isTrustedSender })).toThrow(/keys\.listApiKeys/);
  });

  it('serves a valid request from the renderer', async () => {
    const { handlers, calls } = recordingHandlers();
    const dispatch = createDispatch({ handlers, isTrustedSender });
    expect(await dispatch('app.info', {}, RENDERER_URL)).toEqual({ ok: true, value: appInfo });
    expect(await dispatch('keys.renameApiKey', { name: 'a', newName: 'b' }, RENDERER_URL)).toEqual({ ok: true, value: apiKey });
    expect(calls).toEqual([
      ['app.info', {}],
      ['keys.renameApiKey', { name: 'a', newName: 'b' }],
    ]);
  });

  it('rejects foreign and unknown senders before touching the handler', async () => {
    const { handlers, calls } = recordingHandlers();
    const dispatch = createDispatch({ handlers, isTrustedSender });
    for (const sender of ['https://evil.example/index.html', 'file:///tmp/index.html', undefined]) {
      const result = await dispatch('keys.listApiKeys', {}, sender);
      expect(result).toMatchObject({ ok: false, error: { code: 'IPC_SENDER_REJECTED' } });
    }
    expect(calls).toEqual([]);
  });

  it('names the field of an invalid input and an unknown channel', async () => {
    const { handlers, calls } = recordingHandlers();
    const dispatch = createDispatch({ handlers, isTrustedSender });
    const bad = await dispatch('keys.renameApiKey', { name: 'a', newName: 7 }, RENDERER_URL);
    expect(bad).toMatchObject({ ok: false, error: { code: 'REQUEST_INVALID', details: { issues: [{ path: ['newName'] }] } } });
    expect(bad.ok === false && bad.error.message).toMatch(/newName/);
    expect(await dispatch('keys.exportEverything', {}, RENDERER_URL)).toMatchObject({
      ok: false,
      error: { code: 'OPERATION_NOT_FOUND' },
    });
    expect(calls).toEqual([]);
  });

  it('turns a handler error into its ErrorData and an unexpected throw into INTERNAL', async () => {
    const { handlers } = recordingHandlers();
    const dispatch = createDispatch({
      handlers: {
        ...handlers,
        'keys.deleteApiKey': async () => {
          throw new QkError('KEY_NOT_FOUND', 'no API key named "a"', { name: 'a' });
        },
        'keys.listApiKeys': async () => {
          throw new TypeError('boom');
        },
      },
      isTrustedSender,
    });
    expect(await dispatch('keys.deleteApiKey', { name: 'a' }, RENDERER_URL)).toEqual({
      ok: false,
      error: { code: 'KEY_NOT_FOUND', message: 'no API key named "a"', details: { name: 'a' } },
    });
    expect(await dispatch('keys.listApiKeys', {}, RENDERER_URL)).toEqual({
      ok: false,
      error: { code: 'INTERNAL', message: 'unexpected error: boom' },
    });
  });

  it('refuses to return an output with a field outside the contract, without echoing its value', async () => {
    const { handlers } = recordingHandlers();
    const secret = 'a'.repeat(64);
    const leaky = {
      ...handlers,
      'keys.generateEncryptionKey': async () => ({
        name: 'k',
        id: 'id-1',
        publicKey: '04' + 'b'.repeat(128),
        createdAt: '2025-01-01T00:00:00.000Z',
        missing: false,
        privateKey: secret,
      }),
    } as unknown as IpcHandlers;
    const result = await createDispatch({ handlers: leaky, isTrustedSender })('keys.generateEncryptionKey', { name: 'k' }, RENDERER_URL);
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(JSON.stringify(result)).toContain('privateKey');
  });
});

describe('registerIpcHandlers', () => {
  function fakeIpcMain() {
    const registered = new Map<string, (event: unknown, input: unknown) => Promise<unknown>>();
    const handle = vi.fn((name: string, listener: (event: unknown, input: unknown) => Promise<unknown>) => {
      if (registered.has(name)) throw new Error(`second handler for ${name}`);
      registered.set(name, listener);
    });
    return { ipcMain: { handle }, registered };
  }

  it('registers every contract channel exactly once and nothing else', () => {
    const { ipcMain, registered } = fakeIpcMain();
    registerIpcHandlers({ ipcMain: ipcMain, handlers: recordingHandlers().handlers, isTrustedSender });
    expect(ipcMain.handle).toHaveBeenCalledTimes(channels.length);
    expect([...registered.keys()].sort()).toEqual([...channels].sort());
  });

  it('checks the sending frame: top-level renderer only', async () => {
    const { ipcMain, registered } = fakeIpcMain();
    const { handlers, calls } = recordingHandlers();
    registerIpcHandlers({ ipcMain: ipcMain, handlers, isTrustedSender });
    const listener = registered.get('app.info')!;
    const top = { url: RENDERER_URL, parent: null };
    expect(await listener({ senderFrame: top }, {})).toEqual({ ok: true, value: appInfo });
    const rejected = [
      { senderFrame: null },
      { senderFrame: { url: 'https://evil.example/', parent: null } },
      { senderFrame: { url: RENDERER_URL, parent: top } },
      {
        get senderFrame(): never {
          throw new Error('Render frame was disposed before WebFrameMain could be accessed');
        },
      },
    ];
    for (const event of rejected) {
      expect(await listener(event, {})).toMatchObject({ ok: false, error: { code: 'IPC_SENDER_REJECTED' } });
    }
    expect(calls).toHaveLength(1);
  });
});

const noEvents = () => () => undefined;

describe('createBridgeApi', () => {
  it('round-trips every sample output through dispatch and the bridge', async () => {
    const dispatch = createDispatch({ handlers: recordingHandlers().handlers, isTrustedSender });
    const api = createBridgeApi((name, input) => dispatch(name, input, RENDERER_URL), noEvents) as unknown as Record<
      string,
      Record<string, () => Promise<unknown>>
    >;
    for (const name of ['app.info', 'app.getSettings', 'keys.listApiKeys', 'keys.listEncryptionKeys', 'profiles.list'] as const) {
      const [namespace, method] = splitChannel(name);
      expect(await api[namespace]![method]!()).toEqual(sampleOutputs[name]);
    }
  });

  it('exposes exactly one named method per channel, onEvent, and nothing else', () => {
    const { onEvent, ...api } = createBridgeApi(async () => ({ ok: true, value: null }), noEvents) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    expect(typeof onEvent).toBe('function');
    const exposed = Object.entries(api).flatMap(([namespace, methods]) =>
      Object.entries(methods).map(([method, fn]) => {
        expect(typeof fn).toBe('function');
        return `${namespace}.${method}`;
      }),
    );
    expect(exposed.sort()).toEqual([...channels].sort());
    expect(api).not.toHaveProperty('invoke');
    for (const name of channels) expect(splitChannel(name).join('.')).toBe(name);
  });

  it('onEvent hands each pushed event to the listener until it stops, also through withPlainErrors', () => {
    const listeners = new Set<(event: unknown) => void>();
    const api = withPlainErrors(
      createBridgeApi(
        async () => ({ ok: true, value: null }),
        (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      ),
    );
    const seen: unknown[] = [];
    const stop = api.onEvent((event) => seen.push(event));
    for (const listener of listeners) listener({ type: 'lock', locked: true });
    stop();
    expect(listeners.size).toBe(0);
    expect(seen).toEqual([{ type: 'lock', locked: true }]);
  });

  it('sends {} for argument-less methods, unwraps values and throws QkError on errors', async () => {
    const invoke = vi.fn(async (name: Channel, input: unknown) => {
      if (name === 'app.info') return { ok: true, value: appInfo };
      return { ok: false, error: { code: 'KEY_NOT_FOUND', message: `no key ${JSON.stringify(input)}` } };
    });
    const api = createBridgeApi(invoke, noEvents);
    expect(await api.app.info()).toEqual(appInfo);
    expect(invoke).toHaveBeenCalledWith('app.info', {});
    const failure = await api.keys.deleteApiKey({ name: 'x' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QkError);
    expect(failure).toMatchObject({ code: 'KEY_NOT_FOUND', message: 'no key {"name":"x"}' });
  });

  it('treats a malformed answer or a transport failure as a typed error', async () => {
    const malformed = createBridgeApi(async () => ({ ok: true, value: { ...appInfo, privateKey: 'aa' } }), noEvents);
    await expect(malformed.app.info()).rejects.toMatchObject({ code: 'RESPONSE_INVALID' });
    const broken = createBridgeApi(async () => {
      throw new Error("No handler registered for 'app.info'");
    }, noEvents);
    await expect(broken.app.info()).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('withPlainErrors rejects with ErrorData, which bridgeError turns back into the same QkError', async () => {
    const api = withPlainErrors(
      createBridgeApi(async () => ({ ok: false, error: { code: 'APP_LOCKED', message: 'locked', details: { channel: 'app.lock' } } }), noEvents),
    );
    const rejection = await api.app.lock().catch((error: unknown) => error);
    expect(rejection).not.toBeInstanceOf(Error);
    expect(rejection).toEqual({ code: 'APP_LOCKED', message: 'locked', details: { channel: 'app.lock' } });
    const restored = bridgeError(rejection);
    expect(restored).toBeInstanceOf(QkError);
    expect(restored.toData()).toEqual(rejection);
    expect(bridgeError(new Error('plain')).code).toBe('INTERNAL');
  });
});

describe('guardWhileLocked', () => {
  it('answers APP_LOCKED on every channel but unlock, info, getSettings and setSecretOnScreen while locked', async () => {
    const lock = new AppLock();
    const { handlers, calls } = recordingHandlers();
    const dispatch = createDispatch({ handlers: guardWhileLocked(handlers, lock), isTrustedSender });
    lock.lock();
    for (const name of channels) {
      const result = await dispatch(name, name === 'app.setSecretOnScreen' ? { onScreen: false } : {}, RENDERER_URL);
      if (CHANNELS_OPEN_WHILE_LOCKED.has(name)) expect(result.ok, name).toBe(true);
      else expect(result, name).toMatchObject({ ok: false, error: { code: expect.stringMatching(/^(APP_LOCKED|REQUEST_INVALID)$/) } });
    }
    expect(calls.map(([name]) => name).sort()).toEqual([...CHANNELS_OPEN_WHILE_LOCKED].sort());
    lock.unlock();
    expect(await dispatch('keys.listApiKeys', {}, RENDERER_URL)).toMatchObject({ ok: true });
  });
});

describe('bridge method signatures', () => {
  it('take no argument exactly for the channels without input', () => {
    const api = createBridgeApi(async () => ({ ok: true, value: null }), noEvents);
    const noArgument: Channel[] = [];
    for (const name of channels) {
      const [namespace, method] = splitChannel(name);
      const inputSchema = ipcContract[name].input;
      if (inputSchema.safeParse({}).success && Object.keys(inputSchema.shape).length === 0) noArgument.push(name);
      expect(typeof (api as unknown as Record<string, Record<string, unknown>>)[namespace]![method]).toBe('function');
    }
    // Compile-time half: these calls type-check only if the methods take no argument, the others need one.
    void (() => [api.app.info(), api.keys.listApiKeys(), api.profiles.list(), api.profiles.getActive()]);
    // @ts-expect-error renameApiKey needs its input
    void (() => api.keys.renameApiKey());
    expect(noArgument.sort()).toEqual(
      [
        'addressBook.list',
        'app.getSettings',
        'app.info',
        'app.lock',
        'journal.verify',
        'keys.listApiKeys',
        'keys.listEncryptionKeys',
        'keys.pkcs11Modules',
        'profiles.getActive',
        'profiles.list',
        'requests.pending',
        'sandbox.status',
        'sandbox.start',
        'sandbox.stop',
        'sandbox.restoreProfile',
        'approvals.whoami',
        'approvals.pending',
        'inbox.list',
        'inbox.clearDecided',
        'passkeys.notices',
        'organization.lookup',
        'policies.list',
        'policies.mfaList',
        'contracts.list',
        'tokens.list',
        'tokens.catalog',
        'wallets.list',
        'privateKeys.list',
        'exports.requests',
      ].sort(),
    );
  });
});
