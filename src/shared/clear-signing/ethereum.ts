/**
 * Ethereum requests in words: unsigned transactions (with the call decoded by the uploaded ABI), EIP-712 typed data and
 * EIP-7702 authorizations. The payload is decoded by the same functions the service's policies use, so what the card
 * shows is what `eth.tx`, `eth.eip_712` and `eth.eip_7702_authorization` read.
 */
import {
  decodeFunctionData,
  erc20Abi,
  erc721Abi,
  getAddress,
  toFunctionSelector,
  toFunctionSignature,
  type Abi,
  type AbiFunction,
  type AbiParameter,
  type Address,
  type Hex,
} from 'viem';
import { decodeAuthorization, decodeEthereumTransaction, decodeTypedData } from '../chains/ethereum';
import { ether, gwei, warnLargeTransfer } from './amounts';
import { callDescriptor, type DescriptorSection } from './erc7730/reading';
import type { RenderedOutput } from './erc7730/types';
import { findNode, maxOfType, readableMembers, type AmountToken, type StructMembers, type TypedMember } from './ethereum-values';
import type { Lookup } from './lookup';
import { ethereumNetwork } from './networks';
import { readSafeCall, readSafeTypedData, type ReadInnerCall } from './safe';
import type {
  AddressRef,
  Amount,
  ContractCall,
  Eip7702Delegation,
  EthereumTransactionDetails,
  GasFees,
  Network,
  ReadableNode,
  SafeTransaction,
  Signer,
  TypedDataDetails,
} from './types';
import type { Warnings } from './warnings';

const TYPE_TEXT: Record<string, string> = {
  legacy: 'Legacy',
  eip2930: 'EIP-2930 access list (type 1)',
  eip1559: 'EIP-1559 (type 2)',
  eip4844: 'EIP-4844 blob (type 3)',
  eip7702: 'EIP-7702 set code (type 4)',
};

/** Functions that grant another party the right to move the signer's tokens. */
const APPROVALS = new Set(['approve', 'increaseAllowance', 'setApprovalForAll', 'permit']);
/** Argument names that name who receives tokens or an allowance. */
const RECIPIENT_NAME = /^(?:to|recipient|dst|receiver|spender|operator|_to|_spender)$/i;

export interface EthereumReading {
  details: EthereumTransactionDetails;
  network: Network;
  summary: string;
  /** The registry's reading of the transaction's own call, when a shipped descriptor binds its contract. */
  descriptor?: DescriptorSection;
}

const abiStructMembers: StructMembers = (member) =>
  (member as AbiParameter & { components?: readonly AbiParameter[] }).components as TypedMember[] | undefined;

function fees(tx: {
  gas?: bigint | undefined;
  gasPrice?: bigint | undefined;
  maxFeePerGas?: bigint | undefined;
  maxPriorityFeePerGas?: bigint | undefined;
  maxFeePerBlobGas?: bigint | undefined;
}): GasFees {
  const perGas = tx.maxFeePerGas ?? tx.gasPrice;
  return {
    ...(tx.gas === undefined ? {} : { gas: tx.gas }),
    ...(tx.gasPrice === undefined ? {} : { gasPrice: gwei(tx.gasPrice) }),
    ...(tx.maxFeePerGas === undefined ? {} : { maxFeePerGas: gwei(tx.maxFeePerGas) }),
    ...(tx.maxPriorityFeePerGas === undefined ? {} : { maxPriorityFeePerGas: gwei(tx.maxPriorityFeePerGas) }),
    ...(tx.maxFeePerBlobGas === undefined ? {} : { maxFeePerBlobGas: gwei(tx.maxFeePerBlobGas) }),
    ...(tx.gas === undefined || perGas === undefined ? {} : { maxFee: ether(tx.gas * perGas) }),
  };
}

function shown(ref: AddressRef): string {
  return ref.label === undefined ? ref.address : `${ref.label} (${ref.address})`;
}

/** The ABI function `data` calls, decoded; undefined when the ABI has no function with its selector or it does not decode. */
function decodeWith(abi: Abi, data: Hex): { item: AbiFunction; args: readonly unknown[] } | undefined {
  const selector = data.slice(0, 10);
  const item = abi.find((entry): entry is AbiFunction => entry.type === 'function' && toFunctionSelector(entry) === selector);
  if (item === undefined) return undefined;
  try {
    const decoded = decodeFunctionData({ abi: [item], data });
    return { item, args: decoded.args ?? [] };
  } catch {
    return undefined;
  }
}

