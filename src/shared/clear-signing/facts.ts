/**
 * A description as labelled facts: the one wording of a signing request that every surface shows. The signing card
 * renders them nested (a call's arguments, an instruction's accounts, typed data's fields under their parent); the
 * approval list's activity description and the CLI print them flattened, each part labelled by its path.
 */
import type {
  AddressRef,
  Amount,
  BitcoinTransactionDetails,
  Eip7702Delegation,
  ContractCall,
  EthereumTransactionDetails,
  RawPayloadsDetails,
  ReadableNode,
  SafeCall,
  SafeTransaction,
  SigningDescription,
  SolanaTransactionDetails,
} from './types';
import type { Fact, Ref } from '../describe/types';
import { descriptorFacts } from './erc7730/facts';

/**
 * Nested facts as one list for surfaces without nesting, each part labelled by its path: `Call.amount`,
 * `Payload.message.from.name`, `Call.recipients[0]`. A fact that is only its parts lists just them.
 */
export function flatFacts(facts: readonly Fact[], prefix = ''): Fact[] {
  return facts.flatMap(({ label: own, value, children }) => {
    const label = prefix === '' ? own : own.startsWith('[') ? `${prefix}${own}` : `${prefix}.${own}`;
    return [...(value.length === 0 && children !== undefined ? [] : [{ label, value }]), ...flatFacts(children ?? [], label)];
  });
}

const plain = (text: string): Ref[] => [{ text }];
const code = (text: string): Ref[] => [{ text, code: true }];

const ROLE_TEXT: Record<AddressRef['role'], string> = {
  address: '',
  contract: ' · contract',
  token: ' · token',
  'unknown contract': ' · unknown contract',
  'own address': ' · ours',
};

function address(ref: AddressRef): Ref[] {
  const role = ROLE_TEXT[ref.role];
  return ref.label === undefined
    ? [{ text: `${ref.address}${role}`, id: ref.address, code: true }]
    : [{ text: `${ref.label}${role}`, id: ref.address }];
}

/**
 * A token amount's units come from a list, an operator or the instruction: it is never read without its raw integer
 * and who said what the unit is ("1,000 USDC · raw 1000000000 · known token list"). A native amount names its raw
 * unit ("1.5 ETH", 1500000000000000000 wei).
 */
function amount(value: Amount): Ref[] {
  if (value.source === undefined) return [{ text: value.text, id: `${value.raw} ${value.rawUnit}` }];
  return [
    { text: value.text },
    ...(value.unit === 'raw units' ? [] : [{ text: `raw ${value.raw}`, note: true }]),
    { text: value.source, note: true },
  ];
}

/** A decoded tree (arguments, typed data): each node a fact, a struct's or list's members its parts. */
function nodes(tree: readonly ReadableNode[]): Fact[] {
  return tree.map((node) => {
    const value =
      node.amount !== undefined
        ? amount(node.amount)
        : node.address !== undefined
          ? address(node.address)
          : node.text === '' && node.children !== undefined
            ? []
            : [{ text: node.text, ...(node.raw === undefined ? {} : { id: node.raw }) }];
    return { label: node.name, value, ...(node.children === undefined ? {} : { children: nodes(node.children) }) };
  });
}

export function signingFacts(description: SigningDescription): Fact[] {
  const { network, signer, details } = description;
  const facts: Fact[] = [
    {
      label: 'Network',
      value: [
        { text: network.chainId === undefined ? network.name : `${network.name} (chain id ${network.chainId})` },
        ...(network.testnet === true ? [{ text: 'testnet', note: true }] : []),
      ],
    },
    {
      label: 'Signer',
      value:
        signer.kind === 'unknown'
          ? [
              { text: signer.signWith, code: true },
              { text: 'not a key of this organization', note: true },
            ]
          : [{ text: signer.text, id: signer.signWith }],
    },
    ...descriptorFacts(description.descriptor),
  ];
  switch (details.kind) {
    case 'ethereum-transaction':
      return [...facts, ...ethereumFacts(details)];
    case 'solana-transaction':
      return [...facts, ...solanaFacts(details)];
    case 'bitcoin-transaction':
      return [...facts, ...bitcoinFacts(details)];
    case 'raw-payloads':
      return [...facts, ...rawFacts(details)];
    case 'unsupported-transaction':
      return [
        ...facts,
        { label: 'Transaction type', value: code(details.transactionType) },
        { label: 'Unsigned transaction', value: code(details.unsignedTransaction) },
      ];
  }
}

