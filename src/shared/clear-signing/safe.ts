/**
 * Safe smart-account transactions in words. An `execTransaction` call (Safe 1.3.0 to 1.5.0, L1 and L2 share it) and
 * a SafeTx EIP-712 message read as the call the Safe will make: its operation, target, value, the call itself read as
 * any call is (the caller's reader: the same ABIs, token lists and registry descriptors as a transaction's own call,
 * and back here for a nested Safe or a batch), the refund settings and the safeTxHash the owners' signatures cover. A
 * MultiSend batch is unpacked into its calls.
 *
 * A DELEGATECALL runs its target's code with the Safe's own storage: that code can replace the owners or the
 * singleton and then move everything the Safe holds. Only the published MultiSend contracts are expected there, so a
 * DELEGATECALL to anything else is a critical warning.
 */
import {
  bytesToBigInt,
  bytesToHex,
  decodeFunctionData,
  getAddress,
  hashTypedData,
  hexToBytes,
  parseAbi,
  toFunctionSelector,
  zeroAddress,
  type Address,
  type Hex,
} from 'viem';
import type { DecodedTypedData } from '../chains/ethereum';
import { ether, gwei, tokenAmount } from './amounts';
import type { DescriptorSection } from './erc7730/reading';
import type { Lookup } from './lookup';
import { multiSendAt } from './safe-deployments';
import type { AddressRef, Amount, ContractCall, SafeCall, SafeOperation, SafeTransaction } from './types';
import type { Warnings } from './warnings';

const SAFE_ABI = parseAbi([
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool success)',
  'function multiSend(bytes transactions) payable',
]);
const EXEC_TRANSACTION = toFunctionSelector(SAFE_ABI[0]);
const MULTI_SEND = toFunctionSelector(SAFE_ABI[1]);

/** The SafeTx struct every Safe from 1.3.0 on hashes; a message of another shape is not read as a Safe transaction. */
const SAFE_TX_TYPE = [
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'data', type: 'bytes' },
  { name: 'operation', type: 'uint8' },
  { name: 'safeTxGas', type: 'uint256' },
  { name: 'baseGas', type: 'uint256' },
  { name: 'gasPrice', type: 'uint256' },
  { name: 'gasToken', type: 'address' },
  { name: 'refundReceiver', type: 'address' },
  { name: 'nonce', type: 'uint256' },
] as const;

const OPERATIONS: readonly SafeOperation[] = ['CALL', 'DELEGATECALL'];

/** A Safe inside a Safe's call inside a batch…: each level is at least an ABI header longer, but the card stops here. */
export const MAX_SAFE_NESTING = 8;

/** One MultiSend row's fixed part: operation (1 byte), to (20), value (32), data length (32). */
const ROW_HEADER_LENGTH = 85;

/**
 * A call a Safe makes, or a batch's row. `from` is the account it comes from (what a descriptor's `@.from` reads);
 * `runsAs` is the account its code runs as, which a batch or Safe it reaches sends its own calls from: the target
 * itself for a CALL, the caller for a DELEGATECALL (MultiSend's rows come from the Safe that delegate-called it).
 */
export interface InnerCall {
  to: Address;
  value: bigint;
  data: Hex;
  from: Address;
  runsAs: Address;
}

/**
 * Reads the call a Safe makes (or a batch's row) as every call is read; `depth` counts the Safe and batch levels
 * above it. The reader is the caller's, so a Safe's call goes through the same ABIs, token lists and descriptors.
 */
export type ReadInnerCall = (
  call: InnerCall,
  depth: number,
) => { to: AddressRef; value: Amount; call?: ContractCall; descriptor?: DescriptorSection };

/** The fields execTransaction and a SafeTx message share, as decoded. */
interface SafeTxFields {
  to: Address;
  value: bigint;
  data: Hex;
  operation: SafeOperation;
  safeTxGas: bigint;
  baseGas: bigint;
  gasPrice: bigint;
  gasToken: Address;
  refundReceiver: Address;
}

function shown(ref: AddressRef): string {
  return ref.label === undefined ? ref.address : `${ref.label} (${ref.address})`;
}

/**
 * An execTransaction or multiSend call read as what it runs; undefined for any other call, or when its operation is
 * none a Safe accepts (read then as an ordinary call). `runsAs` is the account the called code runs as (see InnerCall).
 */
