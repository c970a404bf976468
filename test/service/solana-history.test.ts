/**
 * list_sol_transaction_history and Solana balances (src/service/families/wallet-data.ts) through `@turnkey/sdk-server`,
 * unchanged, against the Sandbox reading a Solana test node over a real SVM (test/support/solana-node.ts): a wallet's
 * account receives and sends real transfers, signed by the Sandbox's sign_transaction and sent by sol_send_transaction,
 * and its history lists them as the node executed them.
 */
import { getTransferSolInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createNoopSigner,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getCompiledTransactionMessageDecoder,
  getBase64EncodedWireTransaction,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type Signature,
  type TransactionSigner,
} from '@solana/kit';
import { Turnkey, type TurnkeyApiClient } from '@turnkey/sdk-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSolanaTransaction, solanaTransfers } from '../../src/service/families/wallet-data';
import { startSolanaNode, type SolanaTestNode } from '../support/solana-node';
import { startTestService, type TestService } from '../support/service';

/** The SDKs' types list Turnkey's hosted chains; the Sandbox serves the chains its --rpc flags name, hence `as never`. */
const CHAIN = 'solana:devnet';
/** A Solana chain whose --rpc leads to a node that was stopped: nothing listens there any more. */
const DOWN_CHAIN = 'solana:testnet';
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
const SOL = 1_000_000_000n;
/** LiteSVM's fee for a one-signature transaction without a priority fee: 5,000 lamports a signature. */
const ONE_SIGNATURE_FEE = '5000';

let node: SolanaTestNode;
let rpc: ReturnType<typeof createSolanaRpc>;
let service: TestService;
let account: Address;
let other: Address;
let outsider: KeyPairSigner;
/** The account's transfers in the order they landed: [received from the outsider, signed and sent, sent by the Sandbox]. */
const landed: Signature[] = [];
let sendActivityFingerprint: string;

function sdkClient(): TurnkeyApiClient {
  return new Turnkey({
    apiBaseUrl: service.info.baseUrl,
    apiPublicKey: service.rootKey.publicKey,
    apiPrivateKey: service.rootKey.privateKey,
    defaultOrganizationId: service.info.organizationId,
  }).apiClient();
}

/** A one-transfer transaction from `source`, which pays its fee, on the node's latest blockhash. */
async function transferMessage(source: TransactionSigner, destination: Address, amount: bigint) {
  const { value: lifetime } = await rpc.getLatestBlockhash().send();
  return pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(source, message),
    (message) => setTransactionMessageLifetimeUsingBlockhash(lifetime, message),
    (message) => appendTransactionMessageInstruction(getTransferSolInstruction({ source, destination, amount }), message),
  );
}

/** The account's transfer, signed by the Sandbox's sign_transaction, then sent to the node by the test. */
async function signAndSend(destination: Address, amount: bigint, options: { skipPreflight?: boolean } = {}): Promise<Signature> {
  const unsigned = compileTransaction(await transferMessage(createNoopSigner(account), destination, amount));
  const { signedTransaction } = await sdkClient().signTransaction({
    signWith: account,
    unsignedTransaction: Buffer.from(getTransactionEncoder().encode(unsigned)).toString('hex'),
    type: 'TRANSACTION_TYPE_SOLANA',
  });
  const wire = Buffer.from(signedTransaction, 'hex').toString('base64') as Base64EncodedWireTransaction;
  return rpc.sendTransaction(wire, { encoding: 'base64', ...options }).send();
}

const history = (paginationOptions?: { limit?: string; before?: string; after?: string }) =>
  sdkClient().listSolTransactionHistory({ address: account, caip2: CHAIN, ...(paginationOptions === undefined ? {} : { paginationOptions }) });

