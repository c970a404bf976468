/**
 * Issue 22, finding 2: a session profile's scope holds on every authenticated request its session stamps, votes
 * included. Each route is tried with a session in scope and sessions out of it, through Turnkey's official client where
 * it sends the request (the identical-body vote is a raw re-post of the proposal's exact bytes).
 */
import { getAddress, serializeTransaction } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, type Reply, startTestService, type TestKey, type TestService } from '../../support/service';

const SIGN_TRANSACTION = 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2';
/** The issue's own scope: it can judge activities only, so reads (which have none) are not restricted by it. */
const ISSUE_SCOPE = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'";
type SessionName = 'in scope' | 'issue scope' | 'other wallet';

let t: TestService;
let bob: { userId: string; key: TestKey };
let ethereumAddress: string;
let walletId: string;
let otherWalletId: string;
const sessions = {} as Record<SessionName, TestKey>;
let privateKeyIds: string[];
/** A session scoped to the first of two private keys. */
let hotKeySession: TestKey;
/** A session scoped to one wallet account, by its address. */
let accountSession: TestKey;

/** A 403 as the service answers it, or as Turnkey's client throws it (gRPC code 7, PERMISSION_DENIED). */
const REFUSED_AS_OUT_OF_SCOPE = /^(403|Turnkey error 7:) request not authorized: \S+ is outside the scope "/;

/** What became of a request: the activity's status, or the refusal's message. */
type Outcome = { status: string } | { refused: string };

function outcomeOf(reply: Reply): Outcome {
  return reply.status === 200 ? { status: reply.body.activity.status } : { refused: `${reply.status} ${reply.body.message}` };
}

async function clientOutcome(call: Promise<{ activity: { status: string } }>): Promise<Outcome> {
  try {
    return { status: (await call).activity.status };
  } catch (error) {
    return { refused: String((error as Error).message) };
  }
}

let nonce = 0;
/** A distinct transfer each time, so that no two proposals share a fingerprint. */
function transferBody(): string {
  t.clock.advance(1);
  const unsignedTransaction = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: nonce++,
    to: getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8'),
    value: 1n,
    gas: 21000n,
    maxFeePerGas: 1n,
    maxPriorityFeePerGas: 1n,
  }).slice(2);
  return JSON.stringify({
    type: SIGN_TRANSACTION,
    timestampMs: String(t.clock.now()),
    organizationId: t.info.organizationId,
    parameters: { signWith: ethereumAddress, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' },
  });
}

/** A transfer the root user proposes; it waits for bob's vote (a 2-of-2 root quorum). */
async function pendingTransfer(): Promise<{ body: string; fingerprint: string; id: string }> {
  const body = transferBody();
  const proposed = await t.post('/public/v1/submit/sign_transaction', body);
  expect(proposed.body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
  return { body, fingerprint: proposed.body.activity.fingerprint, id: proposed.body.activity.id };
}

async function statusOf(activityId: string): Promise<string> {
  return (await t.query('get_activity', { activityId })).body.activity.status;
}

async function sessionUnder(scope: string): Promise<TestKey> {
  t.clock.advance(1);
  const profile = await t.submit('create_session_profile', 'ACTIVITY_TYPE_CREATE_SESSION_PROFILE', { sessionProfileName: scope, scope });
  const sessionProfileId = profile.body.activity.result.createSessionProfileResult.sessionProfileId;
  const session = newKey('p256');
  t.clock.advance(1);
  const login = await t.submit('stamp_login', 'ACTIVITY_TYPE_STAMP_LOGIN', { publicKey: session.publicKey, sessionProfileId }, { key: bob.key });
  expect(login.body.activity.status, JSON.stringify(login.body)).toBe('ACTIVITY_STATUS_COMPLETED');
  return session;
}

beforeAll(async () => {
  t = await startTestService();
  bob = await t.addUser({ name: 'bob' });
  const account = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' };
  const wallet = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'treasury', accounts: [account] });
  walletId = wallet.body.activity.result.createWalletResult.walletId;
  ethereumAddress = wallet.body.activity.result.createWalletResult.addresses[0];
  t.clock.advance(1);
  const other = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'savings', accounts: [account] });
  otherWalletId = other.body.activity.result.createWalletResult.walletId;
  // Accounts of the two wallets interleaved, so that every page of the organization's accounts holds both.
  for (const index of [1, 2]) {
    for (const id of [walletId, otherWalletId]) {
      t.clock.advance(1);
      const more = await t.submit('create_wallet_accounts', 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', {
        walletId: id,
        accounts: [{ ...account, path: `m/44'/60'/0'/0/${index}` }],
      });
      expect(more.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    }
  }
  t.clock.advance(1);
  const keys = await t.submit('create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
    privateKeys: ['hot', 'cold'].map((privateKeyName) => ({ privateKeyName, curve: 'CURVE_SECP256K1', addressFormats: [], privateKeyTags: [] })),
  });
  privateKeyIds = keys.body.activity.result.createPrivateKeysResultV2.privateKeys.map((key: { privateKeyId: string }) => key.privateKeyId);
  await t.setRootQuorum(1, [t.info.rootUserId, bob.userId]);
  hotKeySession = await sessionUnder(`private_key.id == '${privateKeyIds[0]}'`);
  accountSession = await sessionUnder(`wallet_account.address == '${ethereumAddress}'`);
  sessions['in scope'] = await sessionUnder(`wallet.id == '${walletId}'`);
  sessions['issue scope'] = await sessionUnder(ISSUE_SCOPE);
  sessions['other wallet'] = await sessionUnder(`wallet.id == '${otherWalletId}'`);
  await t.setRootQuorum(2, [t.info.rootUserId, bob.userId]);
});
afterAll(async () => {
  await t.close();
});

