/**
 * Broadcasting, nonces and wallet data (src/service/families/broadcasting.ts, wallet-data.ts) through Turnkey's
 * official clients, unchanged, against the Sandbox sending to a real Anvil node on loopback: `@turnkey/sdk-server` where
 * it has the method, `@turnkey/http` for eth_send_raw_transaction (which sdk-server lacks) and eth_undelegate_7702
 * (whose sdk-server method sends the type misspelt, ACTIVITY_TYPE_ETH_UNDELEGATE7702, which the swagger does not know).
 */
import { Turnkey, type TurnkeyApiClient } from '@turnkey/sdk-server';
import { createPublicClient, http, parseEther, parseGwei, serializeTransaction, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNDELEGATION_GAS_LIMIT } from '../../src/service/families/broadcasting';
import { startAnvil, type Anvil } from '../support/anvil';
import { newKey, startTestService, type TestKey, type TestService } from '../support/service';

/** The SDKs' types list Turnkey's hosted chains; the Sandbox serves the chains its --rpc flags name, hence `as never`. */
const CHAIN = 'eip155:31337';
/** A chain the Sandbox has no node for. */
const UNSERVED = 'eip155:1';
/** A Solana chain whose --rpc leads nowhere (test/service/solana-history.test.ts reads a real one). */
const SOLANA_CHAIN = 'solana:devnet';
const ETHEREUM = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
/** Anvil's first development account: a key held outside the Sandbox, which signs the raw transactions. */
const OUTSIDER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
/** Anvil's second development account: the signer a policy denies, by the address its signature recovers. */
const DENIED_SIGNER = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
/** A contract whose every call emits Transfer(caller, 0x…beef, 7): an ERC-20 event from a contract that is no ERC-20. */
const TOKEN_LIKE = '0x00000000000000000000000000000000000070c0';
const TOKEN_RECIPIENT = '0x000000000000000000000000000000000000bEEF';
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const EMITS_TRANSFER = [
  '6007600052', // mstore(0, 7): the amount
  `73${TOKEN_RECIPIENT.slice(2).toLowerCase()}`, // topic 2: to
  '33', // topic 1: from = caller
  `7f${TRANSFER_TOPIC}`, // topic 0: Transfer(address,address,uint256)
  '60206000a3', // log3(0, 32, …)
  '00',
].join('');

let anvil: Anvil;
let node: PublicClient;
let service: TestService;
let sender: Hex;
let receiver: Hex;
let solanaAccount: string;
let privateKeyAddress: string;

function sdkClient(key: TestKey = service.rootKey): TurnkeyApiClient {
  return new Turnkey({
    apiBaseUrl: service.info.baseUrl,
    apiPublicKey: key.publicKey,
    apiPrivateKey: key.privateKey,
    defaultOrganizationId: service.info.organizationId,
  }).apiClient();
}

/** eth_send_raw_transaction through @turnkey/http; the transaction hash, or the activity's failure thrown. */
async function sendRaw(signedTransaction: string, caip2: string = CHAIN, key: TestKey = service.rootKey): Promise<Hex> {
  const { activity } = await service.client(key).ethSendRawTransaction({
    ...service.nextEnvelope('ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION'),
    parameters: { signedTransaction, caip2: caip2 as never },
  });
  if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') throw new Error(`${activity.status}: ${JSON.stringify(activity.failure)}`);
  return activity.result.ethSendRawTransactionResult!.transactionHash as Hex;
}

/** eth_undelegate_7702 through @turnkey/http; the send's status id. */
async function undelegate(from: string, caip2: string = CHAIN, key: TestKey = service.rootKey): Promise<string> {
  const { activity } = await service
    .client(key)
    .ethUndelegate7702({ ...service.nextEnvelope('ACTIVITY_TYPE_ETH_UNDELEGATE_7702'), parameters: { from, caip2: caip2 as never } });
  if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') throw new Error(`${activity.status}: ${JSON.stringify(activity.failure)}`);
  return activity.result.ethUndelegate7702Result!.sendTransactionStatusId;
}

/**
 * The receipt of a transaction the node has accepted. Even mining each transaction as it comes, Anvil may answer the
 * send before the block holding it is stored, so a receipt asked for at once can be missing (it was once, in a
 * fresh-clone CI run on a busy machine).
 */
