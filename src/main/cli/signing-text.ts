/** A signing card as plain text for the terminal: the same facts, warnings and policy standing as the app's card. */
import { effectInWords } from '../../shared/describe';
import type { AddressRefView, AmountView, PolicyStandingView, ReadableNodeView, SigningDescriptionView } from '../../shared/ipc/signing';

export function signingCardText(description: SigningDescriptionView, standing: PolicyStandingView | undefined): string {
  const lines: string[] = [description.title, `  ${description.summary}`, `  network: ${networkText(description.network)}`, `  signer: ${description.signer.text}`];
  for (const warning of description.warnings) lines.push(`  WARNING ${warning.kind}: ${warning.message}`);
  lines.push(...detailLines(description.details).map((line) => `  ${line}`));
  if (standing === undefined) {
    lines.push('  policies: not evaluated offline (the organization’s policies are read from the service)');
  } else {
    lines.push(`  policies: ${standing.outcome}${standing.decidedBy === undefined ? '' : ` (decided by the ${standing.decidedBy})`}`);
    for (const policy of standing.matchedPolicies) lines.push(`    matched ${JSON.stringify(policy.policyName)} (${effectInWords(policy.effect).toLowerCase()}): ${policy.outcome}`);
    if (standing.consensusNeeds !== undefined) lines.push(`    ${standing.consensusNeeds}${standing.viewerCanApprove ? '; you can approve' : ''}`);
    for (const policy of standing.failedPolicies) lines.push(`    could not evaluate ${JSON.stringify(policy.policyName)}: ${policy.reason}`);
  }
  return `${lines.join('\n')}\n`;
}

function networkText(network: SigningDescriptionView['network']): string {
  return `${network.name}${network.chainId === undefined ? '' : ` (chain id ${network.chainId})`}`;
}

function amount(value: AmountView): string {
  return `${value.text} (${value.raw} ${value.rawUnit})`;
}

function address(value: AddressRefView): string {
  return `${value.label === undefined ? '' : `${value.label} `}${value.address} (${value.role})`;
}

function tree(nodes: readonly ReadableNodeView[], depth = 0): string[] {
  return nodes.flatMap((node) => [
    `${'  '.repeat(depth)}${node.name}${node.type === undefined ? '' : ` ${node.type}`}: ${node.amount !== undefined ? amount(node.amount) : node.address !== undefined ? address(node.address) : node.text}`,
    ...tree(node.children ?? [], depth + 1),
  ]);
}

function detailLines(details: SigningDescriptionView['details']): string[] {
  switch (details.kind) {
    case 'ethereum-transaction':
      return [
        `to: ${details.to === undefined ? 'none (contract deployment)' : address(details.to)}`,
        `value: ${amount(details.value)}`,
        `type: ${details.typeText}${details.nonce === undefined ? '' : `, nonce ${details.nonce}`}`,
        ...(details.fees.maxFee === undefined ? [] : [`max fee: ${amount(details.fees.maxFee)}`]),
        ...(details.call === undefined
          ? []
          : [
              `call: ${details.call.decoded ? (details.call.signature ?? details.call.functionName ?? details.call.selector) : `${details.call.selector} (not decoded${details.call.likelySignature === undefined ? '' : `; probably ${details.call.likelySignature}`})`}`,
              ...tree(details.call.args, 1),
            ]),
        ...details.authorizations.map((authorization) => `EIP-7702 delegate: ${address(authorization.delegate)} on ${authorization.network.name}`),
      ];
    case 'solana-transaction':
      return [
        `fee payer: ${address(details.feePayer)}`,
        `signers: ${details.signers.map(address).join(', ')}`,
        ...details.instructions.flatMap((instruction) => [`instruction ${instruction.index + 1}: ${instruction.programName}: ${instruction.summary}`, ...tree(instruction.args, 1)]),
      ];
    case 'bitcoin-transaction':
      return [
        ...details.inputs.map((input) => `input ${input.txId}:${input.vout}${input.amount === undefined ? '' : ` ${amount(input.amount)}`}`),
        ...details.outputs.map((output) => `output ${output.index}: ${output.address === undefined ? output.addressType : address(output.address)} ${amount(output.amount)}${output.change ? ' (change)' : ''}`),
        `sent: ${amount(details.sent)}`,
        `fee: ${details.fee === undefined ? 'unknown' : amount(details.fee)}`,
      ];
    case 'raw-payloads':
      return [
        `encoding: ${details.encodingText}; hash: ${details.hashFunctionText}`,
        ...details.payloads.flatMap((payload) => [
          ...(details.payloads.length > 1 ? [`payload ${payload.index + 1}:`] : []),
          ...(payload.typedData === undefined
            ? []
            : [`EIP-712 ${payload.typedData.primaryType}`, 'domain:', ...tree(payload.typedData.domain, 1), 'message:', ...tree(payload.typedData.message, 1)]),
          ...(payload.text === undefined || payload.typedData !== undefined ? [] : [`text: ${JSON.stringify(payload.text)}`]),
          `hex: ${payload.hex}`,
        ]),
      ];
    case 'unsupported-transaction':
      return [`${details.transactionType} transactions cannot be read; unsigned: ${details.unsignedTransaction}`];
  }
}