interface Route {
  route: string;
  /** Sends the request with `session`; answers its outcome and, for a vote, the activity voted on. */
  send: (session: TestKey) => Promise<{ outcome: Outcome; voted?: string }>;
  /** The outcome with a session in scope. */
  allowed: Outcome;
  /** The sessions whose scope refuses it; the others get `allowed`. */
  refusedFor: SessionName[];
}

const ACTIVITY_ROUTES_REFUSED_FOR: SessionName[] = ['issue scope', 'other wallet'];
/** A read has no activity: only a scope that can judge the resource read restricts it. */
const QUERY_ROUTES_REFUSED_FOR: SessionName[] = ['other wallet'];

async function queryOutcome(call: Promise<unknown>): Promise<Outcome> {
  try {
    await call;
    return { status: 'read' };
  } catch (error) {
    return { refused: String((error as Error).message) };
  }
}

const ROUTES: Route[] = [
  {
    route: 'proposal (sign_transaction)',
    send: async (session) => ({ outcome: outcomeOf(await t.post('/public/v1/submit/sign_transaction', transferBody(), { key: session })) }),
    allowed: { status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED' },
    refusedFor: ACTIVITY_ROUTES_REFUSED_FOR,
  },
  {
    route: 'identical-body vote',
    send: async (session) => {
      const pending = await pendingTransfer();
      return { outcome: outcomeOf(await t.post('/public/v1/submit/sign_transaction', pending.body, { key: session })), voted: pending.id };
    },
    allowed: { status: 'ACTIVITY_STATUS_COMPLETED' },
    refusedFor: ACTIVITY_ROUTES_REFUSED_FOR,
  },
  {
    route: 'approve_activity',
    send: async (session) => {
      const pending = await pendingTransfer();
      const call = t
        .client(session)
        .approveActivity({ ...t.nextEnvelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'), parameters: { fingerprint: pending.fingerprint } });
      return { outcome: await clientOutcome(call), voted: pending.id };
    },
    allowed: { status: 'ACTIVITY_STATUS_COMPLETED' },
    refusedFor: ACTIVITY_ROUTES_REFUSED_FOR,
  },
  {
    route: 'reject_activity',
    send: async (session) => {
      const pending = await pendingTransfer();
      const call = t
        .client(session)
        .rejectActivity({ ...t.nextEnvelope('ACTIVITY_TYPE_REJECT_ACTIVITY'), parameters: { fingerprint: pending.fingerprint } });
      return { outcome: await clientOutcome(call), voted: pending.id };
    },
    allowed: { status: 'ACTIVITY_STATUS_REJECTED' },
    refusedFor: ACTIVITY_ROUTES_REFUSED_FOR,
  },
  {
    route: 'get_wallet',
    send: async (session) => ({ outcome: await queryOutcome(t.client(session).getWallet({ organizationId: t.info.organizationId, walletId })) }),
    allowed: { status: 'read' },
    refusedFor: QUERY_ROUTES_REFUSED_FOR,
  },
  {
    route: 'list_wallet_accounts',
    send: async (session) => ({
      outcome: await queryOutcome(t.client(session).getWalletAccounts({ organizationId: t.info.organizationId, walletId })),
    }),
    allowed: { status: 'read' },
    refusedFor: QUERY_ROUTES_REFUSED_FOR,
  },
  {
    route: 'get_wallet_account',
    send: async (session) => ({
      outcome: await queryOutcome(t.client(session).getWalletAccount({ organizationId: t.info.organizationId, walletId, address: ethereumAddress })),
    }),
    allowed: { status: 'read' },
    refusedFor: QUERY_ROUTES_REFUSED_FOR,
  },
];

describe('finding 2: a session profile scope holds on every authenticated route', () => {
  it.each(ROUTES)('$route: allowed in scope, refused out of scope with nothing changed', async ({ send, allowed, refusedFor }) => {
    expect((await send(sessions['in scope'])).outcome).toEqual(allowed);
    for (const name of ['issue scope', 'other wallet'] as const) {
      const { outcome, voted } = await send(sessions[name]);
      if (!refusedFor.includes(name)) {
        expect(outcome, name).toEqual(allowed);
        continue;
      }
      expect(outcome, name).toEqual({ refused: expect.stringMatching(REFUSED_AS_OUT_OF_SCOPE) });
      if (voted !== undefined) expect(await statusOf(voted), name).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    }
  });

  it('get_private_key: a scope over private_key reads the key it names and no other', async () => {
    const read = (privateKeyId: string) =>
      queryOutcome(t.client(hotKeySession).getPrivateKey({ organizationId: t.info.organizationId, privateKeyId }));
    expect(await read(privateKeyIds[0]!)).toEqual({ status: 'read' });
    expect(await read(privateKeyIds[1]!)).toEqual({
      refused: expect.stringMatching(/^Turnkey error 7: request not authorized: get_private_key is outside the scope "private_key\.id == /),
    });
  });

  it("issue 36 finding 7: list_wallet_accounts without walletId answers only the accounts in the session's scope", async () => {
    const pages = async (session: TestKey) => {
      const walletIds: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const paginationOptions = { limit: '2', ...(after === undefined ? {} : { after }) };
        const reply = await t.query('list_wallet_accounts', { paginationOptions }, { key: session });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        const accounts = reply.body.accounts as { walletAccountId: string; walletId: string }[];
        if (accounts.length === 0) return walletIds;
        walletIds.push(accounts.map((account) => account.walletId));
        after = accounts.at(-1)!.walletAccountId;
      }
    };
    expect(await pages(sessions['in scope'])).toEqual([[walletId, walletId], [walletId]]);
    expect(await pages(sessions['other wallet'])).toEqual([[otherWalletId, otherWalletId], [otherWalletId]]);
    // Backwards from the last account: the page before it holds the two readable accounts nearest to it.
    const all = (await t.query('list_wallet_accounts', {})).body.accounts as { walletAccountId: string; walletId: string }[];
    expect(all.map((account) => account.walletId)).toEqual([walletId, otherWalletId, walletId, otherWalletId, walletId, otherWalletId]);
    const before = await t.query(
      'list_wallet_accounts',
      { paginationOptions: { limit: '2', before: all.at(-1)!.walletAccountId } },
      { key: sessions['in scope'] },
    );
    expect(before.body.accounts.map((account: { walletAccountId: string }) => account.walletAccountId)).toEqual([
      all[2]!.walletAccountId,
      all[4]!.walletAccountId,
    ]);
    // A scope that judges activities only does not restrict reads.
    expect((await t.query('list_wallet_accounts', {}, { key: sessions['issue scope'] })).body.accounts).toHaveLength(6);
    // One over an account's address answers that account, with or without its wallet named.
    for (const request of [{}, { walletId }]) {
      const reply = await t.query('list_wallet_accounts', request, { key: accountSession });
      expect(reply.body.accounts.map((account: { address: string }) => account.address)).toEqual([ethereumAddress]);
    }
  });

  it('a read that needs no resource (whoami, list_wallets) is not restricted', async () => {
    for (const name of ['in scope', 'issue scope', 'other wallet'] as const) {
      expect((await t.client(sessions[name]).getWhoami({ organizationId: t.info.organizationId })).userId).toBe(bob.userId);
      expect((await t.client(sessions[name]).getWallets({ organizationId: t.info.organizationId })).wallets).toHaveLength(2);
    }
  });
});
