/**
 * Policy templates for signing: fill in addresses and amounts and pick a user tag by name, get a policy the shared
 * checker accepts (the expression holds the tag's id, the name and notes its name).
 * Ethereum addresses are written checksummed, as the decoded `eth.tx.to` is, so the string comparison matches;
 * amounts are given in ETH and written in wei, the unit `eth.tx.value` is in.
 */
import { checksummedEthereumAddress } from '../../../shared/crypto/ethereum-address';
import { QkError } from '../../../shared/errors';
import type { PolicyDraft } from './draft';
import { PROPOSER_COUNTS, quote, type Named } from './templates';

const SIGN_TRANSACTION = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'";

function checksummed(address: string, field: string): string {
  const trimmed = address.trim();
  const checksummed = checksummedEthereumAddress(trimmed);
  if (checksummed === undefined) throw new QkError('REQUEST_INVALID', `${field}: ${JSON.stringify(trimmed.slice(0, 80))} is not an Ethereum address`);
  return checksummed;
}

function wei(ether: string, field: string): bigint {
  const match = /^(\d{1,30})(?:\.(\d{1,18}))?$/.exec(ether.trim());
  if (match === null) throw new QkError('REQUEST_INVALID', `${field}: give an amount in ETH, like 0.5`);
  // At most 18 decimals, so the amount in wei is the digits with the fraction padded to 18.
  return BigInt(`${match[1]!}${(match[2] ?? '').padEnd(18, '0')}`);
}

const taggedApprover = (tag: Named) => `user.tags.contains(${quote(tag.id)})`;

/** Transfers to the allowlisted addresses, below `belowEth`, need one approver tagged `tag`. */
export function allowlistBelowTemplate(addresses: readonly string[], belowEth: string, tag: Named): PolicyDraft {
  if (addresses.length === 0) throw new QkError('REQUEST_INVALID', 'addresses: give at least one allowed recipient');
  const allowed = addresses.map((address, index) => quote(checksummed(address, `addresses[${index}]`)));
  const limit = wei(belowEth, 'below');
  return {
    name: `Transfers below ${belowEth} ETH to the allowlist, one operator`,
    effect: 'EFFECT_ALLOW',
    condition: `${SIGN_TRANSACTION} && eth.tx.to in [${allowed.join(', ')}] && eth.tx.value < ${limit}`,
    consensus: `approvers.any(user, ${taggedApprover(tag)})`,
    time: '',
    notes: `One approver tagged ${tag.name} may sign transfers of less than ${belowEth} ETH to ${addresses.length === 1 ? 'this address' : `these ${addresses.length} addresses`}. ${PROPOSER_COUNTS}`,
  };
}

/** Transactions moving more than `aboveEth` need two approvers tagged `tag`. */
export function aboveNeedsTwoTemplate(aboveEth: string, tag: Named): PolicyDraft {
  const limit = wei(aboveEth, 'above');
  return {
    name: `Above ${aboveEth} ETH needs two approvers tagged ${tag.name}`,
    effect: 'EFFECT_ALLOW',
    condition: `${SIGN_TRANSACTION} && eth.tx.value > ${limit}`,
    consensus: `approvers.filter(user, ${taggedApprover(tag)}).count() >= 2`,
    time: '',
    notes: `Transactions moving more than ${aboveEth} ETH are signed once two approvers tagged ${tag.name} agree.`,
  };
}

/** Calls of one function of one contract (decoded with its uploaded ABI) need one approver tagged `tag`. */
export function contractFunctionTemplate(contract: string, functionName: string, tag: Named): PolicyDraft {
  const address = checksummed(contract, 'contract');
  const name = functionName.trim();
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name))
    throw new QkError('REQUEST_INVALID', `function: ${JSON.stringify(name.slice(0, 80))} is not a function name`);
  return {
    name: `Only ${name} on ${address}`,
    effect: 'EFFECT_ALLOW',
    condition: `${SIGN_TRANSACTION} && eth.tx.to == ${quote(address)} && eth.tx.function_name == ${quote(name)}`,
    consensus: `approvers.any(user, ${taggedApprover(tag)})`,
    time: '',
    notes: `Allows calls of ${name} on ${address} once one approver tagged ${tag.name} approves; the contract's ABI must be uploaded for the call to be decoded. ${PROPOSER_COUNTS}`,
  };
}

/** Denies every Ethereum transaction for chain `chainId`. */
export function denyChainTemplate(chainId: string): PolicyDraft {
  if (!/^[1-9]\d{0,18}$/.test(chainId.trim())) throw new QkError('REQUEST_INVALID', 'chain: give a chain id, like 1 for Ethereum mainnet');
  return {
    name: `Deny chain ${chainId.trim()}`,
    effect: 'EFFECT_DENY',
    condition: `${SIGN_TRANSACTION} && eth.tx.chain_id == ${chainId.trim()}`,
    consensus: '',
    time: '',
    notes: `No transaction for chain id ${chainId.trim()} is signed, whoever approves it.`,
  };
}