function checkApproval(functionName: string, args: readonly ReadableNode[], contract: AddressRef, warnings: Warnings): void {
  if (!APPROVALS.has(functionName)) return;
  const spender = args.find((arg) => arg.address !== undefined && RECIPIENT_NAME.test(arg.name))?.address;
  const unlimitedAmount = args.some((arg) => arg.text.startsWith('unlimited'));
  const allTokens = functionName === 'setApprovalForAll' && args.some((arg) => arg.type === 'bool' && arg.text === 'true');
  if (!unlimitedAmount && !allTokens) return;
  const who = spender === undefined ? 'the spender' : shown(spender);
  warnings.add(
    'UNLIMITED_APPROVAL',
    allTokens
      ? `This lets ${who} move every token of ${shown(contract)} the account holds, now and later, until the approval is revoked.`
      : `This approves ${who} to spend an unlimited amount of ${shown(contract)} from the account, until the approval is revoked.`,
    spender?.address ?? contract.address,
  );
}

function checkRecipients(nodes: readonly ReadableNode[], lookup: Lookup, warnings: Warnings): void {
  for (const node of findNode(nodes, (candidate) => candidate.address !== undefined && RECIPIENT_NAME.test(candidate.name))) {
    checkRecipient(node.address!, lookup, warnings);
  }
}

function checkRecipient(ref: AddressRef, lookup: Lookup, warnings: Warnings): void {
  if (lookup.isNewRecipient('ethereum', ref.address)) {
    warnings.add('NEW_RECIPIENT', `${shown(ref)} has never received anything from this organization before.`, ref.address);
  }
}

/** ERC-20 functions that move the called contract's tokens, flagged above the token's threshold. */
const MOVING_FUNCTIONS = new Set(['transfer', 'transferFrom']);

function checkTokenThreshold(functionName: string, args: readonly ReadableNode[], contract: AddressRef, lookup: Lookup, warnings: Warnings): void {
  if (!MOVING_FUNCTIONS.has(functionName)) return;
  const token = lookup.token('ethereum', contract.address);
  const amount = args.find((arg) => arg.amount !== undefined && arg.type === 'uint256')?.amount;
  if (token === undefined || amount === undefined) return;
  warnLargeTransfer(amount, token, lookup.tokenThreshold('ethereum', contract.address), warnings);
}

/** ERC-20 functions whose amount argument counts the called contract's own tokens. */
const TOKEN_FUNCTIONS = new Set(['transfer', 'transferFrom', 'approve', 'increaseAllowance', 'decreaseAllowance']);

/**
 * A call to `address` with `value` and `data`, read: the one entry point for every call the card shows, the
 * transaction's own and those a Safe runs (`depth` counts the Safe and batch levels above it; `runsAs` is the account
 * the called code runs as, `address` itself unless a Safe delegate-called it; `descriptor` the registry's reading of
 * the call, if any).
 */
function readCallTo(
  address: Address,
  value: bigint,
  data: Hex,
  lookup: Lookup,
  warnings: Warnings,
  decodedByPolicy: boolean,
  depth: number,
  runsAs: Address,
  descriptor: DescriptorSection | undefined,
): { to: AddressRef; value: Amount; call?: ContractCall } {
  const hasData = data.length > 2;
  const to = lookup.address('ethereum', address, hasData);
  const call = hasData ? readCall(to, data, runsAs, lookup, warnings, decodedByPolicy, depth, descriptor) : undefined;
  if (!hasData || value > 0n) checkRecipient(to, lookup, warnings);
  const amount = ether(value);
  checkValueThreshold(amount, lookup, warnings);
  return { to, value: amount, ...(call === undefined ? {} : { call }) };
}

/** The registry's reading of a call, when a shipped descriptor binds its contract on the lookup's chain. */
function registryDescriptor(to: Address, value: bigint, data: Hex, from: Address | undefined, lookup: Lookup): DescriptorSection | undefined {
  const { descriptors } = lookup.context;
  const chainId = lookup.ethereumChainId;
  return descriptors === undefined || chainId === undefined ? undefined : callDescriptor({ chainId, to, data, value, from }, lookup, descriptors);
}

