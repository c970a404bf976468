/**
 * Runs an unsigned Ethereum transaction in an in-process EVM (@ethereumjs/vm) over the state a node's latest block
 * left (or the state a checked state bundle proves), as if `from` had signed it, and answers what changed: every native balance it read or wrote before and after
 * (gas included), its logs, and whether it reverted (with the data it reverted with) or would be refused outright.
 * What it answers is only as true as the node's state: the reading names the node's block.
 */
import { createBlock } from '@ethereumjs/block';
import { Common, createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTx, type TypedTxData } from '@ethereumjs/tx';
import { bytesToHex, createAddressFromString, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { createVM, runTx, type RunTxResult } from '@ethereumjs/vm';
import { parseTransaction, type Hex } from 'viem';
import { z } from 'zod';
import { QkError } from '../../shared/errors';
import { hexData, hexQuantity, NodeRpc, type NodeRpcLimits } from './node-rpc';
import { unsignedTransactionHash, type StateBundle } from '../../shared/offline/state-bundle';
import { NodeState, NodeStateManager, type BlockState } from './node-state';
import { BundleState, checkStateBundle, makeStateBundle, type BlockFields } from './state-bundle';

/** The transaction to run, as sent by its signer. */
interface TransactionToRun {
  /** The chain the transaction names; the node or the state bundle must be of the same one. */
  chainId: number;
  /** The signer's address: the transaction runs as sent by it. */
  from: string;
  /** The unsigned transaction, 0x-hex, as the signing request carries it. */
  unsignedTransaction: string;
}

/** A simulation over a node's state, at its latest block or at `atBlock` (a hex number). */
export interface NodeSimulationJob extends TransactionToRun {
  nodeUrl: string;
  atBlock?: string;
  limits?: NodeRpcLimits;
  /** Set to have the simulation answer a state bundle of what it read, made by these words. */
  stateBundleMadeBy?: string;
}

/** A simulation over the state a state bundle proves, checked first: no node is asked anything. */
export interface BundleSimulationJob extends TransactionToRun {
  stateBundle: StateBundle;
}

export type SimulationJob = NodeSimulationJob | BundleSimulationJob;

/** The block the simulation ran on: its state is what the node said it was. */
export interface SimulatedBlock {
  number: bigint;
  hash: string;
}

export type SimulationFailure =
  /** The transaction ran and reverted: nothing but its fee would change. `returnData` is what it reverted with. */
  | { kind: 'reverted'; error: string; returnData: string }
  /** The network would not run it at all (too little balance for its fee, a fee under the base fee…). */
  | { kind: 'refused'; reason: string };

export interface RawSimulation {
  block: SimulatedBlock;
  /** Accounts whose native balance changed, before and after (lowercase addresses). */
  nativeChanges: { address: string; before: bigint; after: bigint }[];
  logs: { address: string; topics: string[]; data: string }[];
  failure?: SimulationFailure;
  gasUsed: bigint;
  /** How many values were read from the node. */
  nodeCalls: number;
  /** The state bundle of what it read, when the job asked for one. */
  stateBundle?: StateBundle;
}

const latestBlock = z.object({
  number: hexQuantity,
  hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  timestamp: hexQuantity,
  gasLimit: hexQuantity,
  miner: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  baseFeePerGas: hexQuantity.optional(),
  mixHash: hexData.optional(),
});

/** A job read up to the point of running: the node checked and its block read, or the bundle checked; the transaction parsed. */
export interface PreparedSimulation {
  /** The node the state is read from; none for a state bundle. */
  rpc?: NodeRpc;
  state: BlockState;
  block: BlockFields;
  chainId: number;
  from: string;
  transaction: TypedTxData;
}

/**
 * Checks the node serves the transaction's chain, reads its block and parses the transaction; or, for a state bundle,
 * checks every proof it holds against its block.
 */
export async function prepareSimulation(job: SimulationJob): Promise<PreparedSimulation> {
  const { chainId, from, unsignedTransaction } = job;
  const transaction = transactionData(unsignedTransaction, chainId);
  if ('stateBundle' in job) {
    const checked = await checkStateBundle(job.stateBundle, chainId);
    return { state: new BundleState(checked), block: checked.block, chainId, from, transaction };
  }
  const rpc = new NodeRpc(job.nodeUrl, job.limits);
  const nodeChainId = Number(await rpc.call('eth_chainId', [], hexQuantity));
  if (nodeChainId !== chainId) {
    throw new QkError('FAILED_PRECONDITION', `the node set for eip155:${chainId} serves chain id ${nodeChainId}`);
  }
  const block = await rpc.call('eth_getBlockByNumber', [job.atBlock ?? 'latest', false], latestBlock);
  return { rpc, state: new NodeState(rpc, block.number), block, chainId, from, transaction };
}

/**
 * Runs the prepared transaction on a fresh EVM over `prepared.state`; a value the state has already read is not read
 * again, so running it twice measures the EVM alone the second time.
 */
export async function executeSimulation(prepared: PreparedSimulation): Promise<RawSimulation> {
  const { state, block, chainId, from, transaction, rpc } = prepared;
  const common = commonFor(chainId, block);
  const stateManager = new NodeStateManager(state);
  const vm = await createVM({ common, stateManager });
  // The transaction is unsigned: it runs as its signer's would, so the sender is the signer's address, not a signature's.
  const tx = createTx(transaction, { common, freeze: false });
  const sender = createAddressFromString(from);
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender });
  const header = createBlock(
    {
      header: {
        number: BigInt(block.number),
        timestamp: BigInt(block.timestamp),
        gasLimit: BigInt(block.gasLimit),
        coinbase: createAddressFromString(block.miner),
        ...(block.baseFeePerGas === undefined ? {} : { baseFeePerGas: BigInt(block.baseFeePerGas) }),
        ...(block.mixHash === undefined ? {} : { mixHash: hexToBytes(block.mixHash as PrefixedHexString) }),
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
  const blockRead = { number: BigInt(block.number), hash: block.hash };
  let result: RunTxResult;
  try {
    // The signing request's nonce may be one the account has not reached yet; the rest is checked as the network would.
    result = await runTx(vm, { tx, block: header, skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true });
  } catch (error) {
    if (error instanceof QkError) throw error;
    return {
      block: blockRead,
      nativeChanges: [],
      logs: [],
      failure: { kind: 'refused', reason: refusalOf(error) },
      gasUsed: 0n,
      nodeCalls: rpc?.callCount ?? 0,
    };
  }
  const before = await state.balancesRead();
  const nativeChanges = [...stateManager.balancesNow()].flatMap(([address, after]) => {
    const was = before.get(address) ?? 0n;
    return was === after ? [] : [{ address, before: was, after }];
  });
  const exception = result.execResult.exceptionError;
  return {
    block: blockRead,
    nativeChanges,
    logs: (result.execResult.logs ?? []).map(([address, topics, data]) => ({
      address: bytesToHex(address).toLowerCase(),
      topics: topics.map((topic) => bytesToHex(topic)),
      data: bytesToHex(data),
    })),
    ...(exception === undefined
      ? {}
      : { failure: { kind: 'reverted', error: exception.error, returnData: bytesToHex(result.execResult.returnValue) } }),
    gasUsed: result.totalGasSpent,
    nodeCalls: rpc?.callCount ?? 0,
  };
}

/**
 * Simulates `job` from the start: the node's block read (or the bundle checked), then the transaction run over it;
 * then, when the job asks, the state bundle of what the run read, proven by the node at the same block.
 */
export async function simulateTransaction(job: SimulationJob): Promise<RawSimulation> {
  const prepared = await prepareSimulation(job);
  const raw = await executeSimulation(prepared);
  if ('stateBundle' in job || job.stateBundleMadeBy === undefined || !(prepared.state instanceof NodeState) || prepared.rpc === undefined) {
    return raw;
  }
  const stateBundle = await makeStateBundle({
    rpc: prepared.rpc,
    state: prepared.state,
    block: prepared.block,
    chainId: job.chainId,
    common: commonFor(job.chainId, prepared.block),
    madeBy: job.stateBundleMadeBy,
    madeAt: new Date().toISOString(),
    transactionHash: unsignedTransactionHash(job.unsignedTransaction),
  });
  return { ...raw, stateBundle };
}

/** The transaction's fields as @ethereumjs/tx takes them, read by viem; only the kinds the EVM here can run. */
function transactionData(unsignedTransaction: string, chainId: number): TypedTxData {
  let parsed: ReturnType<typeof parseTransaction>;
  try {
    // The service keeps a transaction's hex as its API takes it, without 0x (the CLI and the Sign screen send it so).
    parsed = parseTransaction((unsignedTransaction.startsWith('0x') ? unsignedTransaction : `0x${unsignedTransaction}`) as Hex);
  } catch (error) {
    throw new QkError('REQUEST_INVALID', `the transaction cannot be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (parsed.chainId !== undefined && parsed.chainId !== chainId) {
    throw new QkError('REQUEST_INVALID', `the transaction names chain id ${parsed.chainId}, not ${chainId}`);
  }
  const common = {
    nonce: BigInt(parsed.nonce ?? 0),
    gasLimit: parsed.gas ?? 0n,
    value: parsed.value ?? 0n,
    data: parsed.data ?? '0x',
    ...(parsed.to === undefined || parsed.to === null ? {} : { to: parsed.to }),
  };
  const accessList = (parsed.accessList ?? []).map(({ address, storageKeys }) => ({ address, storageKeys: [...storageKeys] }));
  switch (parsed.type) {
    case 'legacy':
      return { ...common, type: 0, gasPrice: parsed.gasPrice ?? 0n };
    case 'eip2930':
      return { ...common, type: 1, chainId: BigInt(chainId), gasPrice: parsed.gasPrice ?? 0n, accessList };
    case 'eip1559':
      return {
        ...common,
        type: 2,
        chainId: BigInt(chainId),
        maxFeePerGas: parsed.maxFeePerGas ?? 0n,
        maxPriorityFeePerGas: parsed.maxPriorityFeePerGas ?? 0n,
        accessList,
      };
    default:
      throw new QkError('REQUEST_INVALID', `${parsed.type} transactions are not simulated yet`);
  }
}

/**
 * The rules the EVM runs: Ethereum's at the block's height and time on chain id 1; on any other chain, whose forks
 * this app does not track, Prague's.
 */
function commonFor(chainId: number, block: BlockFields): Common {
  if (chainId === 1) {
    const common = new Common({ chain: Mainnet });
    common.setHardforkBy({ blockNumber: BigInt(block.number), timestamp: BigInt(block.timestamp) });
    return common;
  }
  return createCustomCommon({ chainId }, Mainnet, { hardfork: Hardfork.Prague });
}

/** The EVM's refusal, without the hardfork, block and transaction it appends. */
function refusalOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .split(/ \((?:vm hf|block)=| -> /)[0]!
    .trim()
    .slice(0, 500);
}