function ethereumFacts(tx: EthereumTransactionDetails): Fact[] {
  const { fees, call } = tx;
  const optional = (label: string, value: Amount | undefined): Fact[] => (value === undefined ? [] : [{ label, value: amount(value) }]);
  return [
    { label: 'Type', value: plain(tx.typeText) },
    { label: 'To', value: tx.to === undefined ? plain('a new contract (deployment)') : address(tx.to) },
    { label: 'Value', value: amount(tx.value) },
    ...(tx.nonce === undefined ? [] : [{ label: 'Nonce', value: plain(String(tx.nonce)) }]),
    ...(fees.gas === undefined ? [] : [{ label: 'Gas limit', value: plain(fees.gas.toString()) }]),
    ...optional('Gas price', fees.gasPrice),
    ...optional('Max fee per gas', fees.maxFeePerGas),
    ...optional('Max priority fee per gas', fees.maxPriorityFeePerGas),
    ...optional('Max fee per blob gas', fees.maxFeePerBlobGas),
    ...optional('Most it can pay in fees', fees.maxFee),
    ...(call === undefined ? [] : [callFact(call)]),
    ...(tx.data.length > 2 ? [{ label: 'Call data', value: code(tx.data) }] : []),
    ...tx.authorizations.map((authorization, index) => ({
      label: `Delegation ${index + 1}`,
      value: address(authorization.delegate),
      children: delegationParts(authorization),
    })),
  ];
}

/**
 * The call, its arguments nested under it: decoded by an uploaded ABI, read as the standard token call it matches, or
 * a Safe transaction or batch with the calls it runs.
 */
const registryNote = (call: ContractCall): Ref[] => (call.registryNote === undefined ? [] : [{ text: call.registryNote, note: true }]);

function callFact(call: ContractCall, label = 'Call'): Fact {
  if (call.safeTransaction !== undefined) {
    return {
      label,
      value: [
        { text: 'Safe execTransaction', id: call.selector },
        { text: 'read by its selector: whether the contract is a Safe cannot be checked offline', note: true },
      ],
      children: safeTransactionFacts(call.safeTransaction),
    };
  }
  if (call.batch !== undefined) {
    return {
      label,
      value: [{ text: `MultiSend batch of ${call.batch.length} call${call.batch.length === 1 ? '' : 's'}`, id: call.selector }],
      children: [
        ...call.batch.map((row, index) => ({ label: `call ${index + 1}`, value: safeCallValue(row), children: safeCallFacts(row) })),
        ...(call.batchError === undefined ? [] : [{ label: 'unreadable', value: plain(call.batchError) }]),
      ],
    };
  }
  if (call.tokenUnknown === true) {
    return {
      label,
      value: [
        { text: `${call.likelySignature ?? call.selector} of the ERC-20 standard, read by its selector`, id: call.selector },
        { text: 'token unknown: decimals unknown', note: true },
        ...registryNote(call),
      ],
      children: nodes(call.args),
    };
  }
  const value = call.decoded
    ? code(call.signature ?? call.selector)
    : [
        {
          text:
            call.likelySignature === undefined
              ? `not decoded (selector ${call.selector})`
              : `not decoded; the selector ${call.selector} is ${call.likelySignature} in the ERC-20/721 standards`,
          id: call.selector,
        },
        ...registryNote(call),
      ];
  return { label, value, ...(call.args.length === 0 ? {} : { children: nodes(call.args) }) };
}

const OPERATION_TEXT: Record<SafeCall['operation'], string> = {
  CALL: 'CALL',
  DELEGATECALL: 'DELEGATECALL: the target’s code runs with the Safe’s own storage',
};

/** A batch row in one line: "CALL · USDC · token · 0 ETH". */
function safeCallValue(row: SafeCall): Ref[] {
  return [{ text: row.operation }, ...address(row.to), ...amount(row.value)];
}

/**
 * What a Safe call does: its operation, target, value, the registry's reading when a descriptor binds the target,
 * and the call read (a plain transfer has none).
 */
function safeCallFacts(row: SafeCall): Fact[] {
  return [
    { label: 'operation', value: plain(OPERATION_TEXT[row.operation]) },
    { label: 'to', value: address(row.to) },
    { label: 'value', value: amount(row.value) },
    ...descriptorFacts(row.descriptor, 'registry reading'),
    ...(row.call === undefined ? [] : [callFact(row.call, 'call')]),
    ...(row.data.length > 2 ? [{ label: 'data', value: code(row.data) }] : []),
  ];
}

