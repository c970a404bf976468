import {
  encodeFunctionData,
  erc20Abi,
  erc721Abi,
  maxUint160,
  maxUint256,
  parseAbi,
  parseEther,
  serializeTransaction,
  type TransactionSerializable,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  describeSigningRequest,
  type ClearSigningContext,
  type EthereumTransactionDetails,
  type RawPayloadsDetails,
} from '../../../src/shared/clear-signing/index.js';
import { MAIL } from '../../support/eip712-mail.js';

// Well-known mainnet addresses.
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
const UNIVERSAL_ROUTER = '0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD';
const UNISWAP_V2_ROUTER = '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';

const account = privateKeyToAccount('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
const SIGNER = account.address;

const context: ClearSigningContext = {
  wallets: [
    {
      walletId: 'wallet-1',
      walletName: 'Treasury',
      accounts: [{ address: SIGNER, path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    },
  ],
  contracts: [{ address: USDC, type: 'ETHEREUM', label: 'USD Coin', definition: erc20Abi, chainId: 1 }],
  knownRecipients: [VITALIK],
};

const fees = { chainId: 1, nonce: 7, gas: 60_000n, maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n } as const;

function signTransaction(tx: TransactionSerializable, extra: ClearSigningContext = {}) {
  return describeSigningRequest(
    {
      operation: 'sign_transaction',
      parameters: { signWith: SIGNER, unsignedTransaction: serializeTransaction(tx), type: 'TRANSACTION_TYPE_ETHEREUM' },
    },
    { ...context, ...extra },
  );
}

const details = (description: { details: unknown }) => description.details as EthereumTransactionDetails;
const kinds = (description: { warnings: readonly { kind: string }[] }) => description.warnings.map((warning) => warning.kind);

describe('clear signing: ERC-20 calls with the uploaded ABI', () => {
  it('reads a USDC transfer: token label, recipient, amount in USDC, fees, signer by name', () => {
    const recipient = '0x1111111111111111111111111111111111111111';
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 250_000_000n] });
    const description = signTransaction({ type: 'eip1559', to: USDC, data, ...fees });
    const tx = details(description);

    expect(description.title).toBe('Sign an Ethereum transaction');
    expect(description.network).toEqual({ family: 'ethereum', name: 'Ethereum', chainId: 1, testnet: false });
    expect(description.signer).toMatchObject({ kind: 'wallet account', walletName: 'Treasury', text: "Treasury / m/44'/60'/0'/0/0" });
    expect(description.summary).toBe(`Transfer 250 USDC to ${recipient} on Ethereum`);
    expect(tx.typeText).toBe('EIP-1559 (type 2)');
    expect(tx.to).toEqual({ address: USDC, label: 'USD Coin', role: 'contract' });
    expect(tx.value.text).toBe('0 ETH');
    expect(tx.nonce).toBe(7);
    expect(tx.fees.maxFeePerGas?.text).toBe('30 gwei');
    expect(tx.fees.maxPriorityFeePerGas?.text).toBe('1 gwei');
    expect(tx.fees.maxFee?.text).toBe('0.0018 ETH');
    expect(tx.call).toMatchObject({ selector: '0xa9059cbb', decoded: true, functionName: 'transfer', signature: 'transfer(address,uint256)' });
    expect(tx.call?.args).toEqual([
      { name: 'recipient', type: 'address', text: recipient, address: { address: recipient, role: 'address' } },
      {
        name: 'amount',
        type: 'uint256',
        text: '250 USDC',
        raw: '250000000',
        amount: {
          raw: 250_000_000n,
          formatted: '250',
          unit: 'USDC',
          text: '250 USDC',
          rawUnit: 'raw units (6 decimals)',
          source: 'known token list',
        },
      },
    ]);
    // The screen's reading is the policy engine's: eth.tx.function_name and contract_call_args.
    expect(tx.policy).toMatchObject({ function_name: 'transfer', contract_call_args: { recipient, amount: 250_000_000n } });
    expect(description.warnings).toEqual([
      { kind: 'NEW_RECIPIENT', message: `${recipient} has never received anything from this organization before.`, subject: recipient },
    ]);
    expect(description.policyStanding).toBeUndefined();
  });

  it('reads a bounded approve without warnings and an unlimited approve with one', () => {
    const bounded = signTransaction({
      type: 'eip1559',
      to: USDC,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [VITALIK, 1_000_000n] }),
      ...fees,
    });
    expect(bounded.summary).toBe(`Approve 1 USDC for ${VITALIK} on Ethereum`);
    expect(bounded.warnings).toEqual([]);

    const unlimited = signTransaction(
      { type: 'eip1559', to: USDC, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [PERMIT2, maxUint256] }), ...fees },
      { contracts: [...context.contracts!, { address: PERMIT2, type: 'ETHEREUM', label: 'Uniswap Permit2', definition: [], chainId: 1 }] },
    );
    const amount = details(unlimited).call?.args[1];
    expect(amount).toMatchObject({ name: 'amount', text: 'unlimited (the maximum uint256)', raw: maxUint256.toString() });
    expect(unlimited.warnings).toContainEqual({
      kind: 'UNLIMITED_APPROVAL',
      message: `This approves Uniswap Permit2 (${PERMIT2}) to spend an unlimited amount of USD Coin (${USDC}) from the account, until the approval is revoked.`,
      subject: PERMIT2,
    });
  });

  it('flags setApprovalForAll(operator, true) on an NFT contract', () => {
    const bayc = '0xBC4CA0EdA7647A8aB7C2061c2E118A18a936f13D';
    const description = signTransaction(
      { type: 'eip1559', to: bayc, data: encodeFunctionData({ abi: erc721Abi, functionName: 'setApprovalForAll', args: [VITALIK, true] }), ...fees },
      { contracts: [{ address: bayc, type: 'ETHEREUM', label: 'BAYC', definition: erc721Abi, chainId: 1 }] },
    );
    expect(description.summary).toBe(`Call setApprovalForAll on BAYC for ${VITALIK} on Ethereum`);
    expect(description.warnings).toEqual([
      {
        kind: 'UNLIMITED_APPROVAL',
        message: `This lets ${VITALIK} move every token of BAYC (${bayc}) the account holds, now and later, until the approval is revoked.`,
        subject: VITALIK,
      },
    ]);
  });

  it('flags an unlimited approve even without an uploaded ABI, naming the likely function', () => {
    // SHIB: a real ERC-20, deliberately not on the known token list.
    const shib = '0x95aD61b0a150d79219dCF64E1E6Cc01f0B64C4cE';
    const description = signTransaction({
      type: 'eip1559',
      to: shib,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [PERMIT2, maxUint256] }),
      ...fees,
    });
    const tx = details(description);
    expect(tx.call).toMatchObject({ selector: '0x095ea7b3', decoded: false, likelySignature: 'approve(address,uint256)', tokenUnknown: true });
    expect(tx.call?.args.map((arg) => arg.text)).toEqual([PERMIT2, 'unlimited (the maximum uint256)']);
    expect(kinds(description)).toEqual(['UNKNOWN_CONTRACT', 'UNLIMITED_APPROVAL', 'NEW_RECIPIENT']);
    expect(description.summary).toBe(`Call approve on ${shib} for ${PERMIT2} on Ethereum`);
  });
});