/**
 * A Safe's calls are read as every call is, the registry's descriptors included; the policy engine reads only the
 * transaction's own call.
 */
const innerReader =
  (lookup: Lookup, warnings: Warnings): ReadInnerCall =>
  ({ to, value, data, from, runsAs }, depth) => {
    const descriptor = registryDescriptor(to, value, data, from, lookup);
    const read = readCallTo(to, value, data, lookup, warnings, true, depth, runsAs, descriptor);
    return descriptor === undefined ? read : { ...read, descriptor };
  };

function checkValueThreshold(value: Amount, lookup: Lookup, warnings: Warnings): void {
  const threshold = lookup.context.thresholds?.ethereumWei;
  if (threshold !== undefined && value.raw > threshold) {
    warnings.add(
      'VALUE_ABOVE_THRESHOLD',
      `This sends ${value.text}, above the ${ether(threshold).text} threshold set in Settings.`,
      value.raw.toString(),
    );
  }
}

/** The ERC-20 functions read by their selector alone on a contract nobody described, the amount raw. */
const FALLBACK_TOKEN_FUNCTIONS = new Set(['transfer', 'approve', 'transferFrom']);

function readCall(
  to: AddressRef,
  data: Hex,
  runsAs: Address,
  lookup: Lookup,
  warnings: Warnings,
  decodedByPolicy: boolean,
  depth: number,
  descriptor: DescriptorSection | undefined,
): ContractCall {
  const safeCall = readSafeCall(to, data, runsAs, depth, lookup, warnings, innerReader(lookup, warnings));
  if (safeCall !== undefined) return safeCall;
  const selector = data.slice(0, 10);
  const abi = lookup.abi(to.address);
  const token = lookup.token('ethereum', to.address);
  // A token call's amount is in the contract's units; an ERC-20 call on a token nobody described stays raw, noted so.
  const amountToken = (functionName: string): AmountToken | undefined => token ?? (TOKEN_FUNCTIONS.has(functionName) ? 'unknown' : undefined);
  // The policy engine decoded this call with the same ABI; the card shows a call as decoded only when it did.
  const decoded = abi !== undefined && decodedByPolicy ? decodeWith(abi, data) : undefined;
  if (decoded !== undefined) {
    const { name } = decoded.item;
    const args = readableMembers(
      decoded.item.inputs as readonly TypedMember[],
      (_member, index) => decoded.args[index],
      abiStructMembers,
      lookup,
      amountToken(name),
    );
    checkApproval(name, args, to, warnings);
    checkRecipients(args, lookup, warnings);
    checkTokenThreshold(name, args, to, lookup, warnings);
    return { selector, decoded: true, functionName: name, signature: toFunctionSignature(decoded.item), args };
  }
  // A well-known selector is named as a guess, and an unlimited approval is still flagged: the risk does not depend on an upload.
  const guess = [erc20Abi, erc721Abi].map((standard) => decodeWith(standard, data)).find((candidate) => candidate !== undefined);
  // On a token the known list or an operator names, the ERC-20 reading is no guess: its arguments are shown.
  const standardTokenCall = token !== undefined && guess !== undefined && TOKEN_FUNCTIONS.has(guess.item.name);
  // Nobody described this contract: a standard ERC-20 call still shows who gets what, in raw units.
  const fallback = token === undefined && abi === undefined && guess !== undefined && FALLBACK_TOKEN_FUNCTIONS.has(guess.item.name);
  const unread = fallback
    ? `the call is read by its selector alone, as the ERC-20 ${toFunctionSignature(guess.item)} of a token whose decimals are unknown`
    : `the call (selector ${selector}) cannot be read`;
  const elsewhere = lookup.contractsElsewhere(to.address).map((contract) => `“${contract.label}” on ${ethereumNetwork(contract.chainId).name}`);
  const chainName = lookup.ethereumChainId === undefined ? 'the chain this request names' : ethereumNetwork(lookup.ethereumChainId).name;
  // A descriptor that read the call says what is true in place of "cannot be read"; one that could not leaves the warning.
  const registryNote =
    !standardTokenCall && abi === undefined && descriptor?.rendered !== undefined
      ? `No ABI uploaded for ${shown(to)}${elsewhere.length > 0 ? ` on ${chainName}` : ''}; read by ${descriptor.describedBy}; the raw call data is below`
      : undefined;
  if (standardTokenCall) {
    const why =
      abi === undefined ? `No interface is uploaded for ${shown(to)}` : `The ABI uploaded for ${shown(to)} has no function that decodes this call`;
    const whose = token.origin === 'known token list' ? 'a known token' : 'a token an operator declared';
    warnings.add(
      'UNDECODED',
      `${why}: it is read as the standard ERC-20 ${toFunctionSignature(guess.item)} of ${whose}, but policies cannot read its arguments until an ABI with that function is uploaded.`,
      to.address,
    );
  } else if (abi !== undefined) {
    warnings.add('UNDECODED', `The ABI uploaded for ${shown(to)} has no function that decodes this call (selector ${selector}).`, to.address);
  } else if (registryNote === undefined && elsewhere.length > 0) {
    warnings.add(
      'UNKNOWN_CONTRACT',
      `The interfaces uploaded for ${to.address} (${elsewhere.join(', ')}) name the contract at that address on another chain, not on ${chainName}: ${unread}. Check the call data another way before you approve.`,
      to.address,
    );
  } else if (registryNote === undefined) {
    warnings.add(
      'UNKNOWN_CONTRACT',
      `No interface is uploaded for ${shown(to)}: ${unread}. Upload its ABI, or check the call data another way before you approve.`,
      to.address,
    );
  }
  const noted = registryNote === undefined ? {} : { registryNote };
  if (guess === undefined) return { selector, decoded: false, args: [], ...noted };
  const args = readableMembers(
    guess.item.inputs as readonly TypedMember[],
    (_member, index) => guess.args[index],
    abiStructMembers,
    lookup,
    amountToken(guess.item.name),
  );
  checkApproval(guess.item.name, args, to, warnings);
  if (fallback) {
    checkRecipients(args, lookup, warnings);
    return {
      selector,
      decoded: false,
      functionName: guess.item.name,
      args,
      likelySignature: toFunctionSignature(guess.item),
      tokenUnknown: true,
      ...noted,
    };
  }
  if (!standardTokenCall) return { selector, decoded: false, args: [], likelySignature: toFunctionSignature(guess.item), ...noted };
  checkRecipients(args, lookup, warnings);
  checkTokenThreshold(guess.item.name, args, to, lookup, warnings);
  return { selector, decoded: false, functionName: guess.item.name, args, likelySignature: toFunctionSignature(guess.item) };
}

