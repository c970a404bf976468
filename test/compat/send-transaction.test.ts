/**
 * `@turnkey/sdk-server`'s ethSendTransaction and pollTransactionStatus, unchanged, against the local service sending to
 * a real Anvil node (`@foundry-rs/anvil`) on loopback, started and stopped by this file.
 */
import { getTransferSolInstruction } from '@solana-program/system';
import {
  address,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { Turnkey, type TurnkeyApiClient } from '@turnkey/sdk-server';
import { createPublicClient, http, parseEther, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from '../support/anvil';
import { newKey, startTestService, type TestKey, type TestService } from '../support/service';

const CHAIN = 'eip155:31337';
const ETHEREUM = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
const RECIPIENT = '0x000000000000000000000000000000000000bEEF';
const DENIED_RECIPIENT = '0x000000000000000000000000000000000000dEaD';
/** A contract whose every call reverts with Error("nope"): it writes the ABI-encoded error to memory and reverts with it. */
const REVERTER = '0x00000000000000000000000000000000000Bad01';
const REVERTS_WITH_NOPE = [
  `0x7f08c379a0${'00'.repeat(28)}600052`, // mstore(0x00, Error(string)'s selector)
  '6020600452', // mstore(0x04, 0x20): where the string starts
  '6004602452', // mstore(0x24, 4): its length
  `7f6e6f7065${'00'.repeat(28)}604452`, // mstore(0x44, "nope")
  '60646000fd', // revert(0x00, 0x64)
].join('');

let anvil: Anvil;
let node: PublicClient;
let service: TestService;
let sender: Hex;

function sdkClient(key: TestKey = service.rootKey): TurnkeyApiClient {
  return new Turnkey({
    apiBaseUrl: service.info.baseUrl,
    apiPublicKey: key.publicKey,
    apiPrivateKey: key.privateKey,
    defaultOrganizationId: service.info.organizationId,
  }).apiClient();
}

beforeAll(async () => {
  anvil = await startAnvil();
  node = createPublicClient({ transport: http(anvil.url) });
  service = await startTestService({ rpc: { [CHAIN]: anvil.url } });
  const wallet = await sdkClient().createWallet({ walletName: 'sender', accounts: [ETHEREUM] });
  sender = wallet.addresses[0] as Hex;
  await node.request({ method: 'anvil_setBalance' as never, params: [sender, `0x${parseEther('10').toString(16)}`] as never });
}, 60_000);

afterAll(async () => {
  await service?.close();
  anvil?.process.kill('SIGTERM');
});

describe('ethSendTransaction against Anvil', () => {
  it('fills nonce, gas and fees from the node, lands the transfer in a block, and the status query reports it', async () => {
    const client = sdkClient();
    const { sendTransactionStatusId } = await client.ethSendTransaction({
      from: sender,
      caip2: CHAIN as never,
      calls: [{ to: RECIPIENT, value: parseEther('1').toString() }],
    });
    const status = await client.pollTransactionStatus({ sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 15_000 });
    expect(status.txStatus).toBe('INCLUDED');
    const txHash = status.eth?.txHash as Hex;
    const receipt = await node.getTransactionReceipt({ hash: txHash });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(sender.toLowerCase());
    expect(await node.getBalance({ address: RECIPIENT })).toBe(parseEther('1'));
  });

  it('a node refusal (more than the balance) is a FAILED status with the node reason', async () => {
    const client = sdkClient();
    const { sendTransactionStatusId } = await client.ethSendTransaction({
      from: sender,
      caip2: CHAIN as never,
      calls: [{ to: RECIPIENT, value: parseEther('1000').toString() }],
    });
    const status = await client.getSendTransactionStatus({ sendTransactionStatusId });
    expect(status, JSON.stringify(status)).toMatchObject({ txStatus: 'FAILED' });
    expect(status.txError).toMatch(/fund|balance|gas/i);
  });

  it("is BROADCASTING, Turnkey's word, until the node mines it, then INCLUDED", async () => {
    await node.request({ method: 'evm_setAutomine' as never, params: [false] as never });
    try {
      const client = sdkClient();
      const { sendTransactionStatusId } = await client.ethSendTransaction({
        from: sender,
        caip2: CHAIN as never,
        calls: [{ to: RECIPIENT, value: '1' }],
      });
      expect((await client.getSendTransactionStatus({ sendTransactionStatusId })).txStatus).toBe('BROADCASTING');
      await node.request({ method: 'evm_mine' as never });
      expect((await client.getSendTransactionStatus({ sendTransactionStatusId })).txStatus).toBe('INCLUDED');
    } finally {
      await node.request({ method: 'evm_setAutomine' as never, params: [true] as never });
    }
  });

  it("a call that reverts is FAILED with Turnkey's error.revertChain: the contract called and its Error(string)", async () => {
    await node.request({ method: 'anvil_setCode' as never, params: [REVERTER, REVERTS_WITH_NOPE] as never });
    const client = sdkClient();
    // With the gas limit given, the node does not estimate (which would refuse the call) and mines the revert.
    const { sendTransactionStatusId } = await client.ethSendTransaction({
      from: sender,
      caip2: CHAIN as never,
      calls: [{ to: REVERTER, value: '0' }],
      gasLimit: '100000',
    });
    const status = await client.getSendTransactionStatus({ sendTransactionStatusId });
    const receipt = await node.getTransactionReceipt({ hash: status.eth?.txHash as Hex });
    expect(receipt.status).toBe('reverted');
    expect(status, JSON.stringify(status)).toMatchObject({
      txStatus: 'FAILED',
      txError: `reverted in block ${receipt.blockNumber}: execution reverted: nope`,
      error: {
        revertChain: [
          {
            address: REVERTER.toLowerCase(),
            errorType: 'native',
            displayMessage: 'execution reverted: nope',
            native: { nativeType: 'error_string', message: 'nope' },
          },
        ],
      },
    });
  });

  it('a policy denial refuses the send before anything reaches the node', async () => {
    // Root users pass the policy engine; a robot allowed to send, except to one address, meets it.
    const robot = newKey('p256');
    const root = sdkClient();
    const { userIds } = await root.createUsers({
      users: [
        {
          userName: 'robot',
          userTags: [],
          apiKeys: [{ apiKeyName: 'robot', publicKey: robot.publicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const sends = "activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2'";
    await root.createPolicy({
      policyName: 'robot sends',
      effect: 'EFFECT_ALLOW',
      consensus: `approvers.any(user, user.id == '${userIds[0]}')`,
      condition: sends,
      notes: '',
    });
    await root.createPolicy({
      policyName: 'never to dEaD',
      effect: 'EFFECT_DENY',
      condition: `${sends} && eth.tx.to == '${DENIED_RECIPIENT}'`,
      notes: '',
    });
    const nonceBefore = await node.getTransactionCount({ address: sender, blockTag: 'pending' });
    const blockBefore = await node.getBlockNumber();
    await expect(
      sdkClient(robot).ethSendTransaction({ from: sender, caip2: CHAIN as never, calls: [{ to: DENIED_RECIPIENT, value: '1' }] }),
    ).rejects.toThrow(/denied|DENY|policy/i);
    expect(await node.getTransactionCount({ address: sender, blockTag: 'pending' })).toBe(nonceBefore);
    expect(await node.getBlockNumber()).toBe(blockBefore);
    expect(await node.getBalance({ address: DENIED_RECIPIENT })).toBe(0n);
    const allowed = await sdkClient(robot).ethSendTransaction({ from: sender, caip2: CHAIN as never, calls: [{ to: RECIPIENT, value: '1' }] });
    expect(
      (
        await sdkClient(robot).pollTransactionStatus({
          sendTransactionStatusId: allowed.sendTransactionStatusId,
          pollingIntervalMs: 100,
          timeoutMs: 15_000,
        })
      ).txStatus,
    ).toBe('INCLUDED');
  });

  it.each([
    [{ sponsor: true }, /parameters\.sponsor: the Sandbox has no Gas Station/],
    [{ calls: [{ to: RECIPIENT }, { to: RECIPIENT }] }, /parameters\.calls: the Sandbox sends exactly one call/],
    [{ caip2: 'eip155:x' }, /parameters\.caip2: expected eip155:<chain id>, got eip155:x/],
    [{ calls: [{ to: RECIPIENT, value: '1e18' }] }, /parameters\.calls\[0\]\.value: expected a decimal integer/],
    [{ calls: [{ to: 'nowhere' }] }, /parameters\.calls\[0\]\.to: nowhere is not an Ethereum address/],
  ])('refuses %j before anything is recorded or sent', async (change, message) => {
    const blockBefore = await node.getBlockNumber();
    const activitiesBefore = (await sdkClient().getActivities({})).activities.length;
    await expect(
      sdkClient().ethSendTransaction({ from: sender, caip2: CHAIN as never, calls: [{ to: RECIPIENT, value: '1' }], ...(change as object) }),
    ).rejects.toThrow(message);
    expect((await sdkClient().getActivities({})).activities.length).toBe(activitiesBefore);
    expect(await node.getBlockNumber()).toBe(blockBefore);
  });

  it('a chain with no --rpc is refused with a message naming the flag', async () => {
    await expect(sdkClient().ethSendTransaction({ from: sender, caip2: 'eip155:1', calls: [{ to: RECIPIENT, value: '1' }] })).rejects.toThrow(
      /no node is configured for eip155:1; start the Sandbox with --rpc eip155:1=URL/,
    );
  });
});

describe('solSendTransaction', () => {
  it('is refused with a message naming --rpc when no node is configured for the chain', async () => {
    const client = sdkClient();
    const wallet = await client.createWallet({ walletName: 'solana', accounts: [SOLANA] });
    const signer = wallet.addresses[0]!;
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (tx) => setTransactionMessageFeePayer(address(signer), tx),
      (tx) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: '11111111111111111111111111111111' as never, lastValidBlockHeight: 0n }, tx),
      (tx) =>
        appendTransactionMessageInstruction(
          getTransferSolInstruction({ source: { address: address(signer) } as never, destination: address(signer), amount: 1n }),
          tx,
        ),
    );
    const unsignedTransaction = Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString('hex');
    await expect(client.solSendTransaction({ unsignedTransaction, signWiths: [signer], caip2: 'solana:devnet' })).rejects.toThrow(
      /no node is configured for solana:devnet; start the Sandbox with --rpc solana:devnet=URL/,
    );
  });
});
