/**
 * Policies that read what is signed, end to end: a non-root user whose only permission is a policy submits
 * sign_transaction, and the decoded transaction (eth.tx, solana.tx, with an uploaded ABI) decides.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { getU64Encoder } from '@solana/kit';
import { PublicKey, SystemProgram, Transaction as SolanaTransaction, TransactionInstruction } from '@solana/web3.js';
import { encodeFunctionData, getAddress, recoverTransactionAddress, recoverTypedDataAddress, serializeSignature, serializeTransaction } from 'viem';
import { createAccount } from '@turnkey/viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIL } from '../../support/eip712-mail';
import { type Reply, startTestService, type TestKey, type TestService } from '../../support/service';
import { recordedRows } from './recorded';
import { ERC20, ERC20_JSON } from '../../support/erc20';

const SIGN_TRANSACTION = 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2';
const ALLOWED = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
const OTHER = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
const TOKEN = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const SOLANA_RECIPIENT = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const SOLANA_OTHER = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';
/** An Anchor program with one instruction, deposit(amount: u64). */
const VAULT_PROGRAM = 'Vau1t11111111111111111111111111111111111111';
const DEPOSIT_DISCRIMINATOR = sha256(new TextEncoder().encode('global:deposit')).slice(0, 8);
const VAULT_IDL = {
  address: VAULT_PROGRAM,
  metadata: { name: 'vault', version: '0.1.0', spec: '0.1.0' },
  instructions: [
    {
      name: 'deposit',
      discriminator: [...DEPOSIT_DISCRIMINATOR],
      accounts: [{ name: 'user', signer: true, writable: true }],
      args: [{ name: 'amount', type: 'u64' }],
    },
  ],
};

let t: TestService;
let signer: { userId: string; key: TestKey };
let approver: { userId: string; key: TestKey };
let ethereumAddress: `0x${string}`;
let solanaAddress: string;

async function root(name: string, type: string, parameters: unknown): Promise<Reply['body']> {
  t.clock.advance(1);
  const reply = await t.submit(name, type, parameters);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  return reply.body.activity.result;
}

async function policy(policyName: string, effect: 'EFFECT_ALLOW' | 'EFFECT_DENY', condition: string, consensus = ''): Promise<void> {
  await root('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName, effect, condition, consensus, notes: '' });
}

function ethereumTransaction(fields: { to: `0x${string}`; value?: bigint; chainId?: number; data?: `0x${string}` }): string {
  return serializeTransaction({
    type: 'eip1559',
    chainId: fields.chainId ?? 1,
    nonce: 0,
    to: fields.to,
    value: fields.value ?? 0n,
    data: fields.data,
    gas: 60000n,
    maxFeePerGas: 20_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  }).slice(2);
}

function solanaTransfer(to: string): string {
  const from = new PublicKey(solanaAddress);
  const tx = new SolanaTransaction({ feePayer: from, recentBlockhash: SOLANA_OTHER });
  tx.add(SystemProgram.transfer({ fromPubkey: from, toPubkey: new PublicKey(to), lamports: 10 }));
  return Buffer.from(tx.serialize({ requireAllSignatures: false, verifySignatures: false })).toString('hex');
}

function signAs(user: { key: TestKey }, signWith: string, unsignedTransaction: string, type = 'TRANSACTION_TYPE_ETHEREUM'): Promise<Reply> {
  t.clock.advance(1);
  return t.submit('sign_transaction', SIGN_TRANSACTION, { signWith, unsignedTransaction, type }, { key: user.key });
}

async function expectSignedBy(reply: Reply, address: string): Promise<void> {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  const signed = reply.body.activity.result.signTransactionResult.signedTransaction as string;
  expect(await recoverTransactionAddress({ serializedTransaction: `0x${signed}` as never })).toBe(address);
}

function expectRefused(reply: Reply, reason: 'explicit' | 'implicit'): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(403);
  expect(reply.body.details[0].turnkeyErrorCode).toBe('REQUEST_NOT_AUTHORIZED');
  expect(reply.body.message).toMatch(reason === 'explicit' ? /^policy engine denied request explicitly$/ : /No policies evaluated to outcome: Allow/);
}

