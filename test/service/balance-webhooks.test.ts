/**
 * Balance webhooks and token balances (src/service/webhooks/balances.ts, families/wallet-data.ts) against a real Anvil
 * node with an ERC-20 deployed on it, through Turnkey's official clients: a wallet account's deposits and withdrawals
 * of the native asset and of a token the Sandbox knows (`--token`) reach a receiver on 127.0.0.1 as
 * `balances:confirmed`, then, once their block is finalized, as `balances:finalized`, each signed as Turnkey signs
 * deliveries; get_wallet_address_balances and list_supported_assets answer the token too.
 */
import { Turnkey, type TurnkeyApiClient } from '@turnkey/sdk-server';
import { createWalletClient, getAddress, http, parseEther, publicActions, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySeedFixture, type SeedCopy } from '../support/seed';
import { refusal, startTestService, type TestService } from '../support/service';
import { SIGNER, startSimulationChain, TOKEN_ABI, type SimulationChain } from '../support/simulation-chain';
import { startWebhookReceiver, verifyDelivery, webhookVerificationKey, type WebhookReceiver } from '../support/webhook-receiver';

/** The SDKs' types list Turnkey's hosted chains; the Sandbox serves the chain its --rpc names, hence `as never`. */
const CHAIN = 'eip155:31337';
const SUB_ORGANIZATION = '6e5e5e5e-0000-4000-8000-000000000001';
/** Generous: the Sandbox looks at the node once a second, and deliveries run off the look. */
const WAIT_MS = 30_000;
/** Anvil reports as finalized the block 64 below its latest. */
const ANVIL_FINALITY_DEPTH = 64;

interface BalanceBody {
  type: string;
  msg: {
    operation: 'deposit' | 'withdraw';
    caip2: string;
    txHash: string;
    address: string;
    orgID: string;
    parentOrgID: string;
    idempotencyKey: string;
    asset: { symbol: string; name: string; decimals: number; caip19: string; amount: string };
    block: { number: number; hash: string; timestamp: string };
  };
}

let chain: SimulationChain;
let copy: SeedCopy;
let service: TestService;
let receiver: WebhookReceiver;
let client: TurnkeyApiClient;
let holder: Hex;
let payee: Hex;

const bodies = () => receiver.received.map((delivery) => JSON.parse(delivery.rawBody.toString('utf8')) as BalanceBody);

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`gave up waiting for ${what}; received ${JSON.stringify(bodies().map((b) => [b.type, b.msg.operation, b.msg.asset.symbol]))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const tokenCaip19 = () => `${CHAIN}/erc20:${chain.token.toLowerCase()}`;

beforeAll(async () => {
  chain = await startSimulationChain();
  copy = copySeedFixture('one-root.yaml');
  service = await startTestService({
    seed: { file: copy, rootKeyFile: 'dana.key.json' },
    rpc: { [CHAIN]: chain.anvil.url },
    tokens: { [CHAIN]: [chain.token] },
  });
  client = new Turnkey({
    apiBaseUrl: service.info.baseUrl,
    apiPublicKey: service.rootKey.publicKey,
    apiPrivateKey: service.rootKey.privateKey,
    defaultOrganizationId: service.info.organizationId,
  }).apiClient();
  const wallet = await client.createWallet({
    walletName: 'balances',
    accounts: [0, 1].map((index) => ({
      curve: 'CURVE_SECP256K1' as const,
      pathFormat: 'PATH_FORMAT_BIP32' as const,
      path: `m/44'/60'/0'/0/${index}`,
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM' as const,
    })),
  });
  [holder, payee] = wallet.addresses as [Hex, Hex];
  receiver = await startWebhookReceiver();
}, 60_000);

afterAll(async () => {
  await service?.close();
  await receiver?.close();
  chain?.stop();
  copy?.remove();
});