function delegation(
  policy: { address: string; chainId: number | bigint; nonce: number | bigint },
  signer: Signer,
  lookup: Lookup,
  warnings: Warnings,
): Eip7702Delegation {
  const delegate = lookup.address('ethereum', getAddress(policy.address), true);
  const chainId = Number(policy.chainId);
  const network: Network = chainId === 0 ? { family: 'ethereum', name: 'every chain (chain id 0)', chainId: 0 } : ethereumNetwork(chainId);
  warnings.add(
    'EIP7702_DELEGATION',
    `This makes ${signer.text} run the code of ${shown(delegate)} on ${network.name}: that code can move everything the account holds. Approve only a delegate you have reviewed.`,
    delegate.address,
  );
  return { delegate, network, nonce: BigInt(policy.nonce) };
}

export function readEthereumTransaction(unsignedTransaction: string, signer: Signer, anyChain: Lookup, warnings: Warnings): EthereumReading {
  const decoded = decodeEthereumTransaction(unsignedTransaction, (to) => anyChain.policyAbi(to));
  const tx = decoded.fields;
  const lookup = anyChain.onChain(tx.chainId);
  const data: Hex = tx.data ?? '0x';
  const network = ethereumNetwork(tx.chainId);
  const value = ether(tx.value ?? 0n);
  const toAddress = tx.to === undefined || tx.to === null ? undefined : getAddress(tx.to);
  const from = /^0x[0-9a-fA-F]{40}$/.test(signer.signWith) ? getAddress(signer.signWith) : undefined;
  const descriptor = toAddress === undefined ? undefined : registryDescriptor(toAddress, value.raw, data, from, lookup);
  const target =
    toAddress === undefined
      ? undefined
      : readCallTo(toAddress, value.raw, data, lookup, warnings, decoded.policy.function_name !== undefined, 0, toAddress, descriptor);
  const to = target?.to;
  const call = target?.call;
  // A deployment's value is checked here; a call's was checked with the call.
  if (target === undefined) checkValueThreshold(value, lookup, warnings);
  const authorizations =
    tx.type === 'eip7702' ? tx.authorizationList.map((authorization) => delegation(authorization, signer, lookup, warnings)) : [];
  return {
    network,
    summary: transactionSummary(to, value.text, call, network, descriptor),
    details: {
      kind: 'ethereum-transaction',
      transactionType: decoded.kind,
      typeText: TYPE_TEXT[decoded.kind] ?? decoded.kind,
      ...(to === undefined ? {} : { to }),
      value,
      ...(tx.nonce === undefined ? {} : { nonce: tx.nonce }),
      fees: fees(tx),
      data,
      ...(call === undefined ? {} : { call }),
      authorizations,
      policy: decoded.policy,
    },
    ...(descriptor === undefined ? {} : { descriptor }),
  };
}