beforeAll(async () => {
  node = await startSolanaNode();
  rpc = createSolanaRpc(node.url);
  const stopped = await startSolanaNode();
  await stopped.close();
  service = await startTestService({ rpc: { [CHAIN]: node.url, [DOWN_CHAIN]: stopped.url } });
  const wallet = await sdkClient().createWallet({
    walletName: 'solana history',
    accounts: [SOLANA, { ...SOLANA, path: "m/44'/501'/1'/0'" }],
  });
  [account, other] = wallet.addresses.map((walletAddress) => address(walletAddress)) as [Address, Address];
  outsider = await generateKeyPairSigner();
  node.fund(outsider.address, 10n * SOL);

  const received = await signTransactionMessageWithSigners(await transferMessage(outsider, account, 3n * SOL));
  landed.push(await rpc.sendTransaction(getBase64EncodedWireTransaction(received), { encoding: 'base64' }).send());
  landed.push(await signAndSend(other, SOL));

  const client = sdkClient();
  const unsigned = compileTransaction(await transferMessage(createNoopSigner(account), outsider.address, SOL / 2n));
  const { sendTransactionStatusId, activity } = await client.solSendTransaction({
    unsignedTransaction: Buffer.from(getTransactionEncoder().encode(unsigned)).toString('hex'),
    signWiths: [account],
    caip2: CHAIN,
  });
  sendActivityFingerprint = activity.fingerprint;
  const status = await client.pollTransactionStatus({ sendTransactionStatusId, pollingIntervalMs: 50, timeoutMs: 10_000 });
  expect(status.txStatus).toBe('INCLUDED');
  landed.push(status.solana!.signature as Signature);
}, 60_000);

afterAll(async () => {
  await service?.close();
  await node?.close();
});