export function readSafeCall(
  contract: AddressRef,
  data: Hex,
  runsAs: Address,
  depth: number,
  lookup: Lookup,
  warnings: Warnings,
  readInner: ReadInnerCall,
): ContractCall | undefined {
  const selector = data.slice(0, 10).toLowerCase();
  if (selector !== EXEC_TRANSACTION && selector !== MULTI_SEND) return undefined;
  let decoded;
  try {
    decoded = decodeFunctionData({ abi: SAFE_ABI, data });
  } catch {
    return undefined;
  }
  if (decoded.functionName === 'multiSend') {
    return {
      selector,
      decoded: false,
      functionName: 'multiSend',
      signature: 'multiSend(bytes)',
      args: [],
      ...readBatch(decoded.args[0], runsAs, depth, lookup, warnings, readInner),
    };
  }
  const [to, value, innerData, operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, signatures] = decoded.args;
  const operationName = OPERATIONS[operation];
  if (operationName === undefined) return undefined;
  const fields = { to, value, data: innerData, operation: operationName, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver };
  return {
    selector,
    decoded: false,
    functionName: 'execTransaction',
    signature: 'execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)',
    args: [],
    safeTransaction: { ...safeTransaction(contract, runsAs, fields, depth, lookup, warnings, readInner), signatures },
  };
}

/**
 * A SafeTx EIP-712 message read as the transaction it approves, with the safeTxHash a Safe of 1.3.0 or later checks
 * (its domain is the chain id and the Safe's address); undefined for any other typed data.
 */
export function readSafeTypedData(
  typedData: DecodedTypedData,
  safe: AddressRef | undefined,
  chainId: number | undefined,
  lookup: Lookup,
  warnings: Warnings,
  readInner: ReadInnerCall,
): SafeTransaction | undefined {
  const members = typedData.types.get('SafeTx');
  const isSafeTx =
    typedData.primaryType === 'SafeTx' &&
    members !== undefined &&
    members.length === SAFE_TX_TYPE.length &&
    SAFE_TX_TYPE.every((member, index) => members[index]!.name === member.name && members[index]!.type === member.type);
  if (!isSafeTx || safe === undefined) return undefined;
  // decodeTypedData checked every value against its type: integers are integers, addresses addresses, bytes hex.
  const message = typedData.message as Record<(typeof SAFE_TX_TYPE)[number]['name'], string | number | bigint>;
  const operationName = OPERATIONS[Number(message.operation)];
  if (operationName === undefined) return undefined;
  const fields: SafeTxFields = {
    to: getAddress(String(message.to)),
    value: BigInt(message.value),
    data: String(message.data) as Hex,
    operation: operationName,
    safeTxGas: BigInt(message.safeTxGas),
    baseGas: BigInt(message.baseGas),
    gasPrice: BigInt(message.gasPrice),
    gasToken: getAddress(String(message.gasToken)),
    refundReceiver: getAddress(String(message.refundReceiver)),
  };
  const nonce = BigInt(message.nonce);
  const safeTxHash = hashTypedData({
    domain: { ...(chainId === undefined ? {} : { chainId }), verifyingContract: getAddress(safe.address) },
    types: { SafeTx: SAFE_TX_TYPE },
    primaryType: 'SafeTx',
    message: { ...fields, operation: OPERATIONS.indexOf(operationName), nonce },
  });
  const signedDigest = bytesToHex(typedData.digest);
  if (signedDigest !== safeTxHash) {
    warnings.add(
      'SAFE_HASH_MISMATCH',
      `This signs ${signedDigest}, not the safeTxHash ${safeTxHash} that ${shown(safe)} checks: its domain names more than the chain id and the Safe's address, so the Safe will not accept the signature. Ask where the message came from.`,
      signedDigest,
    );
  }
  return { ...safeTransaction(safe, getAddress(safe.address), fields, 0, lookup, warnings, readInner), nonce, safeTxHash };
}

/** `sender`: the account the Safe's call comes from, the Safe itself unless its code was delegate-called. */
function safeTransaction(
  safe: AddressRef,
  sender: Address,
  fields: SafeTxFields,
  depth: number,
  lookup: Lookup,
  warnings: Warnings,
  readInner: ReadInnerCall,
): SafeTransaction {
  const inner = safeCall(fields.operation, fields.to, fields.value, fields.data, sender, shown(safe), depth, lookup, warnings, readInner);
  const gasToken = fields.gasToken === zeroAddress ? undefined : lookup.address('ethereum', fields.gasToken, true);
  const refundReceiver = fields.refundReceiver === zeroAddress ? undefined : lookup.address('ethereum', fields.refundReceiver);
  const gasPrice = gasToken === undefined ? gwei(fields.gasPrice) : tokenAmount(fields.gasPrice, lookup.token('ethereum', gasToken.address));
  if (fields.gasPrice > 0n) {
    const receiver = refundReceiver === undefined ? 'whoever submits it' : shown(refundReceiver);
    const gasLimit = fields.safeTxGas === 0n ? 'all the gas its call uses' : `up to ${fields.safeTxGas} gas for its call`;
    warnings.add(
      'SAFE_REFUND',
      `${shown(safe)} pays ${receiver} a refund for this transaction: ${gasPrice.text} per gas${gasToken === undefined ? '' : ` in ${shown(gasToken)}`}, for ${gasLimit} plus ${fields.baseGas} base gas. Refunds are meant for relayers; check that one is expected.`,
      `${safe.address} refund`,
    );
  }
  return {
    safe,
    ...inner,
    safeTxGas: fields.safeTxGas,
    baseGas: fields.baseGas,
    gasPrice,
    ...(gasToken === undefined ? {} : { gasToken }),
    ...(refundReceiver === undefined ? {} : { refundReceiver }),
  };
}