const sentence = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** "Uniswap Labs’ contract 0x68b3…": the descriptor's owner, who the registry says the contract is. */
function ownersContract(owner: string, target: string): string {
  if (owner === '') return target;
  return `${owner}${owner.endsWith('s') ? '’' : '’s'} contract ${target}`;
}

/** A call only the registry read, in its words: the interpolated intent when the descriptor writes one. */
function registrySummary(rendered: RenderedOutput, target: string, network: Network): string {
  if (rendered.interpolatedIntent !== undefined) return `${sentence(rendered.interpolatedIntent)} on ${network.name}`;
  return `${sentence(rendered.intent)} on ${ownersContract(rendered.owner, target)} on ${network.name}`;
}

/** An EIP-712 message a descriptor read: "Sign EIP-712 PermitSingle for Uniswap Labs: authorize spending on Ethereum". */
export function typedDataSummary(primaryType: string, rendered: RenderedOutput, network: Network | undefined): string {
  const what = rendered.interpolatedIntent ?? rendered.intent;
  const owner = rendered.owner === '' ? '' : ` for ${rendered.owner}`;
  return `Sign EIP-712 ${primaryType}${owner}: ${what.charAt(0).toLowerCase()}${what.slice(1)}${network === undefined ? '' : ` on ${network.name}`}`;
}

function transactionSummary(
  to: AddressRef | undefined,
  value: string,
  call: ContractCall | undefined,
  network: Network,
  descriptor: DescriptorSection | undefined,
): string {
  if (to === undefined) return `Deploy a contract on ${network.name}`;
  const target = to.label ?? to.address;
  if (call === undefined) return `Send ${value} to ${target} on ${network.name}`;
  if (call.registryNote !== undefined && descriptor?.rendered !== undefined) return registrySummary(descriptor.rendered, target, network);
  if (call.safeTransaction !== undefined) return safeSummary(call.safeTransaction, network);
  if (call.batch !== undefined) return `Run a batch of ${call.batch.length} calls through ${target} on ${network.name}`;
  if (call.functionName === undefined)
    return `Call ${call.likelySignature === undefined ? call.selector : `${call.likelySignature}?`} on ${target} on ${network.name}`;
  const amount = call.args.find((arg) => arg.amount !== undefined)?.amount;
  const party = call.args.find((arg) => arg.address !== undefined && RECIPIENT_NAME.test(arg.name))?.address;
  const partyText = party === undefined ? '' : ` ${APPROVALS.has(call.functionName ?? '') ? 'for' : 'to'} ${party.label ?? party.address}`;
  if (amount !== undefined && (call.functionName === 'transfer' || call.functionName === 'transferFrom' || call.functionName === 'approve')) {
    const verb = call.functionName === 'approve' ? 'Approve' : 'Transfer';
    const ofToken = call.tokenUnknown === true ? ` of the unknown token ${target}` : '';
    return `${verb} ${amount.text}${ofToken}${partyText} on ${network.name}`;
  }
  return `Call ${call.functionName} on ${target}${partyText} on ${network.name}`;
}

