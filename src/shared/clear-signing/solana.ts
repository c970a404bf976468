/**
 * Solana transactions in words: each instruction with its program named (the well-known programs, or the uploaded
 * IDL's name), SOL and token transfers in their units, fee payer and signers. The transaction is decoded by the same
 * function the service's `solana.tx` policies read.
 */
import { decodeSolanaTransaction, type KnownSolanaInstruction, type SolanaPolicyInstruction } from '../chains/solana';
import { PolicyTimestamp, type PolicyStruct, type PolicyValue } from '../policy/values';
import { sol, tokenAmount, warnLargeTransfer } from './amounts';
import type { Lookup } from './lookup';
import type { AddressRef, ReadableNode, SolanaInstructionDetails, SolanaTransactionDetails, SolanaTransferDetails } from './types';
import type { Warnings } from './warnings';

/** An SPL allowance of the largest u64 never runs out. */
const MAX_U64 = (1n << 64n) - 1n;

const isApproval = (known: KnownSolanaInstruction) =>
  (known.program === 'Token' || known.program === 'Token-2022') && (known.instruction === 'Approve' || known.instruction === 'ApproveChecked');

const PROGRAM_NAMES: Record<KnownSolanaInstruction['program'], string> = {
  System: 'System',
  Token: 'SPL Token',
  'Token-2022': 'Token-2022',
  'Associated Token': 'Associated Token',
  'Compute Budget': 'Compute Budget',
};