function landed(hash: Hex) {
  return node.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

async function anvilCall(method: string, params: unknown[]): Promise<unknown> {
  return node.request({ method: method as never, params: params as never });
}

/** A transfer signed outside the Sandbox (by OUTSIDER unless `signer` is given), with the nonce the node expects. */
async function outsiderTransfer(overrides: { chainId?: number; to?: Hex; value?: bigint; signer?: typeof OUTSIDER } = {}): Promise<Hex> {
  const signer = overrides.signer ?? OUTSIDER;
  return signer.signTransaction({
    type: 'eip1559',
    chainId: overrides.chainId ?? 31337,
    nonce: await node.getTransactionCount({ address: signer.address, blockTag: 'pending' }),
    to: overrides.to ?? receiver,
    value: overrides.value ?? 1000n,
    gas: 21_000n,
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('1'),
  });
}

beforeAll(async () => {
  anvil = await startAnvil();
  node = createPublicClient({ transport: http(anvil.url) });
  service = await startTestService({ rpc: { [CHAIN]: anvil.url, [SOLANA_CHAIN]: 'http://127.0.0.1:9' } });
  const client = sdkClient();
  const wallet = await client.createWallet({
    walletName: 'broadcasting',
    accounts: [ETHEREUM, { ...ETHEREUM, path: "m/44'/60'/0'/0/1" }, SOLANA],
  });
  [sender, receiver] = wallet.addresses as [Hex, Hex];
  solanaAccount = wallet.addresses[2]!;
  const key = await client.createPrivateKeys({
    privateKeys: [{ privateKeyName: 'standalone', curve: 'CURVE_SECP256K1', addressFormats: ['ADDRESS_FORMAT_ETHEREUM'], privateKeyTags: [] }],
  });
  privateKeyAddress = key.privateKeys[0]!.addresses![0]!.address!;
  await anvilCall('anvil_setBalance', [sender, `0x${parseEther('10').toString(16)}`]);
}, 60_000);

afterAll(async () => {
  await service?.close();
  anvil?.process.kill('SIGTERM');
});

describe('eth_send_raw_transaction', () => {
  it('broadcasts a transaction signed elsewhere; its hash is the node’s and the transfer lands', async () => {
    const before = await node.getBalance({ address: receiver });
    const transactionHash = await sendRaw(await outsiderTransfer(), CHAIN);
    const receipt = await landed(transactionHash);
    expect(receipt.status).toBe('success');
    expect(receipt.from).toBe(OUTSIDER.address.toLowerCase());
    expect(await node.getBalance({ address: receiver })).toBe(before + 1000n);
  });

  it('broadcasts a legacy EIP-155 transaction as well', async () => {
    const legacy = await OUTSIDER.signTransaction({
      type: 'legacy',
      chainId: 31337,
      nonce: await node.getTransactionCount({ address: OUTSIDER.address, blockTag: 'pending' }),
      to: receiver,
      value: 3n,
      gas: 21_000n,
      gasPrice: parseGwei('10'),
    });
    const receipt = await landed(await sendRaw(legacy));
    expect([receipt.status, receipt.type]).toEqual(['success', 'legacy']);
  });

  it('a node refusal (a nonce already used) fails the activity with the node’s reason', async () => {
    const stale = await OUTSIDER.signTransaction({
      type: 'eip1559',
      chainId: 31337,
      nonce: 0,
      to: receiver,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    });
    await expect(sendRaw(stale, CHAIN)).rejects.toThrow(/refused the transaction: .*nonce/i);
  });
});

describe('get_nonces and get_gas_usage', () => {
  it('reports the pending nonce the next transaction takes, before and after a send', async () => {
    const client = sdkClient();
    const { nonce } = await client.getNonces({ address: OUTSIDER.address, caip2: CHAIN as never, nonce: true });
    expect(nonce).toBe(String(await node.getTransactionCount({ address: OUTSIDER.address, blockTag: 'pending' })));
    await sendRaw(await outsiderTransfer());
    expect((await client.getNonces({ address: OUTSIDER.address, caip2: CHAIN as never, nonce: true })).nonce).toBe(String(Number(nonce) + 1));
  });

  it('reports no Gas Station spend: the Sandbox sponsors nothing', async () => {
    expect(await sdkClient().getGasUsage({})).toMatchObject({ windowDurationMinutes: 43_200, windowLimitUsd: '0', usageUsd: '0' });
  });
});

describe('eth_undelegate_7702', () => {
  it('clears a delegation: the account signs an authorization to address 0, sent until INCLUDED', async () => {
    await anvilCall('anvil_setCode', [sender, `0xef0100${TOKEN_LIKE.slice(2)}`]);
    expect(await node.getCode({ address: sender })).toBe(`0xef0100${TOKEN_LIKE.slice(2)}`);
    const nonce = await node.getTransactionCount({ address: sender, blockTag: 'pending' });
    const client = sdkClient();
    const sendTransactionStatusId = await undelegate(sender);
    const status = await client.pollTransactionStatus({ sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 15_000 });
    expect(status.txStatus, JSON.stringify(status)).toBe('INCLUDED');
    const transaction = await node.getTransaction({ hash: status.eth?.txHash as Hex });
    expect(transaction).toMatchObject({
      type: 'eip7702',
      from: sender.toLowerCase(),
      to: sender.toLowerCase(),
      value: 0n,
      gas: UNDELEGATION_GAS_LIMIT,
    });
    expect(transaction.authorizationList).toMatchObject([
      { address: '0x0000000000000000000000000000000000000000', chainId: 31337, nonce: nonce + 1 },
    ]);
    expect(await node.getCode({ address: sender })).toBeUndefined();
  });
});

describe('wallet data', () => {
  it('get_wallet_address_balances: the native balance of a wallet account, and nothing for an empty one', async () => {
    const client = sdkClient();
    const { balances } = await client.getWalletAddressBalances({ address: sender, caip2: CHAIN as never });
    const balance = await node.getBalance({ address: sender });
    expect(balances).toEqual([
      { caip19: `${CHAIN}/slip44:60`, symbol: 'ETH', name: 'Ether', decimals: 18, balance: String(balance), display: { crypto: expect.any(String) } },
    ]);
    const empty = await client.createWalletAccounts({
      walletId: (await client.getWallets({})).wallets[0]!.walletId,
      accounts: [{ ...ETHEREUM, path: "m/44'/60'/0'/0/9" }],
    });
    expect((await client.getWalletAddressBalances({ address: empty.addresses[0]!, caip2: CHAIN as never })).balances).toEqual([]);
  });

  it('list_supported_assets: the chain’s native asset', async () => {
    expect((await sdkClient().listSupportedAssets({ caip2: CHAIN as never })).assets).toEqual([
      { caip19: `${CHAIN}/slip44:60`, symbol: 'ETH', name: 'Ether', decimals: 18, stable: false },
    ]);
  });

  it('list_eth_transaction_history: newest first, Turnkey’s sends named, native and token transfers, paged', async () => {
    const client = sdkClient();
    await anvilCall('anvil_setCode', [TOKEN_LIKE, `0x${EMITS_TRANSFER}`]);
    const sent = await client.ethSendTransaction({ from: sender, caip2: CHAIN as never, calls: [{ to: receiver, value: '5000' }] });
    const sentHash = (
      await client.pollTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 15_000 })
    ).eth!.txHash!;
    const tokenCall = await client.ethSendTransaction({
      from: sender,
      caip2: CHAIN as never,
      calls: [{ to: TOKEN_LIKE, value: '0' }],
      gasLimit: '100000',
    });
    const tokenHash = (
      await client.pollTransactionStatus({ sendTransactionStatusId: tokenCall.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 15_000 })
    ).eth!.txHash!;
    const external = await node.sendRawTransaction({ serializedTransaction: await outsiderTransfer({ to: sender, value: 77n }) });

    const { transactions, pageInfo } = await client.listEthTransactionHistory({
      address: sender,
      caip2: CHAIN as never,
      paginationOptions: { limit: '3' },
    });
    expect(transactions.map((item) => item.transactionHash)).toEqual([external, tokenHash, sentHash]);
    expect(pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const [incoming, token, outgoing] = transactions;
    expect(incoming).toMatchObject({
      origin: 'EXTERNAL',
      status: 'CONFIRMED',
      transfers: [{ direction: 'IN', amount: '77', counterparty: OUTSIDER.address }],
    });
    expect(incoming!.turnkey).toBeUndefined();
    // The contract answers no symbol(): the asset cannot be determined and is left out.
    expect(token!.transfers).toEqual([{ direction: 'OUT', amount: '7', counterparty: TOKEN_RECIPIENT }]);
    const activity = (await client.getActivities({})).activities.find(
      (candidate) => candidate.result?.ethSendTransactionResultV2?.sendTransactionStatusId === sent.sendTransactionStatusId,
    );
    const receipt = await node.getTransactionReceipt({ hash: sentHash as Hex });
    expect(outgoing).toMatchObject({
      origin: 'TURNKEY',
      from: sender,
      to: receiver,
      block: { number: String(receipt.blockNumber), hash: receipt.blockHash },
      fee: { amount: String(receipt.gasUsed * receipt.effectiveGasPrice), caip19: `${CHAIN}/slip44:60` },
      transfers: [{ direction: 'OUT', amount: '5000', counterparty: receiver, asset: { symbol: 'ETH', decimals: 18 } }],
      turnkey: { sponsored: false, activityFingerprint: activity!.fingerprint },
    });
    expect(new Date(outgoing!.block.timestamp).getTime()).toBeGreaterThan(0);

    const next = await client.listEthTransactionHistory({
      address: sender,
      caip2: CHAIN as never,
      paginationOptions: { limit: '1', before: pageInfo!.endCursor! },
    });
    expect(next.pageInfo).toMatchObject({ hasPreviousPage: true });
    expect(next.transactions).toHaveLength(1);
    expect(next.transactions[0]!.transactionHash).not.toBe(sentHash);
    const back = await client.listEthTransactionHistory({
      address: sender,
      caip2: CHAIN as never,
      paginationOptions: { limit: '2', after: next.pageInfo!.startCursor! },
    });
    expect(back.transactions.map((item) => item.transactionHash)).toEqual([tokenHash, sentHash]);

    const received = await client.listEthTransactionHistory({ address: receiver, caip2: CHAIN as never });
    expect(received.transactions.find((item) => item.transactionHash === sentHash)?.transfers).toEqual([
      expect.objectContaining({ direction: 'IN', amount: '5000', counterparty: sender }),
    ]);
  });
});