beforeAll(async () => {
  t = await startTestService();
  signer = await t.addUser({ name: 'signer' });
  approver = await t.addUser({ name: 'approver' });
  const wallet = await root('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', {
    walletName: 'treasury',
    accounts: [
      { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
      { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' },
    ],
  });
  [ethereumAddress, solanaAddress] = wallet.createWalletResult.addresses;
  const self = `approvers.any(user, user.id == '${signer.userId}')`;
  await policy('small transfers to the allowed recipient', 'EFFECT_ALLOW', `eth.tx.to == '${ALLOWED}' && eth.tx.value <= 1000`, self);
  await policy(
    'large transfers need the approver',
    'EFFECT_ALLOW',
    `eth.tx.to == '${ALLOWED}' && eth.tx.value > 1000`,
    `${self} && approvers.any(user, user.id == '${approver.userId}')`,
  );
  await policy('never on BNB chain', 'EFFECT_DENY', 'eth.tx.chain_id == 56');
  await policy(
    'token transfers to the allowed recipient',
    'EFFECT_ALLOW',
    `eth.tx.to == '${TOKEN}' && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['to'] == '${ALLOWED}'`,
    self,
  );
  // all() holds for a transaction without transfers, so the policy also keeps to the System program (as the docs do).
  await policy(
    'solana to one recipient',
    'EFFECT_ALLOW',
    `solana.tx.program_keys.all(p, p == '11111111111111111111111111111111') && solana.tx.transfers.all(transfer, transfer.to == '${SOLANA_RECIPIENT}')`,
    self,
  );
  await policy(
    'small vault deposits',
    'EFFECT_ALLOW',
    `solana.tx.program_keys.all(p, p == '${VAULT_PROGRAM}') && solana.tx.instructions.all(i, i.parsed_instruction_data.instruction_name == 'deposit' && i.parsed_instruction_data.program_call_args['amount'] <= 100)`,
    self,
  );
  await policy(
    'mail typed data from this wallet',
    'EFFECT_ALLOW',
    `activity.action == 'SIGN' && wallet_account.address == '${ethereumAddress}' && eth.eip_712.primary_type == 'Mail' && eth.eip_712.domain.verifying_contract == '${MAIL.domain.verifyingContract}'`,
    self,
  );
  await policy(
    'no blind digests',
    'EFFECT_DENY',
    "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'",
  );
  await policy(
    'keccak-hashed raw payloads by the treasury',
    'EFFECT_ALLOW',
    "activity.kind == 'SIGN_RAW_PAYLOAD' && wallet.label == 'treasury' && activity.params.hash_function == 'HASH_FUNCTION_KECCAK256'",
    self,
  );
});
afterAll(() => t.close());

describe('finding 3: a DENY that names an address in lower case', () => {
  it('refuses the transfer @turnkey/viem asks to sign, beside the ALLOW that names it checksummed', async () => {
    const DENIED = getAddress('0xabababababababababababababababababababab');
    await policy('transfers to the exchange', 'EFFECT_ALLOW', `eth.tx.to == '${DENIED}'`, `approvers.any(user, user.id == '${signer.userId}')`);
    const deny = await root('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'never to the exchange',
      effect: 'EFFECT_DENY',
      condition: `eth.tx.to == '${DENIED.toLowerCase()}'`,
      consensus: '',
      notes: '',
    });
    // @turnkey/viem pins its own @turnkey/http; the client is the same on the wire.
    const account = await createAccount({ client: t.client(signer.key) as never, organizationId: t.info.organizationId, signWith: ethereumAddress });
    const before = recordedRows(t);
    const transfer = {
      type: 'eip1559',
      chainId: 1,
      nonce: 0,
      to: DENIED,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    } as const;
    await expect(account.signTransaction(transfer)).rejects.toThrow(
      `"policyId":"${deny.createPolicyResult.policyId}","outcome":"OUTCOME_DENY_EXPLICIT"`,
    );
    expect(recordedRows(t)).toBe(before);
  });
});

describe('eth.tx decides who may sign what, for a user whose only permission is the policies', () => {
  it('a transfer to the allowed recipient under the limit is signed by the user alone', async () => {
    await expectSignedBy(await signAs(signer, ethereumAddress, ethereumTransaction({ to: ALLOWED, value: 1000n })), ethereumAddress);
  });

  it('a transfer to another recipient is refused, and nothing is recorded', async () => {
    const before = recordedRows(t);
    expectRefused(await signAs(signer, ethereumAddress, ethereumTransaction({ to: OTHER, value: 1n })), 'implicit');
    expect(recordedRows(t)).toBe(before);
  });

  it('above the limit it waits in CONSENSUS_NEEDED until the named approver completes it with a valid signature', async () => {
    const proposed = await signAs(signer, ethereumAddress, ethereumTransaction({ to: ALLOWED, value: 5000n }));
    expect(proposed.status).toBe(200);
    const pending = proposed.body.activity;
    expect(pending.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(pending.result).toEqual({});

    const outsider = await t.addUser({ name: 'outsider' });
    t.clock.advance(1);
    const refused = await t.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: pending.fingerprint }, { key: outsider.key });
    expect(refused.status).toBe(403);

    t.clock.advance(1);
    const approved = await t.submit(
      'approve_activity',
      'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      { fingerprint: pending.fingerprint },
      { key: approver.key },
    );
    expect(approved.body.activity.id).toBe(pending.id);
    await expectSignedBy(approved, ethereumAddress);
    expect(approved.body.activity.votes.map((vote: { userId: string }) => vote.userId)).toEqual([signer.userId, approver.userId]);
  });

  it('a DENY on the chain id wins over the ALLOW that matches too', async () => {
    expectRefused(await signAs(signer, ethereumAddress, ethereumTransaction({ to: ALLOWED, value: 1n, chainId: 56 })), 'explicit');
  });

  it('with the ERC-20 ABI uploaded, function_name and contract_call_args allow transfer to one address and nothing else', async () => {
    const transferTo = (to: `0x${string}`) =>
      ethereumTransaction({ to: TOKEN, data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [to, 5n] }) });
    // Before the upload the call cannot be decoded: the fields are absent and the condition does not match.
    expectRefused(await signAs(signer, ethereumAddress, transferTo(ALLOWED)), 'implicit');

    await root('create_smart_contract_interface', 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
      smartContractAddress: TOKEN.toLowerCase(),
      smartContractInterface: ERC20_JSON,
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label: 'USDC',
    });
    await expectSignedBy(await signAs(signer, ethereumAddress, transferTo(ALLOWED)), ethereumAddress);
    expectRefused(await signAs(signer, ethereumAddress, transferTo(OTHER)), 'implicit');
    const approve = ethereumTransaction({ to: TOKEN, data: encodeFunctionData({ abi: ERC20, functionName: 'approve', args: [ALLOWED, 5n] }) });
    expectRefused(await signAs(signer, ethereumAddress, approve), 'implicit');
  });
});