/** Anchor IDLs name their program in `metadata.name` (0.30 and later) or at the top level (earlier). */
function idlName(definition: unknown): string | undefined {
  const idl = definition as { metadata?: { name?: unknown }; name?: unknown } | null;
  const name = idl?.metadata?.name ?? idl?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function policyNode(name: string, value: PolicyValue): ReadableNode {
  if (typeof value === 'bigint' || typeof value === 'string' || typeof value === 'boolean') return { name, text: String(value) };
  if (value instanceof PolicyTimestamp) return { name, text: new Date(Number(value.epochNanoseconds / 1_000_000n)).toISOString() };
  if (Array.isArray(value)) {
    const items = value as readonly PolicyValue[];
    return {
      name,
      text: `${items.length} item${items.length === 1 ? '' : 's'}`,
      children: items.map((item, index) => policyNode(`[${index}]`, item)),
    };
  }
  return { name, text: '', children: policyNodes(value as PolicyStruct) };
}

function policyNodes(struct: PolicyStruct): ReadableNode[] {
  return Object.entries(struct).flatMap(([name, value]) => (value === undefined ? [] : [policyNode(name, value)]));
}

function shown(ref: AddressRef): string {
  return ref.label === undefined ? ref.address : `${ref.label} (${ref.address})`;
}

export function readSolanaTransaction(bytes: Uint8Array, lookup: Lookup, warnings: Warnings): { details: SolanaTransactionDetails; summary: string } {
  const idls = (lookup.context.contracts ?? [])
    .filter((contract) => contract.type === 'SOLANA')
    .map((contract) => ({ address: contract.address, idl: contract.definition }));
  const decoded = decodeSolanaTransaction(bytes, idls);
  const { policy } = decoded;
  const address = (key: string) => lookup.address('solana', key);

  const transfers: SolanaTransferDetails[] = policy.transfers.map((transfer) => ({
    from: address(transfer.from),
    to: address(transfer.to),
    amount: sol(transfer.amount),
  }));
  const tokenTransfers: SolanaTransferDetails[] = policy.spl_transfers.map((transfer) => {
    // TransferChecked states the mint's decimals; the organization's token list names the mint.
    const instruction = decoded.knownInstructions.find(
      (known) => known.accounts.source === transfer.from && known.accounts.destination === transfer.to && known.args.amount === transfer.amount,
    );
    const decimals = typeof instruction?.args.decimals === 'bigint' ? Number(instruction.args.decimals) : undefined;
    const token = transfer.token_mint === undefined ? undefined : lookup.token('solana', transfer.token_mint);
    const amount = tokenAmount(transfer.amount, token, decimals);
    if (token !== undefined) warnLargeTransfer(amount, token, lookup.tokenThreshold('solana', token.address), warnings);
    return {
      from: address(transfer.from),
      to: address(transfer.to),
      amount,
      ...(transfer.token_mint === undefined ? {} : { mint: address(transfer.token_mint) }),
      owner: address(transfer.owner),
    };
  });

  const instructions = policy.instructions.map((instruction, index) =>
    readInstruction(
      instruction,
      index,
      decoded.knownInstructions.find((known) => known.index === index),
      lookup,
      warnings,
    ),
  );

  for (const transfer of [...transfers, ...tokenTransfers]) {
    if (lookup.isNewRecipient('solana', transfer.to.address)) {
      warnings.add('NEW_RECIPIENT', `${shown(transfer.to)} has never received anything from this organization before.`, transfer.to.address);
    }
  }
  const threshold = lookup.context.thresholds?.solanaLamports;
  const total = policy.transfers.reduce((sum, transfer) => sum + transfer.amount, 0n);
  if (threshold !== undefined && total > threshold) {
    warnings.add(
      'VALUE_ABOVE_THRESHOLD',
      `This sends ${sol(total).text}, above the ${sol(threshold).text} threshold set in Settings.`,
      total.toString(),
    );
  }

  // Compute Budget instructions only set fees: the summary names what the transaction does.
  const meaningful = instructions.filter((instruction) => instruction.programName !== 'Compute Budget');
  const names = meaningful.map((item) => item.instruction ?? item.programName).join(', ');
  const count = `${instructions.length} Solana instruction${instructions.length === 1 ? '' : 's'}`;
  const summary = meaningful.length === 1 ? `${meaningful[0]!.summary} on Solana` : `${count}${names === '' ? '' : `: ${names}`}`;
  return {
    summary,
    details: {
      kind: 'solana-transaction',
      version: decoded.version,
      feePayer: address(decoded.requiredSigners[0]!),
      signers: decoded.requiredSigners.map(address),
      recentBlockhash: policy.recent_blockhash,
      instructions,
      transfers,
      tokenTransfers,
      addressTableLookups: policy.address_table_lookups.length,
      policy,
    },
  };
}

function readInstruction(
  instruction: SolanaPolicyInstruction,
  index: number,
  known: KnownSolanaInstruction | undefined,
  lookup: Lookup,
  warnings: Warnings,
): SolanaInstructionDetails {
  const address = (key: string) => lookup.address('solana', key);
  const contract = lookup.contract('solana', instruction.program_key);
  const parsed = instruction.parsed_instruction_data;
  const base = { index, dataHex: instruction.instruction_data_hex };
  if (known !== undefined) {
    const programName = PROGRAM_NAMES[known.program];
    if (isApproval(known) && known.args.amount === MAX_U64 && known.accounts.delegate !== undefined) {
      const delegate = address(known.accounts.delegate);
      warnings.add(
        'UNLIMITED_APPROVAL',
        `This approves ${shown(delegate)} to spend an unlimited amount from token account ${known.accounts.source ?? '?'}.`,
        delegate.address,
      );
    }
    const accounts = Object.entries(known.accounts).map(([name, key]) => ({ name, address: address(key) }));
    const args = policyNodes(known.args).map((node) =>
      node.name === 'amount' && known.program === 'System' ? withSol(node, known.args.amount) : node,
    );
    return {
      ...base,
      program: { address: instruction.program_key, label: programName, role: 'contract' },
      programName,
      instruction: known.instruction,
      summary: knownSummary(programName, known, lookup),
      accounts,
      args,
    };
  }
  if (contract !== undefined) {
    const programName = idlName(contract.definition) ?? contract.label;
    const program: AddressRef = { address: instruction.program_key, label: contract.label, role: 'contract' };
    if (parsed === undefined) {
      warnings.add(
        'UNDECODED',
        `The IDL uploaded for ${shown(program)} has no instruction that decodes instruction ${index}.`,
        instruction.program_key,
      );
    }
    return {
      ...base,
      program,
      programName,
      ...(parsed === undefined ? {} : { instruction: parsed.instruction_name }),
      summary: parsed === undefined ? `${programName}: an instruction its IDL does not describe` : `${programName}: ${parsed.instruction_name}`,
      accounts:
        parsed === undefined
          ? rawAccounts(instruction, lookup)
          : Object.entries(parsed.named_accounts).map(([name, key]) => ({ name, address: address(key) })),
      args: parsed === undefined ? [] : policyNodes(parsed.program_call_args),
    };
  }
  const program: AddressRef = { address: instruction.program_key, role: 'unknown contract' };
  warnings.add(
    'UNKNOWN_CONTRACT',
    `No IDL is uploaded for program ${instruction.program_key}: instruction ${index} cannot be read. Upload its IDL, or check the instruction another way before you approve.`,
    instruction.program_key,
  );
  return {
    ...base,
    program,
    programName: 'Unknown program',
    summary: `Unknown program ${instruction.program_key}: ${instruction.instruction_data_hex.length / 2} bytes of data`,
    accounts: rawAccounts(instruction, lookup),
    args: [],
  };
}

/** An instruction no interface describes: its accounts by position, with their signer and writable flags. */
function rawAccounts(instruction: SolanaPolicyInstruction, lookup: Lookup): { name: string; address: AddressRef }[] {
  return instruction.accounts.map((account, position) => ({
    name: `#${position}${account.signer ? ' signer' : ''}${account.writable ? ' writable' : ''}`,
    address: lookup.address('solana', account.account_key),
  }));
}

function withSol(node: ReadableNode, lamports: PolicyValue | undefined): ReadableNode {
  if (typeof lamports !== 'bigint') return node;
  const amount = sol(lamports);
  return { ...node, text: amount.text, raw: lamports.toString(), amount };
}

function knownSummary(programName: string, known: KnownSolanaInstruction, lookup: Lookup): string {
  const { source, destination, mint } = known.accounts;
  const amount = known.args.amount;
  const name = (key: string | undefined) => {
    if (key === undefined) return '?';
    const ref = lookup.address('solana', key);
    return ref.label ?? key;
  };
  if (known.program === 'System' && typeof amount === 'bigint' && destination !== undefined) {
    return `Transfer ${sol(amount).text} from ${name(source)} to ${name(destination)}`;
  }
  if ((known.program === 'Token' || known.program === 'Token-2022') && typeof amount === 'bigint') {
    const decimals = typeof known.args.decimals === 'bigint' ? Number(known.args.decimals) : undefined;
    const token = mint === undefined ? undefined : lookup.token('solana', mint);
    const tokens = tokenAmount(amount, token, decimals).text;
    if (isApproval(known))
      return `Approve ${name(known.accounts.delegate)} to spend ${amount === MAX_U64 ? 'an unlimited amount' : tokens} from ${name(source)}`;
    if (destination !== undefined) return `Transfer ${tokens} from ${name(source)} to ${name(destination)}`;
  }
  // Read as the details tree reads them: a struct argument would otherwise print as [object Object].
  const args = policyNodes(known.args)
    .map((node) => (node.text === '' ? node.name : `${node.name} ${node.text}`))
    .join(', ');
  return `${programName}: ${known.instruction}${args === '' ? '' : ` (${args})`}`;
}
