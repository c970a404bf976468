/**
 * What a Turnkey signer's output must satisfy, checked by the chain libraries themselves (viem, ethers, web3.js and
 * noble): shared by the tests of the current signers and of their older releases, so every release is held to the
 * same checks.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { PublicKey, SystemProgram, Transaction as SolanaTransaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import {
  Transaction as EthersTransaction,
  verifyMessage as ethersVerifyMessage,
  verifyTypedData as ethersVerifyTypedData,
  type Signer,
  type TypedDataField,
} from 'ethers';
import {
  createWalletClient,
  custom,
  parseEther,
  parseGwei,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  verifyMessage,
  type Account,
  type Address,
} from 'viem';
import { expect } from 'vitest';
import { MAIL } from './eip712-mail';

export const ETHEREUM_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
export const SOLANA_ACCOUNT = {
  curve: 'CURVE_ED25519',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/501'/0'/0'",
  addressFormat: 'ADDRESS_FORMAT_SOLANA',
} as const;

/** The counterparty of every Ethereum transaction the tests sign. */
export const ETHEREUM_RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const SOLANA_RECIPIENT = new PublicKey('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');
export const SOLANA_BLOCKHASH = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';

/** One transaction of each type viem serialises without extra capabilities of the account. */
const VIEM_TRANSACTIONS = [
  {
    type: 'eip1559',
    chainId: 1,
    nonce: 7,
    to: ETHEREUM_RECIPIENT,
    value: parseEther('0.5'),
    gas: 21000n,
    maxFeePerGas: parseGwei('30'),
    maxPriorityFeePerGas: parseGwei('1'),
  },
  { type: 'legacy', chainId: 11155111, nonce: 0, to: ETHEREUM_RECIPIENT, value: 1n, gas: 21000n, gasPrice: parseGwei('20') },
  { type: 'eip2930', chainId: 10, nonce: 1, to: ETHEREUM_RECIPIENT, value: 1n, gas: 30000n, gasPrice: parseGwei('2'), accessList: [] },
] as const;

/** A message, the EIP-712 Mail example and a transaction of each type, each recovered to `address` by viem. */
export async function expectViemAccountSigns(account: Account, address: Address): Promise<void> {
  expect(account.address).toBe(address);
  const message = 'hello from QuorumKey';
  const messageSignature = await account.signMessage!({ message });
  expect(await verifyMessage({ address, message, signature: messageSignature })).toBe(true);

  // Through a wallet client, as applications call it: viem adds the EIP712Domain type before the account signs.
  const wallet = createWalletClient({ account, transport: custom({ request: () => Promise.reject(new Error('no RPC in this test')) }) });
  const typedSignature = await wallet.signTypedData(MAIL);
  expect(await recoverTypedDataAddress({ ...MAIL, signature: typedSignature })).toBe(address);

  for (const transaction of VIEM_TRANSACTIONS) {
    const signed = await account.signTransaction!(transaction);
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never }), transaction.type).toBe(address);
  }
}

type EthersSigner = Pick<Signer, 'getAddress' | 'signMessage' | 'signTypedData' | 'signTransaction'>;

/** A message, the EIP-712 Mail example, an EIP-1559 and a legacy transaction, each recovered to `address` by ethers. */
export async function expectEthersSignerSigns(signer: EthersSigner, address: string): Promise<void> {
  expect(await signer.getAddress()).toBe(address);
  const signature = await signer.signMessage('ethers says hi');
  expect(ethersVerifyMessage('ethers says hi', signature)).toBe(address);

  const types = MAIL.types as unknown as Record<string, TypedDataField[]>;
  const typed = await signer.signTypedData(MAIL.domain, types, MAIL.message);
  expect(ethersVerifyTypedData(MAIL.domain, types, MAIL.message, typed)).toBe(address);

  for (const transaction of [
    {
      type: 2,
      chainId: 1,
      nonce: 2,
      to: ETHEREUM_RECIPIENT,
      value: 10n,
      gasLimit: 21000n,
      maxFeePerGas: 2n * 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 9n,
    },
    { type: 0, chainId: 137, nonce: 3, to: ETHEREUM_RECIPIENT, value: 11n, gasLimit: 21000n, gasPrice: 30n * 10n ** 9n },
  ]) {
    const signed = await signer.signTransaction(transaction);
    expect(EthersTransaction.from(signed).from, `type ${transaction.type}`).toBe(address);
  }
}

/** A legacy transfer of lamports from `from`, which pays the fee and is the only signer. */
export function solanaTransfer(from: string): SolanaTransaction {
  const transaction = new SolanaTransaction({ feePayer: new PublicKey(from), recentBlockhash: SOLANA_BLOCKHASH });
  transaction.add(SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: SOLANA_RECIPIENT, lamports: 1_000_000 }));
  return transaction;
}

/** The same transfer as a v0 transaction. */
export function solanaV0Transfer(from: string): VersionedTransaction {
  const message = new TransactionMessage({
    payerKey: new PublicKey(from),
    recentBlockhash: SOLANA_BLOCKHASH,
    instructions: [SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: SOLANA_RECIPIENT, lamports: 5 })],
  }).compileToV0Message();
  return new VersionedTransaction(message);
}

/** `signature` is `address`'s Ed25519 signature over `message`. */
export function expectSolanaSignature(signature: Uint8Array, message: Uint8Array, address: string): void {
  expect(ed25519.verify(signature, message, new PublicKey(address).toBytes())).toBe(true);
}

/** Every signature slot of `transaction` is filled and verifies: web3.js checks a legacy one, noble a v0 one. */
export function expectSolanaFullySigned(transaction: SolanaTransaction | VersionedTransaction): void {
  if (transaction instanceof SolanaTransaction) {
    expect(transaction.verifySignatures()).toBe(true);
    return;
  }
  const signers = transaction.message.staticAccountKeys.slice(0, transaction.message.header.numRequiredSignatures);
  signers.forEach((signer, index) => expectSolanaSignature(transaction.signatures[index]!, transaction.message.serialize(), signer.toBase58()));
}
