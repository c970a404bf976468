/**
 * State bundles (src/shared/offline/state-bundle.ts): made after a simulation against a node, from exactly the
 * accounts and slots that simulation read, each with the node's `eth_getProof` for the block it ran on; and checked
 * before a simulation runs from one, every value against the state root of the block header the bundle carries, whose
 * hash is the block hash it names. What the check cannot say is whether that block is the chain's: the card names the
 * block hash for the operator to compare.
 */
import { createBlockHeaderFromRPC, type JSONRPCBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { verifyMerkleProof } from '@ethereumjs/mpt';
import {
  bigIntToUnpaddedBytes,
  bytesToBigInt,
  bytesToHex,
  createAccountFromRLP,
  hexToBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  setLengthLeft,
  type PrefixedHexString,
} from '@ethereumjs/util';
import { fromRlp, keccak256, type Hex } from 'viem';
import { z } from 'zod';
import { QkError } from '../../shared/errors';
import {
  STATE_BUNDLE_FORMAT,
  STATE_BUNDLE_LIMITS,
  STATE_BUNDLE_VERSION,
  type StateBundle,
  type StateBundleAccount,
} from '../../shared/offline/state-bundle';
import { hexData, hexQuantity, type NodeRpc } from './node-rpc';
import type { AccountRead, BlockState, NodeState, OriginalAccount } from './node-state';

/** The fields of a block the EVM runs under, as hex, as a node's `eth_getBlockByNumber` gives them. */
export interface BlockFields {
  number: string;
  hash: string;
  timestamp: string;
  gasLimit: string;
  miner: string;
  baseFeePerGas?: string | undefined;
  mixHash?: string | undefined;
}

export interface BundleMaking {
  rpc: NodeRpc;
  state: NodeState;
  block: BlockFields;
  chainId: number;
  /** The rules the block's header is read under. */
  common: Common;
  madeBy: string;
  madeAt: string;
  /** keccak256 of the unsigned transaction the simulation ran. */
  transactionHash: string;
}

const proofAnswer = z.object({
  balance: hexQuantity,
  nonce: hexQuantity,
  codeHash: hexData,
  storageHash: hexData,
  accountProof: z.array(hexData),
  storageProof: z.array(z.object({ key: hexData, value: hexQuantity, proof: z.array(hexData) })),
});

/** The bundle of what `state` read, proven by the node at the state's block; checked as a reader would before it is returned. */
export async function makeStateBundle(making: BundleMaking): Promise<StateBundle> {
  const { rpc, state, block, chainId, common } = making;
  const reads = await state.reads();
  const slotCount = reads.reduce((total, read) => total + read.slots.length, 0);
  if (reads.length > STATE_BUNDLE_LIMITS.accounts || slotCount > STATE_BUNDLE_LIMITS.slots) {
    throw new QkError(
      'LIMIT_EXCEEDED',
      `the simulation read ${reads.length} accounts and ${slotCount} storage slots; a state bundle holds at most ${STATE_BUNDLE_LIMITS.accounts} and ${STATE_BUNDLE_LIMITS.slots}`,
    );
  }
  const rpcBlock = await rpc.call('eth_getBlockByNumber', [state.blockTag, false], z.record(z.string(), z.unknown()));
  let header: Uint8Array;
  try {
    const parsed = createBlockHeaderFromRPC(rpcBlock as unknown as JSONRPCBlock, { common, skipConsensusFormatValidation: true });
    if (bytesToHex(parsed.hash()) !== block.hash.toLowerCase()) throw new Error('its fields do not hash to its hash');
    header = parsed.serialize();
  } catch (error) {
    throw new QkError(
      'FAILED_PRECONDITION',
      `the header of block ${BigInt(block.number)} the node gave cannot be checked against its hash (${error instanceof Error ? error.message : String(error)}), so no state bundle can prove its state`,
    );
  }
  const accounts: StateBundleAccount[] = [];
  for (const read of reads) accounts.push(await provenAccount(rpc, state.blockTag, read));
  const bundle: StateBundle = {
    format: STATE_BUNDLE_FORMAT,
    version: STATE_BUNDLE_VERSION,
    chainId,
    madeBy: making.madeBy,
    madeAt: making.madeAt,
    transactionHash: making.transactionHash,
    block: { number: quantity(BigInt(block.number)), hash: block.hash.toLowerCase(), header: bytesToHex(header) },
    accounts,
  };
  // A node whose proofs do not hold is found here, by its maker, rather than by whoever the bundle is sent to.
  await checkStateBundle(bundle, chainId);
  return bundle;
}

/** The node's proof of one account and the slots read of it, refused where it disagrees with what the node said before. */
async function provenAccount(rpc: NodeRpc, blockTag: string, { address, account, slots }: AccountRead): Promise<StateBundleAccount> {
  const proof = await rpc.call('eth_getProof', [address, slots.map(({ slot }) => slot), blockTag], proofAnswer);
  const codeHash = account.code.length === 0 ? bytesToHex(KECCAK256_NULL) : keccak256(account.code);
  const disagrees = (what: string) =>
    new QkError('FAILED_PRECONDITION', `the node's proof of ${address} gives another ${what} than the node said it held at the same block`);
  if (BigInt(proof.balance) !== account.balance) throw disagrees('balance');
  if (BigInt(proof.nonce) !== account.nonce) throw disagrees('nonce');
  if (proof.codeHash.toLowerCase() !== codeHash) throw disagrees('code');
  if (proof.storageProof.length !== slots.length) throw disagrees('set of storage slots');
  const storage = slots.map(({ slot, value }, index) => {
    const slotProof = proof.storageProof[index]!;
    if (BigInt(slotProof.key) !== BigInt(slot)) throw disagrees('set of storage slots');
    if (BigInt(slotProof.value) !== bytesToBigInt(value)) throw disagrees(`value of slot ${slot}`);
    return { slot, value: quantity(BigInt(slotProof.value)), proof: slotProof.proof.map((node) => node.toLowerCase()) };
  });
  return {
    address,
    nonce: quantity(account.nonce),
    balance: quantity(account.balance),
    codeHash,
    storageHash: proof.storageHash.toLowerCase(),
    ...(account.code.length === 0 ? {} : { code: bytesToHex(account.code) }),
    proof: proof.accountProof.map((node) => node.toLowerCase()),
    storage,
  };
}

/** A bundle whose every value is proven against its block's state root: the accounts and slots a simulation may read. */
export interface CheckedStateBundle {
  block: BlockFields;
  accounts: Map<string, OriginalAccount>;
  /** `"<address>_<32-byte slot>"` to the slot's value, leading zero bytes dropped. */
  slots: Map<string, Uint8Array>;
}

/**
 * Checks the header hashes to the block hash, then every account and slot against its proof; refuses with the first
 * value whose proof fails, naming it. Nothing the bundle says is used unless its proof holds.
 */
export async function checkStateBundle(bundle: StateBundle, chainId: number): Promise<CheckedStateBundle> {
  if (bundle.chainId !== chainId) {
    throw new QkError('FAILED_PRECONDITION', `the state bundle is of chain id ${bundle.chainId}, and the transaction names ${chainId}`);
  }
  const block = headerFields(bundle);
  const blockName = `block ${BigInt(bundle.block.number)}`;
  const stateRoot = hexToBytes(block.stateRoot);
  const accounts = new Map<string, OriginalAccount>();
  const slots = new Map<string, Uint8Array>();
  for (const entry of bundle.accounts) {
    const address = entry.address.toLowerCase();
    if (accounts.has(address)) throw refused(`the state bundle gives the account ${address} twice`);
    const leaf = await proven(keccak256(address as Hex), entry.proof, stateRoot);
    if (leaf === 'invalid') throw refused(`the proof of the account ${address} does not lead to the state root of ${blockName}`);
    const provenAccount =
      leaf === null
        ? { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP }
        : (() => {
            const account = createAccountFromRLP(leaf);
            return { nonce: account.nonce, balance: account.balance, codeHash: account.codeHash, storageRoot: account.storageRoot };
          })();
    const differs = (field: string) => refused(`the ${field} the state bundle gives for ${address} is not the one its proof proves at ${blockName}`);
    if (BigInt(entry.nonce) !== provenAccount.nonce) throw differs('nonce');
    if (BigInt(entry.balance) !== provenAccount.balance) throw differs('balance');
    if (entry.codeHash.toLowerCase() !== bytesToHex(provenAccount.codeHash)) throw differs('code hash');
    if (entry.storageHash.toLowerCase() !== bytesToHex(provenAccount.storageRoot)) throw differs('storage root');
    const code = hexToBytes((entry.code ?? '0x') as PrefixedHexString);
    if (keccak256(code) !== bytesToHex(provenAccount.codeHash)) {
      throw refused(
        entry.code === undefined
          ? `the state bundle gives no code for ${address}, whose proven code hash is ${bytesToHex(provenAccount.codeHash)}`
          : `the code the state bundle gives for ${address} does not hash to its proven code hash`,
      );
    }
    accounts.set(address, { nonce: provenAccount.nonce, balance: provenAccount.balance, code });
    for (const { slot, value, proof } of entry.storage) {
      const key = `${address}_${slot.toLowerCase()}`;
      if (slots.has(key)) throw refused(`the state bundle gives slot ${slot} of ${address} twice`);
      const stored = await proven(keccak256(slot as Hex), proof, provenAccount.storageRoot);
      if (stored === 'invalid') throw refused(`the proof of slot ${slot} of ${address} does not lead to its proven storage root`);
      const provenValue = stored === null ? 0n : storageValue(stored);
      if (provenValue === undefined) throw refused(`the proof of slot ${slot} of ${address} ends in something that is not a storage value`);
      if (BigInt(value) !== provenValue)
        throw refused(`the value the state bundle gives for slot ${slot} of ${address} is not the one its proof proves`);
      slots.set(key, bigIntToUnpaddedBytes(provenValue));
    }
  }
  return { block, accounts, slots };
}

/** The value at `key` in the trie whose root is `root`, `null` where the proof shows there is none, or 'invalid'. */
async function proven(key: Hex, proof: string[], root: Uint8Array): Promise<Uint8Array | null | 'invalid'> {
  // The empty trie has no nodes to prove anything with: every key is absent from it.
  if (proof.length === 0) return bytesToHex(root) === bytesToHex(KECCAK256_RLP) ? null : 'invalid';
  try {
    return await verifyMerkleProof(
      hexToBytes(key),
      proof.map((node) => hexToBytes(node as PrefixedHexString)),
      { root },
    );
  } catch {
    return 'invalid';
  }
}

/** The header's fields the EVM runs under, read from its RLP once it hashes to the block hash the bundle names. */
function headerFields(bundle: StateBundle): BlockFields & { stateRoot: PrefixedHexString } {
  const { header, hash, number } = bundle.block;
  if (keccak256(header as Hex) !== hash.toLowerCase()) {
    throw refused(`the state bundle's block header does not hash to the block hash it names (${hash})`);
  }
  let fields: Hex[];
  try {
    const decoded = fromRlp(header as Hex, 'hex');
    if (!Array.isArray(decoded) || decoded.length < 15 || decoded.some((field) => typeof field !== 'string')) throw new Error('not a header');
    fields = decoded as Hex[];
  } catch {
    throw refused('the state bundle’s block header is not an RLP block header');
  }
  // Fields of a header by position: 2 coinbase, 3 state root, 8 number, 9 gas limit, 11 timestamp, 13 mix hash, 15 base fee.
  const numeric = (index: number) => quantity(BigInt(fields[index] === '0x' ? 0 : fields[index]!));
  if (BigInt(numeric(8)) !== BigInt(number))
    throw refused(`the state bundle's block header is of block ${BigInt(numeric(8))}, not ${BigInt(number)}`);
  return {
    number: numeric(8),
    hash: hash.toLowerCase(),
    timestamp: numeric(11),
    gasLimit: numeric(9),
    miner: fields[2]!,
    mixHash: fields[13],
    ...(fields[15] === undefined ? {} : { baseFeePerGas: numeric(15) }),
    stateRoot: fields[3]!,
  };
}

/**
 * The block's state as a checked bundle proves it; an account or slot the bundle does not hold ends the simulation
 * with what is missing, since running on without it would simulate a state that was never there.
 */
export class BundleState implements BlockState {
  private readonly read = new Set<string>();

  constructor(private readonly bundle: CheckedStateBundle) {}

  async account(address: string): Promise<OriginalAccount> {
    const key = address.toLowerCase();
    const account = this.bundle.accounts.get(key);
    if (account === undefined) throw new QkError('FAILED_PRECONDITION', `the state bundle lacks the account ${key}`);
    this.read.add(key);
    return account;
  }

  async storage(address: string, slot: Uint8Array): Promise<Uint8Array> {
    const key = `${address.toLowerCase()}_${bytesToHex(setLengthLeft(slot, 32))}`;
    const value = this.bundle.slots.get(key);
    if (value === undefined) {
      throw new QkError('FAILED_PRECONDITION', `the state bundle lacks slot ${bytesToHex(setLengthLeft(slot, 32))} of ${address.toLowerCase()}`);
    }
    return value;
  }

  async balancesRead(): Promise<Map<string, bigint>> {
    return new Map([...this.read].map((address) => [address, this.bundle.accounts.get(address)!.balance]));
  }
}

function refused(message: string): QkError {
  return new QkError('FAILED_PRECONDITION', `the state bundle is refused: ${message}`);
}

function quantity(value: bigint): string {
  return `0x${value.toString(16)}`;
}

/** A storage trie's leaf: the RLP of the value's bytes without leading zeros (at most 32 of them). */
function storageValue(leaf: Uint8Array): bigint | undefined {
  try {
    const value = fromRlp(leaf, 'hex');
    if (typeof value !== 'string' || value.length > 66) return undefined;
    return value === '0x' ? 0n : BigInt(value);
  } catch {
    return undefined;
  }
}