function safeTransactionFacts(safe: SafeTransaction): Fact[] {
  const refunds = safe.gasPrice.raw > 0n;
  return [
    { label: 'Safe', value: address(safe.safe) },
    ...safeCallFacts(safe),
    {
      label: 'nonce',
      value: safe.nonce === undefined ? plain('the Safe’s current nonce: not known offline') : plain(safe.nonce.toString()),
    },
    { label: 'safeTxGas', value: plain(safe.safeTxGas === 0n ? '0 (all the gas left)' : safe.safeTxGas.toString()) },
    {
      label: 'refund',
      value: plain(refunds ? 'paid by the Safe' : 'none (gas price 0)'),
      children: [
        { label: 'baseGas', value: plain(safe.baseGas.toString()) },
        { label: 'gasPrice', value: amount(safe.gasPrice) },
        { label: 'gasToken', value: safe.gasToken === undefined ? plain('ETH (the chain’s own coin)') : address(safe.gasToken) },
        {
          label: 'refundReceiver',
          value: safe.refundReceiver === undefined ? plain('whoever submits the transaction') : address(safe.refundReceiver),
        },
      ],
    },
    {
      label: 'safeTxHash',
      value: safe.safeTxHash === undefined ? plain('not known: it covers the Safe’s nonce, which is not known offline') : code(safe.safeTxHash),
    },
    ...(safe.signatures === undefined ? [] : [{ label: 'signatures', value: code(safe.signatures) }]),
  ];
}

function delegationParts(authorization: Eip7702Delegation): Fact[] {
  return [
    { label: 'chain', value: plain(authorization.network.name) },
    { label: 'nonce', value: plain(authorization.nonce.toString()) },
  ];
}

function solanaFacts(tx: SolanaTransactionDetails): Fact[] {
  return [
    { label: 'Fee payer', value: address(tx.feePayer) },
    { label: 'Signers', value: tx.signers.flatMap(address) },
    { label: 'Version', value: plain(tx.version === 'legacy' ? 'legacy' : `v${tx.version}`) },
    ...tx.instructions.map((instruction) => {
      const name = instruction.instruction === undefined ? instruction.programName : `${instruction.programName} · ${instruction.instruction}`;
      const parts = [
        ...instruction.accounts.map((account) => ({ label: account.name, value: address(account.address) })),
        ...nodes(instruction.args),
      ];
      return {
        label: `Instruction ${instruction.index + 1}`,
        value: [{ text: `${name}: ${instruction.summary}`, id: instruction.program.address }],
        ...(parts.length === 0 ? {} : { children: parts }),
      };
    }),
    ...(tx.addressTableLookups === 0
      ? []
      : [{ label: 'Lookup-table accounts', value: plain(`${tx.addressTableLookups} tables, not resolvable offline`) }]),
    { label: 'Recent blockhash', value: code(tx.recentBlockhash) },
  ];
}

function bitcoinFacts(tx: BitcoinTransactionDetails): Fact[] {
  return [
    ...tx.inputs.map((input, index) => ({
      label: `Input ${index + 1}`,
      value: [
        ...(input.address === undefined ? [] : address(input.address)),
        ...(input.amount === undefined ? [] : amount(input.amount)),
        { text: `${input.txId}:${input.vout}`, code: true },
      ],
    })),
    ...tx.outputs.map((output) => ({
      label: `Output ${output.index + 1}${output.change ? ' (change)' : ''}`,
      value: [
        ...(output.address === undefined ? code(`${output.addressType} ${output.scriptHex}`) : address(output.address)),
        ...amount(output.amount),
      ],
    })),
    { label: 'Sent', value: amount(tx.sent) },
    { label: 'Fee', value: tx.fee === undefined ? plain('not known: the PSBT does not carry every spent output') : amount(tx.fee) },
  ];
}

function rawFacts(raw: RawPayloadsDetails): Fact[] {
  return [
    { label: 'Encoding', value: plain(raw.encodingText) },
    { label: 'Hash function', value: plain(raw.hashFunctionText) },
    ...raw.payloads.map((payload) => {
      const parts: Fact[] = [];
      let value: Ref[] = [];
      if (payload.typedData !== undefined) {
        value = [{ text: `EIP-712 ${payload.typedData.primaryType}` }];
        parts.push(
          ...(payload.typedData.safeTransaction === undefined
            ? []
            : [
                {
                  label: 'Safe transaction',
                  value: address(payload.typedData.safeTransaction.safe),
                  children: safeTransactionFacts(payload.typedData.safeTransaction),
                },
              ]),
          { label: 'domain', value: [], children: nodes(payload.typedData.domain) },
          { label: 'message', value: [], children: nodes(payload.typedData.message) },
        );
      } else if (payload.authorization !== undefined) {
        parts.push({ label: 'delegate', value: address(payload.authorization.delegate) }, ...delegationParts(payload.authorization));
      } else if (payload.solanaMessage !== undefined) {
        parts.push(...solanaFacts(payload.solanaMessage));
      } else if (payload.text !== undefined) {
        value = plain(payload.text);
      }
      parts.push({ label: 'bytes', value: code(payload.hex) }, { label: 'signed bytes', value: code(payload.signedBytesHex) });
      return { label: raw.payloads.length === 1 ? 'Payload' : `Payload ${payload.index + 1}`, value, children: parts };
    }),
  ];
}
