/**
 * Older releases of Turnkey's signers, unchanged, against a started service: `@turnkey/viem` 0.4, `@turnkey/ethers` 1.1
 * and `@turnkey/solana` 0.3 (aliased devDependencies), each with the clients it pins. They sign raw digests and
 * transactions through SIGN_RAW_PAYLOAD_V2 / SIGN_RAW_PAYLOADS / SIGN_TRANSACTION_V2 and assemble the signatures
 * themselves; every one is held to the checks the current signers pass (test/support/signer-checks.ts).
 */
import { TurnkeySigner as EthersSignerV11 } from 'turnkey-ethers-v11';
import { TurnkeySigner as SolanaSignerV03 } from 'turnkey-solana-v03';
import { createAccount as createViemAccountV04, createApiKeyAccount as createViemApiKeyAccountV04 } from 'turnkey-viem-v04';
import { parseEther, parseGwei } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as EthersApiKeyStamper from '../../node_modules/turnkey-ethers-v11/node_modules/@turnkey/api-key-stamper';
import type * as EthersHttp from '../../node_modules/turnkey-ethers-v11/node_modules/@turnkey/http';
import type * as EthersSdkServer from '../../node_modules/turnkey-ethers-v11/node_modules/@turnkey/sdk-server';
import type * as SolanaApiKeyStamper from '../../node_modules/turnkey-solana-v03/node_modules/@turnkey/api-key-stamper';
import type * as SolanaHttp from '../../node_modules/turnkey-solana-v03/node_modules/@turnkey/http';
import type * as ViemApiKeyStamper from '../../node_modules/turnkey-viem-v04/node_modules/@turnkey/api-key-stamper';
import type * as ViemHttp from '../../node_modules/turnkey-viem-v04/node_modules/@turnkey/http';
import type * as ViemSdkServer from '../../node_modules/turnkey-viem-v04/node_modules/@turnkey/sdk-server';
import { pinnedDependency } from '../support/pinned-dependency';
import { startTestService, type TestKey, type TestService } from '../support/service';
import {
  ETHEREUM_ACCOUNT,
  ETHEREUM_RECIPIENT,
  SOLANA_ACCOUNT,
  expectEthersSignerSigns,
  expectSolanaFullySigned,
  expectSolanaSignature,
  expectViemAccountSigns,
  solanaTransfer,
  solanaV0Transfer,
} from '../support/signer-checks';

const viemPins = {
  http: await pinnedDependency<typeof ViemHttp>('turnkey-viem-v04', '@turnkey/http'),
  stamper: await pinnedDependency<typeof ViemApiKeyStamper>('turnkey-viem-v04', '@turnkey/api-key-stamper'),
  sdkServer: await pinnedDependency<typeof ViemSdkServer>('turnkey-viem-v04', '@turnkey/sdk-server'),
};
const ethersPins = {
  http: await pinnedDependency<typeof EthersHttp>('turnkey-ethers-v11', '@turnkey/http'),
  stamper: await pinnedDependency<typeof EthersApiKeyStamper>('turnkey-ethers-v11', '@turnkey/api-key-stamper'),
  sdkServer: await pinnedDependency<typeof EthersSdkServer>('turnkey-ethers-v11', '@turnkey/sdk-server'),
};
const solanaPins = {
  http: await pinnedDependency<typeof SolanaHttp>('turnkey-solana-v03', '@turnkey/http'),
  stamper: await pinnedDependency<typeof SolanaApiKeyStamper>('turnkey-solana-v03', '@turnkey/api-key-stamper'),
};

let service: TestService;
let organizationId: string;
let walletAddress: `0x${string}`;
let solanaAddress: string;
let keyId: string;
let keyAddress: `0x${string}`;
let solanaKeyAddress: string;
/** A user who may sign, except what the DENY policies below refuse. */
let signer: TestKey;

