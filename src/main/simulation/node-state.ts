/**
 * The chain's state as one block left it, read from a node only where the transaction looks: an account's balance,
 * nonce and code, and each storage slot, fetched the first time the EVM asks and kept. Nothing is read ahead, so a
 * transfer costs a handful of calls and a swap a few dozen.
 */
import { SimpleStateManager } from '@ethereumjs/statemanager';
import { Account, bytesToHex, hexToBytes, KECCAK256_NULL, setLengthLeft, unpadBytes, type Address } from '@ethereumjs/util';
import { keccak256 } from 'viem';
import { z } from 'zod';
import { hexData, hexQuantity, type NodeRpc } from './node-rpc';

/** An account as the block left it. */
export interface OriginalAccount {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
}

/** The block's state as the EVM reads it: from a node (NodeState) or from a checked state bundle (BundleState). */
export interface BlockState {
  account(address: string): Promise<OriginalAccount>;
  /** A storage slot's value, its leading zero bytes dropped as the EVM keeps them. */
  storage(address: string, slot: Uint8Array): Promise<Uint8Array>;
  /** Balances the block left, of the accounts read so far. */
  balancesRead(): Promise<Map<string, bigint>>;
}

/** What one account read showed: the account, and the storage slots read of it (32-byte keys, 0x-hex). */
export interface AccountRead {
  address: string;
  account: OriginalAccount;
  slots: { slot: string; value: Uint8Array }[];
}

/** What the node said at one block, read on demand and remembered (a value asked for twice is read once). */
export class NodeState implements BlockState {
  private readonly accounts = new Map<string, Promise<OriginalAccount>>();
  private readonly slots = new Map<string, Promise<Uint8Array>>();

  /** `blockTag`: the block every read is made at, as a hex number, so the reads agree with each other. */
  constructor(
    private readonly rpc: NodeRpc,
    readonly blockTag: string,
  ) {}

  account(address: string): Promise<OriginalAccount> {
    const key = address.toLowerCase();
    let read = this.accounts.get(key);
    if (read === undefined) {
      read = Promise.all([
        this.rpc.call('eth_getBalance', [key, this.blockTag], hexQuantity),
        this.rpc.call('eth_getTransactionCount', [key, this.blockTag], hexQuantity),
        this.rpc.call('eth_getCode', [key, this.blockTag], hexData),
      ]).then(([balance, nonce, code]) => ({ balance: BigInt(balance), nonce: BigInt(nonce), code: hexToBytes(code as `0x${string}`) }));
      this.accounts.set(key, read);
    }
    return read;
  }

  storage(address: string, slot: Uint8Array): Promise<Uint8Array> {
    const key = `${address.toLowerCase()}_${bytesToHex(setLengthLeft(slot, 32))}`;
    let read = this.slots.get(key);
    if (read === undefined) {
      read = this.rpc
        .call('eth_getStorageAt', [address.toLowerCase(), bytesToHex(setLengthLeft(slot, 32)), this.blockTag], storageWord)
        .then((word) => unpadBytes(hexToBytes(word as `0x${string}`)));
      this.slots.set(key, read);
    }
    return read;
  }

  async balancesRead(): Promise<Map<string, bigint>> {
    const entries = await Promise.all([...this.accounts].map(async ([address, read]) => [address, (await read).balance] as const));
    return new Map(entries);
  }

  /** Every account and slot read so far, with what the node said: what a state bundle must prove. */
  async reads(): Promise<AccountRead[]> {
    const byAddress = new Map<string, AccountRead>();
    for (const [address, read] of this.accounts) byAddress.set(address, { address, account: await read, slots: [] });
    for (const [key, read] of this.slots) {
      const [address, slot] = key.split('_') as [string, string];
      let entry = byAddress.get(address);
      if (entry === undefined) {
        // A slot's proof hangs off its account's, so an account the EVM never asked for is read too.
        entry = { address, account: await this.account(address), slots: [] };
        byAddress.set(address, entry);
      }
      entry.slots.push({ slot, value: await read });
    }
    return [...byAddress.values()];
  }
}

const storageWord = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, { error: 'expected a storage word' });

/**
 * The EVM's state: what this transaction wrote, over what the node's block held. A value not written yet is read
 * from `NodeState` the first time it is asked for and set under every checkpoint, since it is what the block held
 * whichever of them is reverted.
 */
export class NodeStateManager extends SimpleStateManager {
  constructor(private readonly state: BlockState) {
    super();
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    await this.load(address);
    return super.getAccount(address);
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    await this.load(address);
    return super.getCode(address);
  }

  override async getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    const key = `${address.toString()}_${bytesToHex(slot)}`;
    if (!this.topStorageStack().has(key)) {
      const value = await this.state.storage(address.toString(), slot);
      for (const level of this.storageStack) if (!level.has(key)) level.set(key, value);
    }
    return super.getStorage(address, slot);
  }

  /** Every account's balance as the transaction left it, of the accounts it read or wrote. */
  balancesNow(): Map<string, bigint> {
    return new Map([...this.topAccountStack()].map(([address, account]) => [address.toLowerCase(), account?.balance ?? 0n]));
  }

  private async load(address: Address): Promise<void> {
    const key = address.toString();
    if (this.topAccountStack().has(key)) return;
    const { balance, nonce, code } = await this.state.account(key);
    // No balance, nonce or code is an account that does not exist, which costs more to send value to.
    const exists = balance !== 0n || nonce !== 0n || code.length > 0;
    const account = exists ? new Account(nonce, balance, undefined, code.length > 0 ? hexToBytes(keccak256(code)) : KECCAK256_NULL) : undefined;
    for (const level of this.accountStack) if (!level.has(key)) level.set(key, account);
    if (code.length > 0) for (const level of this.codeStack) if (!level.has(key)) level.set(key, code);
  }
}