describe('list_sol_transaction_history against a node over a real SVM', () => {
  it('lists the account’s transactions newest first, each as the node executed it', async () => {
    const { transactions, pageInfo } = await history();
    expect(transactions.map((transaction) => transaction.signature)).toEqual([...landed].reverse());
    expect(pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    const sol = { caip19: `${CHAIN}/slip44:501`, symbol: 'SOL', name: 'Solana', decimals: 9 };
    const expected: [Signature, object][] = [
      [
        landed[0]!,
        {
          origin: 'EXTERNAL',
          feePayer: outsider.address,
          signers: [{ address: outsider.address, writable: true }],
          transfers: [{ direction: 'IN', amount: String(3n * SOL), counterparty: outsider.address, asset: sol, display: { crypto: '3' } }],
        },
      ],
      [
        landed[1]!,
        {
          origin: 'EXTERNAL',
          feePayer: account,
          signers: [{ address: account, writable: true }],
          transfers: [{ direction: 'OUT', amount: String(SOL), counterparty: other, asset: sol, display: { crypto: '1' } }],
        },
      ],
      [
        landed[2]!,
        {
          origin: 'TURNKEY',
          feePayer: account,
          signers: [{ address: account, writable: true }],
          transfers: [{ direction: 'OUT', amount: String(SOL / 2n), counterparty: outsider.address, asset: sol, display: { crypto: '0.5' } }],
          turnkey: { sponsored: false, activityFingerprint: sendActivityFingerprint, submittedAt: expect.any(String) },
        },
      ],
    ];
    for (const [signature, fields] of expected) {
      const item = transactions.find((transaction) => transaction.signature === signature)!;
      const onNode = (await rpc.getTransaction(signature, { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send())!;
      const block = await rpc.getBlock(onNode.slot, { transactionDetails: 'none', rewards: false }).send();
      expect(item).toEqual({
        signature,
        block: { number: String(onNode.slot), hash: block!.blockhash, timestamp: new Date(Number(block!.blockTime) * 1000).toISOString() },
        status: 'CONFIRMED',
        fee: { amount: ONE_SIGNATURE_FEE, caip19: `${CHAIN}/slip44:501` },
        ...fields,
      });
    }
  });

  it('pages as list_activities does: before toward older, after toward newer, cursors from the page', async () => {
    const [oldest, middle, newest] = landed as [Signature, Signature, Signature];
    const first = await history({ limit: '1' });
    expect(first.transactions.map((item) => item.signature)).toEqual([newest]);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await history({ limit: '1', before: first.pageInfo!.endCursor! });
    expect(second.transactions.map((item) => item.signature)).toEqual([middle]);
    expect(second.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const last = await history({ limit: '5', before: second.pageInfo!.endCursor! });
    expect(last.transactions.map((item) => item.signature)).toEqual([oldest]);
    expect(last.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const newer = await history({ limit: '1', after: last.pageInfo!.startCursor! });
    expect(newer.transactions.map((item) => item.signature)).toEqual([middle]);
    expect(newer.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const between = await history({ before: first.pageInfo!.endCursor!, after: last.pageInfo!.startCursor! });
    expect(between.transactions.map((item) => item.signature)).toEqual([middle]);
  });

  it('reports the account’s balance as the node holds it', async () => {
    const { value } = await rpc.getBalance(account).send();
    expect(value).toBe(3n * SOL - SOL - SOL / 2n - 2n * BigInt(ONE_SIGNATURE_FEE));
    const { balances } = await sdkClient().getWalletAddressBalances({ address: account, caip2: CHAIN as never });
    expect(balances).toEqual([
      { caip19: `${CHAIN}/slip44:501`, symbol: 'SOL', name: 'Solana', decimals: 9, balance: String(value), display: { crypto: '1.49999' } },
    ]);
  });

  it('lists a failed transaction with the fee it paid and no transfers', async () => {
    const failed = await signAndSend(other, 100n * SOL, { skipPreflight: true });
    const { transactions } = await history({ limit: '1' });
    expect(transactions[0]).toMatchObject({ signature: failed, feePayer: account, fee: { amount: ONE_SIGNATURE_FEE }, transfers: [] });
    landed.push(failed);
  });

  it('marks transactions FINALIZED once the node finalizes their blocks, newer ones CONFIRMED', async () => {
    node.advanceSlots(40n);
    const recent = await signAndSend(other, SOL / 10n);
    const { transactions } = await history();
    expect(transactions.map((item) => [item.signature, item.status])).toEqual([
      [recent, 'CONFIRMED'],
      ...[...landed].reverse().map((signature) => [signature, 'FINALIZED']),
    ]);
  });
});

describe('refusals, and a node that is down', () => {
  const cases: [string, () => Promise<unknown>, RegExp][] = [
    [
      'a Solana chain without --rpc',
      () => sdkClient().listSolTransactionHistory({ address: account, caip2: 'solana:mainnet' }),
      /no node is configured for solana:mainnet; start the Sandbox with --rpc solana:mainnet=URL/,
    ],
    [
      'an EVM chain',
      () => sdkClient().listSolTransactionHistory({ address: account, caip2: 'eip155:1' as never }),
      /caip2: expected solana:<genesis hash prefix or cluster name>, got eip155:1/,
    ],
    [
      'an address that is not the organization’s',
      () => sdkClient().listSolTransactionHistory({ address: outsider.address, caip2: CHAIN }),
      /address: \w+ is not a wallet account address of organization/,
    ],
    [
      'a cursor not of this history',
      () => history({ before: '1:notacursor' }),
      /paginationOptions.before: 1:notacursor is not a cursor of this address's history/,
    ],
    ['a page larger than 100', () => history({ limit: '101' }), /paginationOptions.limit must be between 1 and 100, got 101/],
    [
      'history from a node that is down',
      () => sdkClient().listSolTransactionHistory({ address: account, caip2: DOWN_CHAIN as never }),
      /the node for solana:testnet did not answer getSignaturesForAddress: .*ECONNREFUSED/,
    ],
    [
      'a balance from a node that is down',
      () => sdkClient().getWalletAddressBalances({ address: account, caip2: DOWN_CHAIN as never }),
      /the node for solana:testnet did not answer getBalance: .*ECONNREFUSED/,
    ],
  ];
  it.each(cases)('%s', async (_name, call, message) => {
    await expect(call()).rejects.toThrow(message);
  });

  it('keeps serving after a node failed to answer', async () => {
    await expect(sdkClient().listSolTransactionHistory({ address: account, caip2: DOWN_CHAIN as never })).rejects.toThrow(/did not answer/);
    const { transactions } = await history({ limit: '1' });
    expect(transactions).toHaveLength(1);
  });
});

describe('a v0 transaction that loads accounts from lookup tables', () => {
  it('puts the loaded accounts back where the message looks them up, writable ones of every table first', async () => {
    const [payer, destination, secondDestination, readonlyAccount, firstTable, secondTable] = await Promise.all(
      Array.from({ length: 6 }, async () => (await generateKeyPairSigner()).address),
    );
    const tables = { [firstTable!]: [readonlyAccount!, destination!], [secondTable!]: [secondDestination!] };
    const message = compressTransactionMessageUsingAddressLookupTables(
      pipe(
        createTransactionMessage({ version: 0 }),
        (draft) => setTransactionMessageFeePayerSigner(createNoopSigner(payer!), draft),
        (draft) =>
          setTransactionMessageLifetimeUsingBlockhash({ blockhash: '11111111111111111111111111111111' as never, lastValidBlockHeight: 0n }, draft),
        (draft) =>
          appendTransactionMessageInstruction(
            getTransferSolInstruction({ source: createNoopSigner(payer!), destination: destination!, amount: 7n }),
            draft,
          ),
        (draft) =>
          appendTransactionMessageInstruction(
            getTransferSolInstruction({ source: createNoopSigner(payer!), destination: secondDestination!, amount: 8n }),
            draft,
          ),
        // Data the System program does not know, naming a read-only account: no transfer, and one more loaded address.
        (draft) =>
          appendTransactionMessageInstruction(
            {
              programAddress: SYSTEM_PROGRAM_ADDRESS,
              accounts: [{ address: readonlyAccount!, role: AccountRole.READONLY }],
              data: new Uint8Array([99]),
            },
            draft,
          ),
      ),
      tables,
    );
    const transaction = compileTransaction(message);
    const compiled = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    // Only the payer and the program stay in the message: the other three accounts are looked up.
    expect(compiled.staticAccounts).toEqual([payer, SYSTEM_PROGRAM_ADDRESS]);
    // What a node reports loading: each lookup's writable accounts in the message's order, then each one's read-only ones.
    const lookups = 'addressTableLookups' in compiled ? (compiled.addressTableLookups ?? []) : [];
    const loadedBy = (kind: 'writableIndexes' | 'readonlyIndexes') =>
      lookups.flatMap((lookup) => lookup[kind].map((index) => tables[lookup.lookupTableAddress]![index]!));
    const loaded = { writable: loadedBy('writableIndexes'), readonly: loadedBy('readonlyIndexes') };
    expect(loaded.writable.toSorted()).toEqual([destination, secondDestination].toSorted());
    const wire = getBase64EncodedWireTransaction(transaction);
    const answered = (loaded: { writable: Address[]; readonly: Address[] }) => ({
      transaction: [wire, 'base64'] as const,
      meta: { err: null, fee: 5000n, loadedAddresses: loaded },
    });
    const decoded = decodeSolanaTransaction('test', answered(loaded));
    expect(decoded.feePayer).toBe(payer);
    expect(decoded.signers).toEqual([{ address: payer, writable: true }]);
    expect(decoded.instructions.map((instruction) => instruction.accounts?.map((account) => account.address))).toEqual([
      [payer, destination],
      [payer, secondDestination],
      [readonlyAccount],
    ]);
    const sol = { caip19: `${CHAIN}/slip44:501`, symbol: 'SOL', name: 'Solana', decimals: 9 };
    expect(solanaTransfers(decoded.instructions, payer!, sol)).toEqual([
      { direction: 'OUT', amount: '7', counterparty: destination, asset: sol, display: { crypto: '0.000000007' } },
      { direction: 'OUT', amount: '8', counterparty: secondDestination, asset: sol, display: { crypto: '0.000000008' } },
    ]);
    expect(() => decodeSolanaTransaction('short', answered({ writable: loaded.writable.slice(1), readonly: [] }))).toThrow(
      /getTransaction for short reports fewer loaded addresses than its message looks up/,
    );
  });
});