describe('balance webhooks', () => {
  it('delivers each deposit and withdrawal, native and token, confirmed and then finalized, signed', async () => {
    await client.createWebhookEndpoint({
      url: receiver.url,
      name: 'balances',
      subscriptions: [{ eventType: 'BALANCE_CONFIRMED_UPDATES' }, { eventType: 'BALANCE_FINALIZED_UPDATES' }],
    });
    const outside = createWalletClient({ account: SIGNER, chain: foundry, transport: http(chain.anvil.url) }).extend(publicActions);
    // From outside the Sandbox: Ether, then tokens, to the holder.
    const funding = await outside.sendTransaction({ to: holder, value: parseEther('1') });
    await outside.waitForTransactionReceipt({ hash: funding });
    const tokens = await outside.writeContract({ address: chain.token, abi: TOKEN_ABI, functionName: 'transfer', args: [holder, 2500n] });
    await outside.waitForTransactionReceipt({ hash: tokens });
    // From the Sandbox: the holder pays the payee, through Turnkey's send.
    const sent = await client.ethSendTransaction({ from: holder, caip2: CHAIN as never, calls: [{ to: payee, value: '7000' }] });
    const status = await client.pollTransactionStatus({
      sendTransactionStatusId: sent.sendTransactionStatusId,
      pollingIntervalMs: 100,
      timeoutMs: 15_000,
    });
    expect(status.txStatus).toBe('INCLUDED');
    const payment = status.eth!.txHash as Hex;

    const confirmed = () => bodies().filter((body) => body.type === 'balances:confirmed');
    await waitFor(() => confirmed().length >= 4, 'four confirmed balance changes');
    const native = { symbol: 'ETH', name: 'Ether', decimals: 18, caip19: `${CHAIN}/slip44:60` };
    const token = { symbol: 'UNI-V2', name: 'Uniswap V2', decimals: 18, caip19: tokenCaip19() };
    const organization = { orgID: service.info.organizationId, parentOrgID: service.info.organizationId, caip2: CHAIN };
    expect(confirmed().map((body) => body.msg)).toEqual([
      expect.objectContaining({
        ...organization,
        operation: 'deposit',
        txHash: funding,
        address: holder,
        asset: { ...native, amount: String(parseEther('1')) },
      }),
      expect.objectContaining({ ...organization, operation: 'deposit', txHash: tokens, address: holder, asset: { ...token, amount: '2500' } }),
      expect.objectContaining({ ...organization, operation: 'withdraw', txHash: payment, address: holder, asset: { ...native, amount: '7000' } }),
      expect.objectContaining({ ...organization, operation: 'deposit', txHash: payment, address: payee, asset: { ...native, amount: '7000' } }),
    ]);
    const receipt = await outside.getTransactionReceipt({ hash: funding });
    const block = await outside.getBlock({ blockNumber: receipt.blockNumber });
    expect(confirmed()[0]!.msg.block).toEqual({
      number: Number(block.number),
      hash: block.hash,
      timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace('.000Z', 'Z'),
    });
    expect(new Set(confirmed().map((body) => body.msg.idempotencyKey)).size).toBe(4);
    // Nothing is finalized until the blocks are deep enough; then the same four changes are.
    expect(bodies().filter((body) => body.type === 'balances:finalized')).toEqual([]);
    await outside.request({ method: 'anvil_mine' as never, params: [`0x${ANVIL_FINALITY_DEPTH.toString(16)}`] as never });
    const finalized = () => bodies().filter((body) => body.type === 'balances:finalized');
    await waitFor(() => finalized().length >= 4, 'four finalized balance changes');
    const change = (body: BalanceBody) =>
      [body.msg.txHash, body.msg.address, body.msg.operation, body.msg.asset.caip19, body.msg.asset.amount].join(' ');
    expect(finalized().map(change)).toEqual(confirmed().map(change));
    expect(finalized().map((body) => body.msg.idempotencyKey)).not.toContain(confirmed()[0]!.msg.idempotencyKey);

    const key = await webhookVerificationKey(service.info.baseUrl);
    for (const delivery of receiver.received) {
      expect(verifyDelivery(key, delivery)).toMatchObject({ ok: true });
      expect(delivery.headers['x-turnkey-organization-id']).toBe(service.info.organizationId);
    }
    expect(receiver.received.map((delivery) => delivery.headers['x-turnkey-event-type'])).toEqual([
      ...Array(4).fill('BALANCE_CONFIRMED_UPDATES'),
      ...Array(4).fill('BALANCE_FINALIZED_UPDATES'),
    ]);
  });

  it("refuses a sub-organization's balance endpoint: they belong to the organization that bills it", async () => {
    const reply = await service.submit(
      'create_webhook_endpoint',
      'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT',
      { url: receiver.url, name: 'sub balances', subscriptions: [{ eventType: 'BALANCE_CONFIRMED_UPDATES' }] },
      { key: copy.key('erin.key.json'), organizationId: SUB_ORGANIZATION },
    );
    expect(refusal(reply)).toEqual([403, 'REQUEST_NOT_AUTHORIZED']);
    expect(reply.body.message).toMatch(new RegExp(`BALANCE_CONFIRMED_UPDATES endpoints belong to .*${service.info.organizationId}`));
  });
});

