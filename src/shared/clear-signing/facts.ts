/**
 * A description as labelled lines: the shape the activity describer's facts take (label + values, each value with an
 * optional id one click away and a fixed-width flag), so the approval card's fact list and the CLI can print a
 * signing request without knowing each chain's details.
 */
import type {
  AddressRef,
  Amount,
  BitcoinTransactionDetails,
  EthereumTransactionDetails,
  RawPayloadsDetails,
  ReadableNode,
  SigningDescription,
  SolanaTransactionDetails,
} from './types';

export interface SigningFactValue {
  text: string;
  /** The exact value behind `text`: the full address, the raw integer. */
  id?: string;
  code?: boolean;
}

export interface SigningFact {
  label: string;
  value: readonly SigningFactValue[];
}

const plain = (text: string): SigningFactValue[] => [{ text }];
const code = (text: string): SigningFactValue[] => [{ text, code: true }];

const ROLE_TEXT: Record<AddressRef['role'], string> = {
  address: '',
  contract: ' · contract',
  token: ' · token',
  'unknown contract': ' · unknown contract',
  'own address': ' · ours',
};

function address(ref: AddressRef): SigningFactValue[] {
  const role = ROLE_TEXT[ref.role];
  return ref.label === undefined ? [{ text: `${ref.address}${role}`, id: ref.address, code: true }] : [{ text: `${ref.label}${role}`, id: ref.address }];
}

function amount(value: Amount): SigningFactValue[] {
  return [{ text: value.text, id: `${value.raw} ${value.rawUnit}` }, ...source(value)];
}

/** Where a token amount's unit comes from, so "1,000 USDC" is never read without knowing who said USDC. */
function source(value: Amount | undefined): SigningFactValue[] {
  return value?.source === undefined ? [] : [{ text: value.source }];
}

/** A tree flattened into dotted labels: `details.amount`. */
function nodes(prefix: string, tree: readonly ReadableNode[]): SigningFact[] {
  return tree.flatMap((node) => {
    const label = node.name.startsWith('[') ? `${prefix}${node.name}` : `${prefix}${prefix === '' ? '' : '.'}${node.name}`;
    const own: SigningFact[] =
      node.children === undefined || node.text !== ''
        ? [{ label, value: node.address !== undefined ? address(node.address) : [{ text: node.text, ...(node.raw === undefined ? {} : { id: node.raw }) }, ...source(node.amount)] }]
        : [];
    return [...own, ...nodes(label, node.children ?? [])];
  });
}

export function signingFacts(description: SigningDescription): SigningFact[] {
  const { network, signer, details } = description;
  const facts: SigningFact[] = [
    { label: 'Network', value: plain(network.chainId === undefined ? network.name : `${network.name} (chain id ${network.chainId})`) },
    { label: 'Signer', value: [{ text: signer.text, id: signer.signWith, ...(signer.kind === 'unknown' ? { code: true } : {}) }] },
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
      return [...facts, { label: 'Transaction type', value: code(details.transactionType) }, { label: 'Unsigned transaction', value: code(details.unsignedTransaction) }];
  }
}

function ethereumFacts(tx: EthereumTransactionDetails): SigningFact[] {
  const { fees, call } = tx;
  const optional = (label: string, value: Amount | undefined): SigningFact[] => (value === undefined ? [] : [{ label, value: amount(value) }]);
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
    ...(call === undefined
      ? []
      : call.decoded
        ? [{ label: 'Function', value: code(call.signature ?? call.selector) }, ...nodes('', call.args)]
        : [{ label: 'Function', value: [{ text: call.likelySignature === undefined ? `not decoded (selector ${call.selector})` : `not decoded; the selector ${call.selector} is ${call.likelySignature} in the ERC-20/721 standards`, id: call.selector }] }]),
    ...(tx.data.length > 2 ? [{ label: 'Call data', value: code(tx.data) }] : []),
    ...tx.authorizations.flatMap((authorization, index) => [
      { label: `Delegation ${index + 1}`, value: address(authorization.delegate) },
      { label: `Delegation ${index + 1} chain`, value: plain(authorization.network.name) },
      { label: `Delegation ${index + 1} nonce`, value: plain(authorization.nonce.toString()) },
    ]),
  ];
}

function solanaFacts(tx: SolanaTransactionDetails): SigningFact[] {
  return [
    { label: 'Fee payer', value: address(tx.feePayer) },
    { label: 'Signers', value: tx.signers.flatMap(address) },
    ...tx.instructions.flatMap((instruction) => [
      { label: `Instruction ${instruction.index + 1}`, value: [{ text: `${instruction.programName}: ${instruction.summary}`, id: instruction.program.address }] },
      ...instruction.accounts.map((account) => ({ label: `Instruction ${instruction.index + 1} ${account.name}`, value: address(account.address) })),
      ...nodes(`Instruction ${instruction.index + 1}`, instruction.args),
    ]),
    ...(tx.addressTableLookups === 0 ? [] : [{ label: 'Lookup-table accounts', value: plain(`${tx.addressTableLookups} tables, not resolvable offline`) }]),
    { label: 'Recent blockhash', value: code(tx.recentBlockhash) },
  ];
}

function bitcoinFacts(tx: BitcoinTransactionDetails): SigningFact[] {
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
      value: [...(output.address === undefined ? code(`${output.addressType} ${output.scriptHex}`) : address(output.address)), ...amount(output.amount)],
    })),
    { label: 'Sent', value: amount(tx.sent) },
    { label: 'Fee', value: tx.fee === undefined ? plain('not known: the PSBT does not carry every spent output') : amount(tx.fee) },
  ];
}

function rawFacts(raw: RawPayloadsDetails): SigningFact[] {
  return [
    { label: 'Encoding', value: plain(raw.encodingText) },
    { label: 'Hash function', value: plain(raw.hashFunctionText) },
    ...raw.payloads.flatMap((payload) => {
      const name = raw.payloads.length === 1 ? 'Payload' : `Payload ${payload.index + 1}`;
      const facts: SigningFact[] = [];
      if (payload.typedData !== undefined) {
        facts.push(
          { label: `${name} primary type`, value: code(payload.typedData.primaryType) },
          ...nodes(`${name} domain`, payload.typedData.domain),
          ...nodes(`${name} message`, payload.typedData.message),
        );
      } else if (payload.authorization !== undefined) {
        facts.push(
          { label: `${name} delegate`, value: address(payload.authorization.delegate) },
          { label: `${name} chain`, value: plain(payload.authorization.network.name) },
          { label: `${name} nonce`, value: plain(payload.authorization.nonce.toString()) },
        );
      } else if (payload.solanaMessage !== undefined) {
        facts.push(...solanaFacts(payload.solanaMessage).map((fact) => ({ ...fact, label: `${name} ${fact.label}` })));
      } else if (payload.text !== undefined) {
        facts.push({ label: `${name} text`, value: plain(payload.text) });
      }
      facts.push({ label: `${name} bytes`, value: code(payload.hex) }, { label: `${name} signed bytes`, value: code(payload.signedBytesHex) });
      return facts;
    }),
  ];
}
