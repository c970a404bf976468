import { calculateSafeTransactionHash, encodeMultiSendData, generateTypedData, getEip712TxTypes } from '@safe-global/protocol-kit';
import { encodeFunctionData, erc20Abi, getAddress, maxUint256, parseAbi, parseEther, serializeTransaction, zeroAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  describeSigningRequest,
  flatFacts,
  signingFacts,
  type ClearSigningContext,
  type EthereumTransactionDetails,
  type RawPayloadsDetails,
  type SafeTransaction,
} from '../../../src/shared/clear-signing/index.js';
import { MAX_SAFE_NESTING } from '../../../src/shared/clear-signing/safe.js';

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const SAFE = getAddress('0x5afe5afe5afe5afe5afe5afe5afe5afe5afe5afe');
const SIGNER = '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23';
const RECIPIENT = '0x1111111111111111111111111111111111111111';
const DRAINER = '0x96221423681A6d52E184D440a8eFCEbB105C7242';
const MULTI_SEND_CALL_ONLY_1_4_1 = '0x9641d764fc13c8B624c04430C7356C1C7C8102e2';
const MULTI_SEND_1_3_0 = '0xA238CBeb142c10Ef7Ad8442C6D1f9E89e07e7761';

const SAFE_ABI = parseAbi([
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool success)',
  'function multiSend(bytes transactions) payable',
]);

const context: ClearSigningContext = {
  wallets: [{ walletId: 'w', walletName: 'Ops', accounts: [{ address: SIGNER, path: "m/44'/60'/0'/0/0" }] }],
  knownRecipients: [RECIPIENT],
};

interface SafeTx {
  to: string;
  value?: bigint;
  data?: Hex;
  operation?: 0 | 1;
  safeTxGas?: bigint;
  baseGas?: bigint;
  gasPrice?: bigint;
  gasToken?: string;
  refundReceiver?: string;
}

const withDefaults = (tx: SafeTx) => ({
  value: 0n,
  data: '0x' as Hex,
  operation: 0 as const,
  safeTxGas: 0n,
  baseGas: 0n,
  gasPrice: 0n,
  gasToken: zeroAddress,
  refundReceiver: zeroAddress,
  ...tx,
});

// One owner's signature as execTransaction carries it (r ‖ s ‖ v): the reader shows it, it does not check it.
const SIGNATURES = `0x${'11'.repeat(32)}${'22'.repeat(32)}1b` as Hex;

function execTransaction(safeTx: SafeTx, extra: ClearSigningContext = {}) {
  const tx = withDefaults(safeTx);
  const data = encodeFunctionData({
    abi: SAFE_ABI,
    functionName: 'execTransaction',
    args: [
      getAddress(tx.to),
      tx.value,
      tx.data,
      tx.operation,
      tx.safeTxGas,
      tx.baseGas,
      tx.gasPrice,
      getAddress(tx.gasToken),
      getAddress(tx.refundReceiver),
      SIGNATURES,
    ],
  });
  const unsignedTransaction = serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 3,
    gas: 300_000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
    to: SAFE,
    data,
  });
  return describeSigningRequest(
    { operation: 'sign_transaction', parameters: { signWith: SIGNER, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' } },
    { ...context, ...extra },
  );
}

const safeOf = (description: { details: unknown }) => (description.details as EthereumTransactionDetails).call!.safeTransaction!;
const kinds = (description: { warnings: readonly { kind: string }[] }) => description.warnings.map((warning) => warning.kind);
const lines = (description: Parameters<typeof signingFacts>[0]) =>
  flatFacts(signingFacts(description)).map((fact) => `${fact.label}: ${fact.value.map((ref) => ref.text).join(' | ')}`);

const usdcTransfer = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, amount] });

