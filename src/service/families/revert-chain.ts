/**
 * Why a sent Ethereum transaction reverted, as Turnkey's status reports it (`error.revertChain`, docs/sandbox.md
 * #sending-transactions): the call is replayed with `eth_call` on the state before its block, and the revert data the
 * node answers is read as Solidity's `Error(string)` or `Panic(uint256)`, or kept raw with its selector. The node
 * gives no trace of nested calls, so the chain holds the outermost entry only: the contract the transaction called.
 */
import { BaseError, decodeErrorResult, type Hex, type PublicClient, type TransactionReceipt } from 'viem';

export interface RevertChainEntry {
  address: string;
  errorType: 'native' | 'unknown';
  displayMessage: string;
  native?: { nativeType: 'error_string' | 'panic' | 'execution_reverted'; message?: string; panicCode?: string };
  unknown?: { selector?: string; data: string };
}

/** The revert data somewhere in a failed call's chain of causes (viem wraps the node's JSON-RPC error). */
function revertDataOf(error: unknown): Hex | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const withData = error.walk((cause) => typeof (cause as { data?: unknown }).data === 'string') as { data?: unknown } | null;
  const data = withData?.data;
  return typeof data === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(data) ? (data as Hex) : undefined;
}

export function revertEntry(address: string, data: Hex): RevertChainEntry {
  if (data === '0x') return { address, errorType: 'native', displayMessage: 'execution reverted', native: { nativeType: 'execution_reverted' } };
  try {
    const decoded = decodeErrorResult({ abi: [], data });
    if (decoded.errorName === 'Error') {
      const message = String(decoded.args[0]);
      return { address, errorType: 'native', displayMessage: `execution reverted: ${message}`, native: { nativeType: 'error_string', message } };
    }
    if (decoded.errorName === 'Panic') {
      const panicCode = String(decoded.args[0]);
      return { address, errorType: 'native', displayMessage: `panic ${panicCode}`, native: { nativeType: 'panic', panicCode } };
    }
  } catch {
    // Neither Error(string) nor Panic(uint256): a custom error this Sandbox has no ABI for.
  }
  const selector = data.length >= 10 ? data.slice(0, 10) : undefined;
  return {
    address,
    errorType: 'unknown',
    displayMessage: selector === undefined ? `reverted with ${data}` : `reverted with custom error ${selector}`,
    unknown: { ...(selector === undefined ? {} : { selector }), data },
  };
}

/** The revert chain of a reverted transaction; undefined when the node does not say (a replay that does not revert). */
export async function revertChainOf(client: PublicClient, receipt: TransactionReceipt): Promise<RevertChainEntry[] | undefined> {
  if (receipt.to === null) return undefined;
  const transaction = await client.getTransaction({ hash: receipt.transactionHash });
  try {
    await client.call({
      account: transaction.from,
      to: receipt.to,
      data: transaction.input,
      value: transaction.value,
      gas: transaction.gas,
      blockNumber: receipt.blockNumber - 1n,
    });
    return undefined;
  } catch (error) {
    const data = revertDataOf(error);
    return data === undefined ? undefined : [revertEntry(receipt.to, data)];
  }
}