const apiKey = (key: TestKey) => ({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
const sdkServerConfig = (key: TestKey) => ({ apiBaseUrl: service.info.baseUrl, ...apiKey(key), defaultOrganizationId: organizationId });

/** Each release takes either a `TurnkeyClient` of its pinned `@turnkey/http` or an API client of its pinned sdk-server. */
const viemClients = {
  '@turnkey/http 2.13 TurnkeyClient': (key: TestKey) =>
    new viemPins.http.TurnkeyClient({ baseUrl: service.info.baseUrl }, new viemPins.stamper.ApiKeyStamper(apiKey(key))),
  '@turnkey/sdk-server 1.3 apiClient': (key: TestKey) => new viemPins.sdkServer.Turnkey(sdkServerConfig(key)).apiClient(),
};
const ethersClients = {
  '@turnkey/http 3.0 TurnkeyClient': (key: TestKey) =>
    new ethersPins.http.TurnkeyClient({ baseUrl: service.info.baseUrl }, new ethersPins.stamper.ApiKeyStamper(apiKey(key))),
  '@turnkey/sdk-server 3.0 apiClient': (key: TestKey) => new ethersPins.sdkServer.Turnkey(sdkServerConfig(key)).apiClient(),
};
const solanaClient = (key: TestKey) =>
  new solanaPins.http.TurnkeyClient({ baseUrl: service.info.baseUrl }, new solanaPins.stamper.ApiKeyStamper(apiKey(key)));

/** More than the DENY policy lets the signer user send. */
const TWO_ETHER = {
  type: 'eip1559',
  chainId: 1,
  nonce: 0,
  to: ETHEREUM_RECIPIENT,
  value: parseEther('2'),
  gas: 21000n,
  maxFeePerGas: parseGwei('30'),
  maxPriorityFeePerGas: parseGwei('1'),
} as const;
const DENIED_TRANSFER = /policy engine denied request explicitly/;

beforeAll(async () => {
  service = await startTestService();
  organizationId = service.info.organizationId;
  const client = service.client();
  const wallet = await client.createWallet({
    ...service.nextEnvelope('ACTIVITY_TYPE_CREATE_WALLET'),
    parameters: { walletName: 'older signers', accounts: [ETHEREUM_ACCOUNT, SOLANA_ACCOUNT] },
  });
  [walletAddress, solanaAddress] = wallet.activity.result.createWalletResult!.addresses as [`0x${string}`, string];
  const keys = await client.createPrivateKeys({
    ...service.nextEnvelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'),
    parameters: {
      privateKeys: [
        { privateKeyName: 'eth key', curve: 'CURVE_SECP256K1', addressFormats: ['ADDRESS_FORMAT_ETHEREUM'], privateKeyTags: [] },
        { privateKeyName: 'solana key', curve: 'CURVE_ED25519', addressFormats: ['ADDRESS_FORMAT_SOLANA'], privateKeyTags: [] },
      ],
    },
  });
  const [eth, solana] = keys.activity.result.createPrivateKeysResultV2!.privateKeys;
  keyId = eth!.privateKeyId!;
  keyAddress = eth!.addresses![0]!.address as `0x${string}`;
  solanaKeyAddress = solana!.addresses![0]!.address!;

  const user = await service.addUser({ name: 'signer' });
  signer = user.key;
  const byTheSigner = `approvers.any(user, user.id == '${user.userId}')`;
  await client.createPolicies({
    ...service.nextEnvelope('ACTIVITY_TYPE_CREATE_POLICIES'),
    parameters: {
      policies: [
        { policyName: 'the signer signs', effect: 'EFFECT_ALLOW', consensus: byTheSigner, condition: "activity.action == 'SIGN'", notes: '' },
        {
          policyName: 'at most one ether',
          effect: 'EFFECT_DENY',
          consensus: byTheSigner,
          condition: 'eth.tx.value > 1000000000000000000',
          notes: '',
        },
        {
          policyName: 'no batches',
          effect: 'EFFECT_DENY',
          consensus: byTheSigner,
          condition: "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS'",
          notes: '',
        },
      ],
    },
  });
});
afterAll(() => service.close());

describe.each(Object.entries(viemClients))('@turnkey/viem 0.4 createAccount with a %s', (_client, clientFor) => {
  it.each([
    ['wallet account address', () => walletAddress],
    ['private key address', () => keyAddress],
    ['private key id', () => keyId],
  ])('signs a message, typed data and transactions with signWith = %s', async (_label, signWith) => {
    const account = await createViemAccountV04({ client: clientFor(service.rootKey), organizationId, signWith: signWith() });
    await expectViemAccountSigns(account, signWith() === keyId ? keyAddress : (signWith() as `0x${string}`));
  });

  it('surfaces the policy refusal of a transfer above the limit, and signs one within it', async () => {
    const account = await createViemAccountV04({ client: clientFor(signer), organizationId, signWith: walletAddress });
    await expect(account.signTransaction(TWO_ETHER)).rejects.toThrow(DENIED_TRANSFER);
    await expectViemAccountSigns(account, walletAddress);
  });
});

describe('@turnkey/viem 0.4 createApiKeyAccount', () => {
  it('builds its own client from an API key and signs with a private key id', async () => {
    const account = await createViemApiKeyAccountV04({
      ...apiKey(service.rootKey),
      baseUrl: service.info.baseUrl,
      organizationId,
      privateKeyId: keyId,
    });
    await expectViemAccountSigns(account, keyAddress);
  });
});

describe.each(Object.entries(ethersClients))('@turnkey/ethers 1.1 TurnkeySigner with a %s', (_client, clientFor) => {
  it.each([
    ['wallet account address', () => walletAddress],
    ['private key id', () => keyId],
  ])('signs a message, typed data and transactions with signWith = %s', async (_label, signWith) => {
    const ethersSigner = new EthersSignerV11({ client: clientFor(service.rootKey), organizationId, signWith: signWith() });
    await expectEthersSignerSigns(ethersSigner, signWith() === keyId ? keyAddress : signWith());
  });

  it('surfaces the policy refusal of a transfer above the limit, and signs one within it', async () => {
    const ethersSigner = new EthersSignerV11({ client: clientFor(signer), organizationId, signWith: keyAddress });
    const { to, value, chainId, nonce, maxFeePerGas, maxPriorityFeePerGas, gas } = TWO_ETHER;
    await expect(
      ethersSigner.signTransaction({ type: 2, to, value, chainId, nonce, maxFeePerGas, maxPriorityFeePerGas, gasLimit: gas }),
    ).rejects.toThrow(DENIED_TRANSFER);
    await expectEthersSignerSigns(ethersSigner, keyAddress);
  });
});

describe('@turnkey/solana 0.3 TurnkeySigner with a @turnkey/http 2.12 TurnkeyClient', () => {
  it.each([
    ['wallet account', () => solanaAddress],
    ['private key', () => solanaKeyAddress],
  ])('signs a message, and legacy and v0 transactions one by one and in a batch, from a %s', async (_label, address) => {
    const solanaSigner = new SolanaSignerV03({ client: solanaClient(service.rootKey), organizationId });
    const message = new TextEncoder().encode('solana message from an older release');
    expectSolanaSignature(await solanaSigner.signMessage(message, address()), message, address());

    const legacy = solanaTransfer(address());
    const v0 = solanaV0Transfer(address());
    await solanaSigner.addSignature(legacy, address());
    await solanaSigner.addSignature(v0, address());
    expectSolanaFullySigned(legacy);
    expectSolanaFullySigned(v0);

    const batch = await solanaSigner.signAllTransactions([solanaTransfer(address()), solanaV0Transfer(address())], address());
    expect(batch).toHaveLength(2);
    batch.forEach((transaction) => expectSolanaFullySigned(transaction));
  });

  it('surfaces the policy refusal of a batch, and signs one by one', async () => {
    const solanaSigner = new SolanaSignerV03({ client: solanaClient(signer), organizationId });
    await expect(solanaSigner.signAllTransactions([solanaTransfer(solanaAddress)], solanaAddress)).rejects.toThrow(
      /policy engine denied request explicitly/,
    );
    const transaction = solanaTransfer(solanaAddress);
    await solanaSigner.addSignature(transaction, solanaAddress);
    expectSolanaFullySigned(transaction);
  });
});