describe('clear signing: Safe execTransaction', () => {
  it('reads the Safe, the CALL it makes and the ERC-20 transfer inside it, in the token’s units', () => {
    const description = execTransaction({ to: USDC, data: usdcTransfer(250_000_000n) });
    const safe = safeOf(description);

    expect(safe.safe).toEqual({ address: SAFE, role: 'unknown contract' });
    expect(safe.operation).toBe('CALL');
    expect(safe.to).toEqual({ address: USDC, label: 'USDC', role: 'token' });
    expect(safe.value.text).toBe('0 ETH');
    expect(safe.call).toMatchObject({ functionName: 'transfer', likelySignature: 'transfer(address,uint256)' });
    expect(safe.call!.args.map((arg) => [arg.name, arg.text])).toEqual([
      ['recipient', RECIPIENT],
      ['amount', '250 USDC'],
    ]);
    // execTransaction runs at the Safe's current nonce: neither it nor the hash over it can be known offline.
    expect(safe.nonce).toBeUndefined();
    expect(safe.safeTxHash).toBeUndefined();
    expect(safe.signatures).toBe(SIGNATURES);
    expect(description.summary).toBe(`Safe ${SAFE}: transfer 250 USDC to ${RECIPIENT} on Ethereum`);
    expect(kinds(description)).not.toContain('SAFE_DELEGATECALL');
    expect(kinds(description)).not.toContain('UNKNOWN_CONTRACT');

    const facts = lines(description);
    expect(facts).toContain('Call: Safe execTransaction | read by its selector: whether the contract is a Safe cannot be checked offline');
    expect(facts).toContain('Call.operation: CALL');
    expect(facts).toContain('Call.call.amount: 250 USDC | raw 250000000 | known token list');
    expect(facts).toContain('Call.nonce: the Safe’s current nonce: not known offline');
    expect(facts).toContain('Call.refund: none (gas price 0)');
  });

  it('flags a DELEGATECALL to a contract other than MultiSend as critical, first among the warnings', () => {
    const description = execTransaction({ to: DRAINER, data: '0xa9059cbb', operation: 1 });
    const safe = safeOf(description);

    expect(safe.operation).toBe('DELEGATECALL');
    expect(kinds(description)[0]).toBe('SAFE_DELEGATECALL');
    expect(description.warnings[0]).toMatchObject({ kind: 'SAFE_DELEGATECALL', severity: 'critical', subject: DRAINER });
    expect(description.warnings[0]!.message).toContain(`would run the code of ${DRAINER} as its own (DELEGATECALL)`);
    expect(description.summary).toBe(`Safe ${SAFE} by DELEGATECALL: call 0xa9059cbb on ${DRAINER} on Ethereum`);
    expect(lines(description)).toContain('Call.operation: DELEGATECALL: the target’s code runs with the Safe’s own storage');
  });

  it('unpacks a MultiSend batch of three calls, each a row read on its own, without a critical warning', () => {
    const batch = encodeMultiSendData([
      { to: USDC, value: '0', data: usdcTransfer(1_500_000n), operation: 0 },
      { to: RECIPIENT, value: parseEther('0.25').toString(), data: '0x', operation: 0 },
      { to: USDC, value: '0', data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [DRAINER, maxUint256] }), operation: 0 },
    ]) as Hex;
    const description = execTransaction({
      to: MULTI_SEND_CALL_ONLY_1_4_1,
      data: encodeFunctionData({ abi: SAFE_ABI, functionName: 'multiSend', args: [batch] }),
      operation: 1,
    });
    const safe = safeOf(description);

    expect(safe.to).toEqual({ address: MULTI_SEND_CALL_ONLY_1_4_1, label: 'Safe MultiSendCallOnly 1.4.1', role: 'contract' });
    const rows = safe.call!.batch!;
    expect(rows).toHaveLength(3);
    expect(safe.call!.batchError).toBeUndefined();
    expect(rows.map((row) => [row.operation, row.to.address, row.value.text])).toEqual([
      ['CALL', USDC, '0 ETH'],
      ['CALL', RECIPIENT, '0.25 ETH'],
      ['CALL', USDC, '0 ETH'],
    ]);
    expect(rows[0]!.call!.args[1]!.text).toBe('1.5 USDC');
    expect(rows[1]!.call).toBeUndefined();
    expect(rows[2]!.call!.args[1]!.text).toBe('unlimited (the maximum uint256)');
    expect(kinds(description)).not.toContain('SAFE_DELEGATECALL');
    expect(kinds(description)).toContain('UNLIMITED_APPROVAL');
    expect(description.summary).toBe(`Safe ${SAFE} by DELEGATECALL: run a batch of 3 calls through Safe MultiSendCallOnly 1.4.1 on Ethereum`);

    const facts = lines(description);
    expect(facts).toContain('Call.call: MultiSend batch of 3 calls');
    expect(facts).toContain(`Call.call.call 2: CALL | ${RECIPIENT} | 0.25 ETH`);
    expect(facts).toContain('Call.call.call 3.call.amount: unlimited (the maximum uint256)');
  });

  it('flags a DELEGATECALL inside a batch, and reads a truncated batch up to where it breaks', () => {
    const rows = encodeMultiSendData([
      { to: DRAINER, value: '0', data: '0x12345678', operation: 1 },
      { to: USDC, value: '0', data: usdcTransfer(1n), operation: 0 },
    ]) as Hex;
    const truncated = rows.slice(0, -10) as Hex;
    const description = execTransaction({
      to: MULTI_SEND_1_3_0,
      data: encodeFunctionData({ abi: SAFE_ABI, functionName: 'multiSend', args: [truncated] }),
      operation: 1,
    });
    const call = safeOf(description).call!;

    expect(call.batch).toHaveLength(1);
    expect(call.batchError).toBe('call 2 of the batch declares 68 bytes of call data but only 63 remain; the calls after it cannot be read');
    expect(kinds(description)).toEqual(expect.arrayContaining(['SAFE_DELEGATECALL', 'UNDECODED']));
    expect(description.warnings[0]).toMatchObject({ kind: 'SAFE_DELEGATECALL', severity: 'critical', subject: DRAINER });
    expect(description.warnings[0]!.message).toMatch(/^The Safe running this batch would run the code of/);
  });

  it('reads a Safe inside a Safe, and stops with a warning past the nesting limit', () => {
    const execOn = (data: Hex) =>
      encodeFunctionData({
        abi: SAFE_ABI,
        functionName: 'execTransaction',
        args: [SAFE, 0n, data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress, SIGNATURES],
      });
    const nested = (levels: number) => Array.from({ length: levels }).reduce<Hex>((data) => execOn(data), usdcTransfer(1n));

    const twice = safeOf(execTransaction({ to: SAFE, data: nested(1) }));
    expect(twice.call?.safeTransaction?.call?.functionName).toBe('transfer');

    const tooDeep = execTransaction({ to: SAFE, data: nested(MAX_SAFE_NESTING) });
    expect(kinds(tooDeep)).toContain('UNDECODED');
    expect(tooDeep.warnings.find((warning) => warning.kind === 'UNDECODED')?.message).toMatch(/nest more than 8 levels deep/);
  });

  it('names a refund and who is paid', () => {
    const relayer = '0x2222222222222222222222222222222222222222';
    const description = execTransaction({ to: RECIPIENT, value: 1n, gasPrice: 30_000_000_000n, baseGas: 50_000n, refundReceiver: relayer });
    const safe = safeOf(description);

    expect(safe.gasPrice.text).toBe('30 gwei');
    expect(safe.refundReceiver?.address).toBe(relayer);
    const refund = description.warnings.find((warning) => warning.kind === 'SAFE_REFUND');
    expect(refund?.message).toBe(
      `${SAFE} pays ${relayer} a refund for this transaction: 30 gwei per gas, for all the gas its call uses plus 50000 base gas. Refunds are meant for relayers; check that one is expected.`,
    );
    expect(lines(description)).toContain('Call.refund.refundReceiver: ' + `${relayer}`);
  });
});