describe('token balances', () => {
  it('get_wallet_address_balances answers the known token beside the native asset; list_supported_assets lists it', async () => {
    const { balances } = await client.getWalletAddressBalances({ address: holder, caip2: CHAIN as never });
    const onChain = await createWalletClient({ chain: foundry, transport: http(chain.anvil.url) })
      .extend(publicActions)
      .readContract({ address: chain.token, abi: TOKEN_ABI, functionName: 'balanceOf', args: [holder] });
    expect(onChain).toBe(2500n);
    expect(balances!.find((balance) => balance.caip19 === tokenCaip19())).toEqual({
      caip19: tokenCaip19(),
      symbol: 'UNI-V2',
      name: 'Uniswap V2',
      decimals: 18,
      balance: '2500',
      display: { crypto: '0.0000000000000025' },
    });
    expect(balances!.map((balance) => balance.symbol)).toEqual(['ETH', 'UNI-V2']);
    // The payee holds Ether only: a zero token balance is left out, as Turnkey answers.
    const payeeBalances = await client.getWalletAddressBalances({ address: payee, caip2: CHAIN as never });
    expect(payeeBalances.balances!.map((balance) => balance.symbol)).toEqual(['ETH']);
    const { assets } = await client.listSupportedAssets({ caip2: CHAIN as never });
    expect(assets!.map((asset) => [asset.caip19, asset.symbol, asset.decimals])).toEqual([
      [`${CHAIN}/slip44:60`, 'ETH', 18],
      [tokenCaip19(), 'UNI-V2', 18],
    ]);
  });

  it('refuses a known token whose contract does not answer as an ERC-20, naming it', async () => {
    const notAToken = getAddress('0x000000000000000000000000000000000000dEaD');
    const t = await startTestService({ rpc: { [CHAIN]: chain.anvil.url }, tokens: { [CHAIN]: [notAToken] } });
    try {
      const reply = await t.query('list_supported_assets', { organizationId: t.info.organizationId, caip2: CHAIN });
      expect(refusal(reply)[1]).toBe('FAILED_PRECONDITION');
      expect(reply.body.message).toContain(`--token ${CHAIN}=${notAToken} does not answer symbol, name and decimals`);
    } finally {
      await t.close();
    }
  });

  const refusedAtStart: { name: string; rpc: Record<string, string>; tokens: Record<string, string[]>; message: RegExp }[] = [
    {
      name: 'a token on a chain without --rpc',
      rpc: {},
      tokens: { [CHAIN]: ['0x000000000000000000000000000000000000dEaD'] },
      message: /add --rpc eip155:31337=URL/,
    },
    {
      name: 'a token of a chain that is not EVM',
      rpc: { 'solana:devnet': 'http://127.0.0.1:9' },
      tokens: { 'solana:devnet': ['So11111111111111111111111111111111111111112'] },
      message: /eip155:<chain id>/,
    },
    {
      name: 'an address that is not one',
      rpc: { [CHAIN]: 'http://127.0.0.1:9' },
      tokens: { [CHAIN]: ['0x1234'] },
      message: /0x1234: not an Ethereum address/,
    },
    {
      name: 'a token given twice',
      rpc: { [CHAIN]: 'http://127.0.0.1:9' },
      tokens: { [CHAIN]: ['0x000000000000000000000000000000000000dEaD', '0x000000000000000000000000000000000000dead'] },
      message: /is given twice/,
    },
  ];
  it.each(refusedAtStart)('refuses to start with $name', async ({ rpc, tokens, message }) => {
    await expect(startTestService({ rpc, tokens })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringMatching(message) });
  });
});