/** "Safe 0x5afe…: transfer 250 USDC to 0x1111… on Ethereum". */
export function safeSummary(safe: SafeTransaction, network: Network): string {
  const safeName = safe.safe.label ?? safe.safe.address;
  const inner = safe.call === undefined ? undefined : transactionSummary(safe.to, safe.value.text, safe.call, network, safe.descriptor);
  const what = inner ?? `send ${safe.value.text} to ${safe.to.label ?? safe.to.address} on ${network.name}`;
  const delegate = safe.operation === 'DELEGATECALL' ? ' by DELEGATECALL' : '';
  return `Safe ${safeName}${delegate}: ${inner === undefined ? what : what.charAt(0).toLowerCase() + what.slice(1)}`;
}

// ─── EIP-712 ──────────────────────────────────────────────────────────────────────────────────

/** The card reads the document decodeTypedData checked and hashed: its domain rows are exactly the signed members. */
export function readTypedData(payload: string, what: string, anyChain: Lookup, warnings: Warnings): TypedDataDetails {
  const decoded = decodeTypedData(payload, what);
  const { types, primaryType, domain: domainValues } = decoded;
  const structMembers: StructMembers = (member) => types.get(member.type);
  const signedDomain = decoded.policy.domain as { chain_id?: bigint; verifying_contract?: string };
  const chainId = signedDomain.chain_id === undefined ? undefined : Number(signedDomain.chain_id);
  const lookup = anyChain.onChain(chainId);
  const domain = readableMembers(decoded.domainFields, (member) => domainValues[member.name], structMembers, lookup);
  const verifyingContract =
    signedDomain.verifying_contract === undefined ? undefined : lookup.address('ethereum', signedDomain.verifying_contract, true);
  const network = chainId === undefined ? undefined : ethereumNetwork(chainId);
  // A token's own permit is signed for the token contract: its amounts are in that token's units.
  const verifyingToken = verifyingContract === undefined ? undefined : lookup.token('ethereum', verifyingContract.address);
  const message = readableMembers(types.get(primaryType) ?? [], (member) => decoded.message[member.name], structMembers, lookup, verifyingToken);
  checkPermit(primaryType, message, verifyingContract, lookup, warnings);
  const safeTransaction = readSafeTypedData(decoded, verifyingContract, chainId, lookup, warnings, innerReader(lookup, warnings));
  return {
    primaryType,
    domain,
    ...(verifyingContract === undefined ? {} : { verifyingContract }),
    ...(network === undefined ? {} : { network }),
    message,
    policy: decoded.policy,
    ...(safeTransaction === undefined ? {} : { safeTransaction }),
  };
}

/** Permit (EIP-2612) and Permit2 messages grant an allowance: an amount at its type's maximum is unlimited. */
function checkPermit(
  primaryType: string,
  message: readonly ReadableNode[],
  verifyingContract: AddressRef | undefined,
  lookup: Lookup,
  warnings: Warnings,
): void {
  if (!/permit/i.test(primaryType)) return;
  const unlimited = findNode(message, (node) => node.type !== undefined && maxOfType(node.type) !== undefined && node.text.startsWith('unlimited'));
  const spender = findNode(message, (node) => node.address !== undefined && RECIPIENT_NAME.test(node.name))[0]?.address;
  if (unlimited.length > 0) {
    const tokens = findNode(message, (node) => node.name === 'token' && node.address !== undefined).map((node) => shown(node.address!));
    const what = tokens.length > 0 ? tokens.join(', ') : verifyingContract === undefined ? 'the token' : shown(verifyingContract);
    warnings.add(
      'UNLIMITED_APPROVAL',
      `This ${primaryType} signature lets ${spender === undefined ? 'the spender' : shown(spender)} spend an unlimited amount of ${what} from the account.`,
      spender?.address ?? verifyingContract?.address,
    );
  }
  if (spender !== undefined) checkRecipient(spender, lookup, warnings);
}

// ─── EIP-7702 ─────────────────────────────────────────────────────────────────────────────────

export function readAuthorization(payload: string, what: string, signer: Signer, lookup: Lookup, warnings: Warnings): Eip7702Delegation {
  const decoded = decodeAuthorization(payload, what);
  const { address, chain_id: chainId, nonce } = decoded.policy as { address: string; chain_id: bigint; nonce: bigint };
  return delegation({ address, chainId, nonce }, signer, lookup, warnings);
}