describe('refusals, before anything is recorded or sent', () => {
  const cases: [string, () => Promise<unknown>, RegExp][] = [
    [
      'a raw send for a chain without --rpc',
      async () => sendRaw(await outsiderTransfer({ chainId: 1 }), UNSERVED),
      /no node is configured for eip155:1; start the Sandbox with --rpc eip155:1=URL/,
    ],
    ['an undelegation for a chain without --rpc', () => undelegate(sender, UNSERVED), /--rpc eip155:1=URL/],
    ['nonces for a chain without --rpc', () => sdkClient().getNonces({ address: sender, caip2: UNSERVED, nonce: true }), /--rpc eip155:1=URL/],
    ['balances for a chain without --rpc', () => sdkClient().getWalletAddressBalances({ address: sender, caip2: UNSERVED }), /--rpc eip155:1=URL/],
    ['assets for a chain without --rpc', () => sdkClient().listSupportedAssets({ caip2: UNSERVED }), /--rpc eip155:1=URL/],
    ['history for a chain without --rpc', () => sdkClient().listEthTransactionHistory({ address: sender, caip2: UNSERVED }), /--rpc eip155:1=URL/],
    [
      'Solana history without --rpc',
      () => sdkClient().listSolTransactionHistory({ address: solanaAccount, caip2: 'solana:mainnet' }),
      /--rpc solana:mainnet=URL/,
    ],
    [
      'Solana history from a node that cannot be reached',
      () => sdkClient().listSolTransactionHistory({ address: solanaAccount, caip2: SOLANA_CHAIN }),
      /the node for solana:devnet did not answer getSignaturesForAddress/,
    ],
    [
      'a raw transaction for another chain',
      async () => sendRaw(await outsiderTransfer({ chainId: 5 }), CHAIN),
      /is for chain 5, but parameters.caip2 is eip155:31337/,
    ],
    [
      'an unsigned transaction',
      () => sendRaw(serializeTransaction({ type: 'eip1559', chainId: 31337, to: receiver, value: 1n }), CHAIN),
      /carries no signature/,
    ],
    ['bytes that are no transaction', () => sendRaw('0xdeadbeef', CHAIN), /is not a signed Ethereum transaction/],
    [
      'an undelegation from an address not the organization’s',
      () => undelegate(OUTSIDER.address),
      /parameters.signWith: 0xf39F.* is not a wallet account address/,
    ],
    [
      'a gas station nonce',
      () => sdkClient().getNonces({ address: sender, caip2: CHAIN as never, gasStationNonce: true }),
      /gasStationNonce: the Sandbox has no Gas Station/,
    ],
    [
      'nonces of a non-address',
      () => sdkClient().getNonces({ address: 'nowhere', caip2: CHAIN as never, nonce: true }),
      /address: nowhere is not an Ethereum address/,
    ],
    [
      'balances of a private key address',
      () => sdkClient().getWalletAddressBalances({ address: privateKeyAddress, caip2: CHAIN as never }),
      /is not a wallet account address of organization .*private key addresses are not supported/,
    ],
    [
      'a chain id that is no CAIP-2',
      () => sdkClient().listSupportedAssets({ caip2: 'ethereum' as never }),
      /caip2: expected eip155:<chain id> or solana:/,
    ],
    [
      'an unknown history cursor',
      () => sdkClient().listEthTransactionHistory({ address: sender, caip2: CHAIN as never, paginationOptions: { before: '999999:0' } }),
      /paginationOptions.before: 999999:0 is not a cursor/,
    ],
  ];
  it.each(cases)('refuses %s, naming why', async (_what, call, message) => {
    const activitiesBefore = await service.activityCount();
    const blockBefore = await node.getBlockNumber();
    await expect(call()).rejects.toThrow(message);
    expect(await service.activityCount()).toBe(activitiesBefore);
    expect(await node.getBlockNumber()).toBe(blockBefore);
  });
});

