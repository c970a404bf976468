/**
 * The state bundle file: the part of the chain's state one transaction's simulation read (accounts, code, storage
 * slots), each value with its Merkle proof (as a node's `eth_getProof` gives it) against the state root of a named
 * block, and that block's header so its hash can be checked to commit to that root. A proposer's desktop with a node
 * makes it; a desktop without one simulates the same transaction from it after checking every proof.
 *
 * What it proves: the state at that block, if the block is one. Not that the block is canonical: whoever checks it
 * compares the block hash with a source they trust.
 */
import { keccak256, type Hex } from 'viem';
import { z } from 'zod';
import { QkError } from '../errors';
import { describeIssues } from '../ipc/contract';
import { parseQuorumKeyFile } from './file-format';

export const STATE_BUNDLE_FORMAT = 'quorumkey-state-bundle';
export const STATE_BUNDLE_VERSION = 1;

/** Bounds that keep a bundle small enough to read and check at once; a simulation reading more is not bundled. */
export const STATE_BUNDLE_LIMITS = {
  /** The whole file. */
  bytes: 8 * 1024 * 1024,
  accounts: 256,
  /** Storage slots over all accounts. */
  slots: 4096,
  /** Nodes of one proof: a trie path is at most 64 nibbles deep. */
  proofNodes: 65,
  /** A trie node's RLP: a branch node of 17 items is at most 532 bytes. */
  proofNodeBytes: 1024,
  /** A contract's code: EIP-170's 24,576 bytes, with room for chains that allow more. */
  codeBytes: 64 * 1024,
} as const;

const hexBytes = (maxBytes: number, what: string) =>
  z
    .string()
    .max(2 + maxBytes * 2)
    .regex(/^0x(?:[0-9a-fA-F]{2})*$/, { error: `expected ${what} as 0x-hex bytes` });
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, { error: 'expected a 32-byte hash as 0x-hex' });
const quantity = z.string().regex(/^0x(?:0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/, { error: 'expected a hex quantity without leading zeros' });
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, { error: 'expected a 20-byte address as 0x-hex' });
const proof = z.array(hexBytes(STATE_BUNDLE_LIMITS.proofNodeBytes, 'a trie node')).max(STATE_BUNDLE_LIMITS.proofNodes);

export const stateBundleSlot = z.strictObject({
  /** The slot's key, 32 bytes. */
  slot: hash,
  value: quantity,
  proof,
});

export const stateBundleAccount = z.strictObject({
  address,
  nonce: quantity,
  balance: quantity,
  codeHash: hash,
  storageHash: hash,
  /** The code whose hash is `codeHash`; absent for an account without code. */
  code: hexBytes(STATE_BUNDLE_LIMITS.codeBytes, 'the code').optional(),
  proof,
  storage: z.array(stateBundleSlot).max(STATE_BUNDLE_LIMITS.slots),
});

export const stateBundleSchema = z
  .strictObject({
    format: z.literal(STATE_BUNDLE_FORMAT),
    version: z.literal(STATE_BUNDLE_VERSION),
    chainId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    /** Who made it, in the maker's words (an operator and the node's origin): a claim, shown as one. */
    madeBy: z.string().min(1).max(200),
    madeAt: z.iso.datetime(),
    /** keccak256 of the unsigned transaction it was made for. */
    transactionHash: hash,
    block: z.strictObject({
      number: quantity,
      hash,
      /** The header's RLP, which hashes to `hash` and holds the state root every account proof leads to. */
      header: hexBytes(4096, 'the block header'),
    }),
    accounts: z.array(stateBundleAccount).max(STATE_BUNDLE_LIMITS.accounts),
  })
  .refine((bundle) => bundle.accounts.reduce((total, account) => total + account.storage.length, 0) <= STATE_BUNDLE_LIMITS.slots, {
    error: `a state bundle holds at most ${STATE_BUNDLE_LIMITS.slots} storage slots`,
  });
export type StateBundle = z.infer<typeof stateBundleSchema>;
export type StateBundleAccount = z.infer<typeof stateBundleAccount>;

/** What a bundle names the transaction it was made for by: keccak256 of the unsigned transaction's bytes. */
export function unsignedTransactionHash(unsignedTransaction: string): string {
  return keccak256((unsignedTransaction.startsWith('0x') ? unsignedTransaction : `0x${unsignedTransaction}`) as Hex);
}

/** The file's text for `bundle`, checked against the format first. */
export function stateBundleText(bundle: StateBundle): string {
  const parsed = stateBundleSchema.safeParse(bundle);
  if (!parsed.success) throw new QkError('LIMIT_EXCEEDED', `cannot write this state bundle: ${describeIssues(parsed.error)}`);
  const text = `${JSON.stringify(parsed.data, null, 1)}\n`;
  if (text.length > STATE_BUNDLE_LIMITS.bytes) {
    throw new QkError('LIMIT_EXCEEDED', `the simulation read more state than a state bundle holds (${STATE_BUNDLE_LIMITS.bytes} bytes)`);
  }
  return text;
}

/** The bundle in a state bundle file's text, in its format (its proofs are checked later, against its block); `source` names the file. */
export function parseStateBundle(text: string, source: string): StateBundle {
  return parseQuorumKeyFile(text, source, { name: 'state bundle', version: STATE_BUNDLE_VERSION, schema: stateBundleSchema });
}
