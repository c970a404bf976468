/**
 * Issue 22, finding 2: a session profile's scope holds on every authenticated request its session stamps, votes
 * included. Each route is tried with a session in scope and one out of it, through Turnkey's official client where it
 * sends the request (the identical-body vote is a raw re-post of the proposal's exact bytes).
 */
import { getAddress, serializeTransaction } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, type Reply, startTestService, type TestKey, type TestService } from '../../support/service';

const SIGN_TRANSACTION = 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2';
const OUT_OF_SCOPE = "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'";
const IN_SCOPE = "activity.action == 'SIGN' && wallet.id == '%WALLET%'";

let t: TestService;
let bob: { userId: string; key: TestKey };
let ethereumAddress: string;
let walletId: string;
const sessions: Record<'in scope' | 'out of scope', TestKey> = {} as never;

/** A 403 as the service answers it, or as Turnkey's client throws it (gRPC code 7, PERMISSION_DENIED). */
const REFUSED_AS_OUT_OF_SCOPE = /^(403|Turnkey error 7:) request not authorized: .* is outside the scope "activity\.type == 'ACTIVITY_TYPE_CREATE_WALLET'"/;

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
  const wallet = await t.submit('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', {
    walletName: 'treasury',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  });
  walletId = wallet.body.activity.result.createWalletResult.walletId;
  ethereumAddress = wallet.body.activity.result.createWalletResult.addresses[0];
  await t.setRootQuorum(1, [t.info.rootUserId, bob.userId]);
  sessions['in scope'] = await sessionUnder(IN_SCOPE.replace('%WALLET%', walletId));
  sessions['out of scope'] = await sessionUnder(OUT_OF_SCOPE);
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
  allowed: string;
}

const ROUTES: Route[] = [
  {
    route: 'proposal (sign_transaction)',
    send: async (session) => ({ outcome: outcomeOf(await t.post('/public/v1/submit/sign_transaction', transferBody(), { key: session })) }),
    allowed: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
  },
  {
    route: 'identical-body vote',
    send: async (session) => {
      const pending = await pendingTransfer();
      return { outcome: outcomeOf(await t.post('/public/v1/submit/sign_transaction', pending.body, { key: session })), voted: pending.id };
    },
    allowed: 'ACTIVITY_STATUS_COMPLETED',
  },
  {
    route: 'approve_activity',
    send: async (session) => {
      const pending = await pendingTransfer();
      const call = t.client(session).approveActivity({ ...t.nextEnvelope('ACTIVITY_TYPE_APPROVE_ACTIVITY'), parameters: { fingerprint: pending.fingerprint } });
      return { outcome: await clientOutcome(call), voted: pending.id };
    },
    allowed: 'ACTIVITY_STATUS_COMPLETED',
  },
  {
    route: 'reject_activity',
    send: async (session) => {
      const pending = await pendingTransfer();
      const call = t.client(session).rejectActivity({ ...t.nextEnvelope('ACTIVITY_TYPE_REJECT_ACTIVITY'), parameters: { fingerprint: pending.fingerprint } });
      return { outcome: await clientOutcome(call), voted: pending.id };
    },
    allowed: 'ACTIVITY_STATUS_REJECTED',
  },
];

describe('finding 2: a session profile scope holds on every authenticated route', () => {
  it.each(ROUTES)('$route: allowed in scope, refused out of scope with nothing changed', async ({ send, allowed }) => {
    const inScope = await send(sessions['in scope']);
    expect(inScope.outcome).toEqual({ status: allowed });

    const outOfScope = await send(sessions['out of scope']);
    expect(outOfScope.outcome).toEqual({ refused: expect.stringMatching(REFUSED_AS_OUT_OF_SCOPE) });
    if (outOfScope.voted !== undefined) expect(await statusOf(outOfScope.voted)).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
  });
});