describe('clear signing: a call without an ABI', () => {
  it('shows a Uniswap V2 swap as an unknown contract with its selector, on Base, above the threshold', () => {
    const swap = parseAbi(['function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable']);
    const data = encodeFunctionData({ abi: swap, functionName: 'swapExactETHForTokens', args: [1n, [WETH, USDC], SIGNER, 1_900_000_000n] });
    const description = signTransaction(
      { type: 'eip1559', to: UNISWAP_V2_ROUTER, data, value: parseEther('1.5'), ...fees, chainId: 8453 },
      { thresholds: { ethereumWei: parseEther('1') } },
    );
    const tx = details(description);
    expect(description.network).toEqual({ family: 'ethereum', name: 'Base', chainId: 8453, testnet: false });
    expect(tx.to).toEqual({ address: UNISWAP_V2_ROUTER, role: 'unknown contract' });
    expect(tx.value).toMatchObject({ text: '1.5 ETH', raw: 1_500_000_000_000_000_000n, rawUnit: 'wei' });
    expect(tx.call).toEqual({ selector: '0x7ff36ab5', decoded: false, args: [] });
    expect(description.summary).toBe(`Call 0x7ff36ab5 on ${UNISWAP_V2_ROUTER} on Base`);
    expect(kinds(description)).toEqual(['UNKNOWN_CONTRACT', 'NEW_RECIPIENT', 'VALUE_ABOVE_THRESHOLD']);
    expect(description.warnings[0]!.message).toContain('selector 0x7ff36ab5');
    expect(description.warnings[2]!.message).toBe('This sends 1.5 ETH, above the 1 ETH threshold set in Settings.');
  });

  it('reads a plain ETH transfer on Sepolia to a known recipient without warnings', () => {
    const description = signTransaction({ type: 'eip1559', to: VITALIK, value: parseEther('0.01'), ...fees, chainId: 11155111 });
    expect(description.summary).toBe(`Send 0.01 ETH to ${VITALIK} on Sepolia`);
    expect(description.network.testnet).toBe(true);
    expect(details(description).to?.role).toBe('address');
    expect(description.warnings).toEqual([]);
  });

  it('reads a contract deployment and a legacy transaction without a chain id', () => {
    const deployment = signTransaction({ type: 'eip1559', data: '0x6080604052', ...fees });
    expect(deployment.summary).toBe('Deploy a contract on Ethereum');
    expect(details(deployment).to).toBeUndefined();
    expect(deployment.warnings).toEqual([]);

    const legacy = signTransaction({ type: 'legacy', to: VITALIK, value: 1n, nonce: 0, gas: 21_000n, gasPrice: 2_000_000_000n });
    expect(details(legacy).typeText).toBe('Legacy');
    expect(legacy.network).toEqual({ family: 'ethereum', name: 'every chain (no EIP-155 chain id: the signature can be replayed on any chain)' });
    expect(details(legacy).fees).toMatchObject({ gas: 21_000n, gasPrice: { text: '2 gwei' }, maxFee: { text: '0.000042 ETH' } });
  });

  it('names a chain viem does not know by its id', () => {
    const description = signTransaction({ type: 'eip1559', to: VITALIK, ...fees, chainId: 4_242_424_242 });
    expect(description.network.name).toBe('chain 4242424242 (not a chain QuorumKey knows)');
  });
});