describe('clear signing: a SafeTx typed-data message', () => {
  const message = {
    to: USDC,
    value: '0',
    data: usdcTransfer(250_000_000n),
    operation: 0,
    safeTxGas: '0',
    baseGas: '0',
    gasPrice: '0',
    gasToken: zeroAddress,
    refundReceiver: zeroAddress,
    nonce: 42,
  };

  function signTypedData(document: unknown) {
    return describeSigningRequest(
      {
        operation: 'sign_raw_payload',
        parameters: {
          signWith: SIGNER,
          payload: JSON.stringify(document, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
          encoding: 'PAYLOAD_ENCODING_EIP712',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        },
      },
      context,
    );
  }

  const withoutNonce = ({ nonce: _nonce, safeTxHash: _hash, signatures: _signatures, ...rest }: SafeTransaction) => rest;

  it.each(['1.3.0', '1.4.1', '1.5.0'])('reads as execTransaction does, with the safeTxHash protocol-kit computes (Safe %s)', (safeVersion) => {
    const document = generateTypedData({ safeAddress: SAFE, safeVersion, chainId: 1n, data: message });
    const description = signTypedData(document);
    const payload = (description.details as RawPayloadsDetails).payloads[0]!;
    const safe = payload.typedData!.safeTransaction!;

    const expectedHash = calculateSafeTransactionHash(SAFE, message, safeVersion, 1n);
    expect(safe.safeTxHash).toBe(expectedHash);
    // What the key signs is that hash: the card names what the owners' signatures cover.
    expect(`0x${payload.signedBytesHex}`).toBe(expectedHash);
    expect(safe.nonce).toBe(42n);
    expect(description.summary).toBe(`Sign a SafeTx for Safe ${SAFE}: transfer 250 USDC to ${RECIPIENT} on Ethereum (nonce 42)`);
    expect(kinds(description)).not.toContain('SAFE_HASH_MISMATCH');

    const transaction = safeOf(execTransaction({ to: USDC, data: message.data }));
    expect(withoutNonce(safe)).toEqual(withoutNonce(transaction));
    expect(lines(description)).toContain(`Payload.Safe transaction.safeTxHash: ${expectedHash}`);
  });

  it('warns when the domain names more than the Safe checks, so the signature is not over its safeTxHash', () => {
    const document = generateTypedData({ safeAddress: SAFE, safeVersion: '1.4.1', chainId: 1n, data: message });
    const spoofed = {
      ...document,
      types: { ...document.types, EIP712Domain: [{ name: 'name', type: 'string' }, ...document.types.EIP712Domain] },
      domain: { ...document.domain, name: 'Safe' },
    };
    const description = signTypedData(spoofed);
    const safe = (description.details as RawPayloadsDetails).payloads[0]!.typedData!.safeTransaction!;

    expect(safe.safeTxHash).toBe(calculateSafeTransactionHash(SAFE, message, '1.4.1', 1n));
    expect(kinds(description)).toContain('SAFE_HASH_MISMATCH');
  });

  it('does not read a message named SafeTx whose members differ from the Safe’s', () => {
    const document = generateTypedData({ safeAddress: SAFE, safeVersion: '1.4.1', chainId: 1n, data: message });
    const reordered = { ...document, types: { ...document.types, SafeTx: [...getEip712TxTypes('1.4.1').SafeTx].reverse() } };
    const description = signTypedData(reordered);

    expect((description.details as RawPayloadsDetails).payloads[0]!.typedData!.safeTransaction).toBeUndefined();
  });
});