/** One call a Safe makes, read; a DELEGATECALL to anything but a published MultiSend is flagged critical. */
function safeCall(
  operation: SafeOperation,
  to: Address,
  value: bigint,
  data: Hex,
  sender: Address,
  runner: string,
  depth: number,
  lookup: Lookup,
  warnings: Warnings,
  readInner: ReadInnerCall,
): SafeCall {
  const multiSend = multiSendAt(to, lookup.ethereumChainId);
  if (operation === 'DELEGATECALL' && multiSend === undefined) {
    const target = lookup.address('ethereum', to, true);
    warnings.add(
      'SAFE_DELEGATECALL',
      `${runner} would run the code of ${shown(target)} as its own (DELEGATECALL): that code can change the Safe's owners, threshold, modules and singleton, and then move everything the Safe holds. Only Safe's MultiSend contracts are expected here. This is how the Bybit Safe was emptied: refuse unless you have reviewed that contract.`,
      to,
    );
  }
  if (depth >= MAX_SAFE_NESTING) {
    warnings.add(
      'UNDECODED',
      `The Safe transactions and batches nest more than ${MAX_SAFE_NESTING} levels deep: the innermost call to ${to} is not read. Check it another way before you approve.`,
      to,
    );
    return { operation, to: lookup.address('ethereum', to, data.length > 2), value: ether(value), data };
  }
  const read = readInner({ to, value, data, from: sender, runsAs: operation === 'DELEGATECALL' ? sender : to }, depth + 1);
  // The published MultiSend contracts are named whatever the organization uploaded.
  const target =
    multiSend === undefined || read.to.label !== undefined
      ? read.to
      : { ...read.to, label: `Safe ${multiSend.contract} ${multiSend.version}`, role: 'contract' as const };
  return {
    operation,
    to: target,
    value: read.value,
    data,
    ...(read.call === undefined ? {} : { call: read.call }),
    ...(read.descriptor === undefined ? {} : { descriptor: read.descriptor }),
  };
}

/** A batch runs in the Safe that delegate-called MultiSend: a row's DELEGATECALL hands that Safe's storage over too. */
const RUNS_THE_BATCH = 'The Safe running this batch';

/** multiSend's packed rows (operation ‖ to ‖ value ‖ data length ‖ data), each read as a call of its own from `sender`. */
function readBatch(
  transactions: Hex,
  sender: Address,
  depth: number,
  lookup: Lookup,
  warnings: Warnings,
  readInner: ReadInnerCall,
): { batch: SafeCall[]; batchError?: string } {
  const bytes = hexToBytes(transactions);
  const batch: SafeCall[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const row = batch.length + 1;
    const left = bytes.length - offset;
    const stop = (problem: string) => {
      const batchError = `call ${row} of the batch ${problem}; the calls after it cannot be read`;
      warnings.add(
        'UNDECODED',
        `The MultiSend batch cannot be read to its end: ${batchError}. Check it another way before you approve.`,
        transactions,
      );
      return { batch, batchError };
    };
    if (left < ROW_HEADER_LENGTH) return stop(`is cut short: ${left} bytes remain where its header takes ${ROW_HEADER_LENGTH}`);
    const operation = OPERATIONS[bytes[offset]!];
    if (operation === undefined) return stop(`has operation ${bytes[offset]}, which is neither 0 (CALL) nor 1 (DELEGATECALL)`);
    const to = getAddress(bytesToHex(bytes.subarray(offset + 1, offset + 21)));
    const value = bytesToBigInt(bytes.subarray(offset + 21, offset + 53));
    const dataLength = bytesToBigInt(bytes.subarray(offset + 53, offset + ROW_HEADER_LENGTH));
    if (dataLength > BigInt(left - ROW_HEADER_LENGTH)) {
      return stop(`declares ${dataLength} bytes of call data but only ${left - ROW_HEADER_LENGTH} remain`);
    }
    const end = offset + ROW_HEADER_LENGTH + Number(dataLength);
    batch.push(
      safeCall(
        operation,
        to,
        value,
        bytesToHex(bytes.subarray(offset + ROW_HEADER_LENGTH, end)),
        sender,
        RUNS_THE_BATCH,
        depth,
        lookup,
        warnings,
        readInner,
      ),
    );
    offset = end;
  }
  return { batch };
}