describe('clear signing: EIP-712 and EIP-7702', () => {
  function signPayload(
    payload: string,
    encoding: 'PAYLOAD_ENCODING_EIP712' | 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
    extra: ClearSigningContext = {},
  ) {
    const description = describeSigningRequest(
      { operation: 'sign_raw_payload', parameters: { signWith: SIGNER, payload, encoding, hashFunction: 'HASH_FUNCTION_NO_OP' } },
      { ...context, ...extra },
    );
    return { description, payload: (description.details as RawPayloadsDetails).payloads[0]! };
  }

  it('reads the EIP-712 Mail example as a tree and signs its known digest', () => {
    const { description, payload } = signPayload(JSON.stringify(MAIL), 'PAYLOAD_ENCODING_EIP712');
    expect(description.title).toBe('Sign EIP-712 typed data');
    expect(description.summary).toBe('Sign EIP-712 Mail on Ethereum');
    // The digest from the EIP's own example.
    expect(payload.signedBytesHex).toBe('be609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2');
    expect(payload.typedData?.domain.map((node) => [node.name, node.text])).toEqual([
      ['name', 'Ether Mail'],
      ['version', '1'],
      ['chainId', '1'],
      ['verifyingContract', '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC'],
    ]);
    const [from, to, contents] = payload.typedData!.message;
    expect(from).toMatchObject({ name: 'from', type: 'Person', text: '' });
    expect(from!.children?.map((node) => [node.name, node.text])).toEqual([
      ['name', 'Cow'],
      ['wallet', '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826'],
    ]);
    expect(to!.children?.[1]?.address).toEqual({ address: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB', role: 'address' });
    expect(contents).toEqual({ name: 'contents', type: 'string', text: 'Hello, Bob!' });
    expect(payload.typedData?.policy).toMatchObject({ primary_type: 'Mail', domain: { name: 'Ether Mail', chain_id: 1n } });
    expect(payload.policy).toEqual({ eip_712: payload.typedData?.policy });
    expect(description.warnings).toEqual([]);
  });

  const permitSingle = (amount: bigint) => ({
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      PermitDetails: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint160' },
        { name: 'expiration', type: 'uint48' },
        { name: 'nonce', type: 'uint48' },
      ],
      PermitSingle: [
        { name: 'details', type: 'PermitDetails' },
        { name: 'spender', type: 'address' },
        { name: 'sigDeadline', type: 'uint256' },
      ],
    },
    primaryType: 'PermitSingle',
    domain: { name: 'Permit2', chainId: 1, verifyingContract: PERMIT2 },
    message: {
      details: { token: USDC, amount: amount.toString(), expiration: '1767225600', nonce: '0' },
      spender: UNIVERSAL_ROUTER,
      sigDeadline: '1764547200',
    },
  });

  it('reads a Permit2 PermitSingle: token labelled, amount in USDC, dates, spender', () => {
    const { description, payload } = signPayload(JSON.stringify(permitSingle(1_000_000_000n)), 'PAYLOAD_ENCODING_EIP712', {
      contracts: [...context.contracts!, { address: PERMIT2, type: 'ETHEREUM', label: 'Uniswap Permit2', definition: [], chainId: 1 }],
      knownRecipients: [UNIVERSAL_ROUTER],
    });
    const typed = payload.typedData!;
    expect(typed.primaryType).toBe('PermitSingle');
    expect(typed.verifyingContract).toEqual({ address: PERMIT2, label: 'Uniswap Permit2', role: 'contract' });
    expect(typed.network?.name).toBe('Ethereum');
    const [detailsNode, spender, deadline] = typed.message;
    expect(detailsNode!.children?.map((node) => [node.name, node.text])).toEqual([
      ['token', `USD Coin (${USDC})`],
      ['amount', '1,000 USDC'],
      ['expiration', '2026-01-01T00:00:00.000Z'],
      ['nonce', '0'],
    ]);
    expect(spender).toMatchObject({ name: 'spender', text: UNIVERSAL_ROUTER });
    expect(deadline).toMatchObject({ name: 'sigDeadline', text: '2025-12-01T00:00:00.000Z', raw: '1764547200' });
    expect(description.warnings).toEqual([]);
  });

  it('warns about an unlimited Permit2 allowance and a new spender', () => {
    const { description, payload } = signPayload(JSON.stringify(permitSingle(maxUint160)), 'PAYLOAD_ENCODING_EIP712');
    expect(payload.typedData!.message[0]!.children?.[1]?.text).toBe('unlimited (the maximum uint160)');
    expect(description.warnings).toEqual([
      {
        kind: 'UNLIMITED_APPROVAL',
        message: `This PermitSingle signature lets ${UNIVERSAL_ROUTER} spend an unlimited amount of USD Coin (${USDC}) from the account.`,
        subject: UNIVERSAL_ROUTER,
      },
      { kind: 'NEW_RECIPIENT', message: `${UNIVERSAL_ROUTER} has never received anything from this organization before.`, subject: UNIVERSAL_ROUTER },
    ]);
  });

  it('reads an EIP-7702 authorization: delegate, chain, nonce, and warns', () => {
    const delegate = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B';
    const { description, payload } = signPayload(
      JSON.stringify({ address: delegate, chainId: 11155111, nonce: 3 }),
      'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
    );
    expect(description.title).toBe('Sign an EIP-7702 authorization');
    expect(payload.authorization).toEqual({
      delegate: { address: delegate, role: 'unknown contract' },
      network: { family: 'ethereum', name: 'Sepolia', chainId: 11155111, testnet: true },
      nonce: 3n,
    });
    expect(description.network.name).toBe('Sepolia');
    expect(payload.policy).toEqual({ eip_7702_authorization: { address: delegate, chain_id: 11155111n, nonce: 3n } });
    expect(kinds(description)).toEqual(['EIP7702_DELEGATION']);
    expect(description.warnings[0]!.message).toBe(
      `This makes Treasury / m/44'/60'/0'/0/0 run the code of ${delegate} on Sepolia: that code can move everything the account holds. Approve only a delegate you have reviewed.`,
    );
  });

  it('reads the delegations of a type-4 transaction, chain 0 as every chain', async () => {
    const delegate = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B';
    const authorization = await account.signAuthorization({ address: delegate, chainId: 0, nonce: 8 });
    const description = signTransaction({ type: 'eip7702', to: SIGNER, authorizationList: [authorization], ...fees });
    const tx = details(description);
    expect(tx.typeText).toBe('EIP-7702 set code (type 4)');
    expect(tx.authorizations).toEqual([
      {
        delegate: { address: delegate, role: 'unknown contract' },
        network: { family: 'ethereum', name: 'every chain (chain id 0)', chainId: 0 },
        nonce: 8n,
      },
    ]);
    expect(kinds(description)).toEqual(['EIP7702_DELEGATION']);
  });

  it('refuses typed data that does not match its types, naming the field', () => {
    const broken = { ...MAIL, message: { ...MAIL.message, extra: 1 } };
    expect(() => signPayload(JSON.stringify(broken), 'PAYLOAD_ENCODING_EIP712')).toThrow(
      /parameters\.payload message does not match its types: "extra" is not a member of Mail/,
    );
  });
});