describe('eth.eip_712, activity.params and the wallet of a raw payload', () => {
  const signRaw = (payload: string, encoding: string, hashFunction: string) => {
    t.clock.advance(1);
    return t.submit(
      'sign_raw_payload',
      'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      { signWith: ethereumAddress, payload, encoding, hashFunction },
      { key: signer.key },
    );
  };

  it('typed data is allowed by its domain; a bare digest is denied by the documented DENY on activity.params', async () => {
    const typed = await signRaw(JSON.stringify(MAIL), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP');
    expect(typed.status, JSON.stringify(typed.body)).toBe(200);
    const { r, s, v } = typed.body.activity.result.signRawPayloadResult;
    expect(await recoverTypedDataAddress({ ...MAIL, signature: serializeSignature({ r: `0x${r}`, s: `0x${s}`, yParity: Number(v) }) })).toBe(
      ethereumAddress,
    );
    const elsewhere = { ...MAIL, domain: { ...MAIL.domain, verifyingContract: OTHER } };
    expectRefused(await signRaw(JSON.stringify(elsewhere), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'), 'implicit');
    expectRefused(await signRaw(`0x${'ab'.repeat(32)}`, 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_NO_OP'), 'explicit');
    const hashed = await signRaw('hello', 'PAYLOAD_ENCODING_TEXT_UTF8', 'HASH_FUNCTION_KECCAK256');
    expect(hashed.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});

describe('solana.tx', () => {
  it('transfers.all(...) allows a transfer to the one recipient and refuses another', async () => {
    const allowed = await signAs(signer, solanaAddress, solanaTransfer(SOLANA_RECIPIENT), 'TRANSACTION_TYPE_SOLANA');
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const signed = SolanaTransaction.from(Buffer.from(allowed.body.activity.result.signTransactionResult.signedTransaction, 'hex'));
    expect(signed.verifySignatures()).toBe(true);
    expectRefused(await signAs(signer, solanaAddress, solanaTransfer(SOLANA_OTHER), 'TRANSACTION_TYPE_SOLANA'), 'implicit');
  });
});

describe('solana.tx with an uploaded IDL', () => {
  function deposit(amount: bigint): string {
    const from = new PublicKey(solanaAddress);
    const data = Buffer.concat([Buffer.from(DEPOSIT_DISCRIMINATOR), Buffer.from(getU64Encoder().encode(amount))]);
    const instruction = new TransactionInstruction({
      programId: new PublicKey(VAULT_PROGRAM),
      keys: [{ pubkey: from, isSigner: true, isWritable: true }],
      data,
    });
    const tx = new SolanaTransaction({ feePayer: from, recentBlockhash: SOLANA_OTHER }).add(instruction);
    return Buffer.from(tx.serialize({ requireAllSignatures: false, verifySignatures: false })).toString('hex');
  }

  it('parsed_instruction_data allows a deposit up to the limit once the IDL is uploaded, and nothing above it', async () => {
    // Without the IDL the instruction is not parsed, the condition cannot be evaluated, and nothing allows it.
    expectRefused(await signAs(signer, solanaAddress, deposit(50n), 'TRANSACTION_TYPE_SOLANA'), 'implicit');
    await root('create_smart_contract_interface', 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
      smartContractAddress: VAULT_PROGRAM,
      smartContractInterface: JSON.stringify(VAULT_IDL),
      type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
      label: 'vault',
    });
    const allowed = await signAs(signer, solanaAddress, deposit(50n), 'TRANSACTION_TYPE_SOLANA');
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expectRefused(await signAs(signer, solanaAddress, deposit(500n), 'TRANSACTION_TYPE_SOLANA'), 'implicit');
  });
});

describe('the schema guards policies before they are stored', () => {
  it('a condition naming eth.tx.bogus_field is refused at create_policy with its position and the fields that exist', async () => {
    t.clock.advance(1);
    const reply = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'bogus',
      effect: 'EFFECT_ALLOW',
      condition: "eth.tx.bogus_field == 'x'",
      notes: '',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/EthereumTransaction has no field 'bogus_field'; its fields are from, to, data, value/);
    expect(reply.body.message).toMatch(/1:8/);
  });

  it('policy evaluation has no work bound: a condition nested too costly over the lists it writes is refused at create_policy', async () => {
    t.clock.advance(1);
    const digits = '[0,1,2,3,4,5,6,7,8,9]';
    let condition = 'true';
    for (const variable of ['f', 'e', 'd', 'c', 'b', 'a']) condition = `${digits}.all(${variable}, ${condition})`;
    const reply = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'costly',
      effect: 'EFFECT_ALLOW',
      condition,
      notes: '',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/this condition is too costly to evaluate: .* take 2,333,332 steps, more than the 50,000 allowed/);
  });
});