describe('policies', () => {
  it('a policy denial refuses a raw send and an undelegation before the node sees them; allowed ones go', async () => {
    const robot = newKey('p256');
    const root = sdkClient();
    const { userIds } = await root.createUsers({
      users: [
        {
          userName: 'broadcaster',
          userTags: [],
          apiKeys: [{ apiKeyName: 'robot', publicKey: robot.publicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const raw = "activity.type == 'ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION'";
    const undelegation = "activity.type == 'ACTIVITY_TYPE_ETH_UNDELEGATE_7702'";
    await root.createPolicy({
      policyName: 'broadcaster sends',
      effect: 'EFFECT_ALLOW',
      consensus: `approvers.any(user, user.id == '${userIds[0]}')`,
      condition: `${raw} || ${undelegation}`,
      notes: '',
    });
    await root.createPolicy({ policyName: 'never to the sender', effect: 'EFFECT_DENY', condition: `${raw} && eth.tx.to == '${sender}'`, notes: '' });
    await root.createPolicy({
      policyName: 'not from that signer',
      effect: 'EFFECT_DENY',
      condition: `${raw} && eth.tx.from == '${DENIED_SIGNER.address}'`,
      notes: '',
    });
    await root.createPolicy({
      policyName: 'no undelegation of the receiver',
      effect: 'EFFECT_DENY',
      condition: `${undelegation} && eth.tx.from == '${receiver}'`,
      notes: '',
    });
    await anvilCall('anvil_setBalance', [DENIED_SIGNER.address, `0x${parseEther('1').toString(16)}`]);
    const blockBefore = await node.getBlockNumber();
    await expect(sendRaw(await outsiderTransfer({ to: sender }), CHAIN, robot)).rejects.toThrow(/denied|DENY|policy/i);
    await expect(sendRaw(await outsiderTransfer({ signer: DENIED_SIGNER }), CHAIN, robot)).rejects.toThrow(/denied|DENY|policy/i);
    await expect(undelegate(receiver, CHAIN, robot)).rejects.toThrow(/denied|DENY|policy/i);
    expect(await node.getBlockNumber()).toBe(blockBefore);
    const transactionHash = await sendRaw(await outsiderTransfer(), CHAIN, robot);
    expect((await landed(transactionHash)).status).toBe('success');
  });
});
