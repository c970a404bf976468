/**
 * A simulation in words, line by line: the balance changes of the signer and of the addresses the organization names
 * (native from the state diff, ERC-20 from Transfer logs, in the token's units when the token is known or declared),
 * the allowances it would grant (Approval logs), and why it would revert or be refused. The card and main's
 * confirmation show these lines as they are.
 */
import { ContractFunctionRevertedError, decodeEventLog, erc20Abi, formatEther, getAddress, type Abi, type Hex } from 'viem';
import { grouped, tokenAmount } from '../../shared/clear-signing/amounts';
import type { Lookup } from '../../shared/clear-signing/lookup';
import type { SimulationLine, SimulationView } from '../../shared/ipc/simulation';
import { visibleText } from '../../shared/visible-text';
import type { RawSimulation } from './run-transaction';

export interface ReadingParties {
  /** Names addresses and tokens on the transaction's chain, with the organization's names and uploaded interfaces. */
  lookup: Lookup;
  /** The signer's address and name ("Treasury / m/44'/60'/0'/0/0"). */
  signer: { address: string; name: string };
  /** The contract called, whose uploaded ABI decodes custom errors. */
  to: string | undefined;
}

export function simulationLines(raw: RawSimulation, parties: ReadingParties): SimulationLine[] {
  const lines: SimulationLine[] = [];
  if (raw.failure?.kind === 'refused') return [{ kind: 'refused', text: `The network would refuse it: ${raw.failure.reason}` }];
  if (raw.failure?.kind === 'reverted') lines.push({ kind: 'revert', text: revertText(raw.failure, parties) });
  const signer = parties.signer.address.toLowerCase();
  const native = raw.nativeChanges.filter(({ address }) => address === signer || isNamed(address, parties));
  for (const { address, before, after } of signerFirst(native, signer)) {
    const fee = address === signer ? ' (network fee included)' : '';
    lines.push({
      kind: 'balance',
      text: `${who(address, parties)}: ${signed(after - before, (value) => `${grouped(formatEther(value))} ETH`)}${fee}`,
    });
  }
  const { transfers, approvals } = tokenEvents(raw.logs);
  for (const [key, delta] of transfers) {
    const [token, holder] = key.split(' ') as [string, string];
    if (delta === 0n || (holder !== signer && !isNamed(holder, parties))) continue;
    lines.push({ kind: 'balance', text: `${who(holder, parties)}: ${signed(delta, (value) => tokenText(value, token, parties))}` });
  }
  for (const { token, owner, spender, value } of approvals) {
    const amount = value === 2n ** 256n - 1n ? `an unlimited amount of ${tokenName(token, parties)}` : tokenText(value, token, parties);
    lines.push({ kind: 'approval', text: `${who(owner, parties)} lets ${who(spender, parties)} spend ${amount}` });
  }
  return lines;
}

/** The signer's lines before the rest, the rest in the order the state diff has them. */
function signerFirst<T extends { address: string }>(changes: readonly T[], signer: string): T[] {
  return [...changes.filter(({ address }) => address === signer), ...changes.filter(({ address }) => address !== signer)];
}

function isNamed(address: string, { lookup }: ReadingParties): boolean {
  return lookup.address('ethereum', address).label !== undefined;
}

/** "Treasury / m/44'/60'/0'/0/0 (0xf39f…2266)", or the bare address when nothing names it. */
function who(address: string, parties: ReadingParties): string {
  const shown = getAddress(address);
  if (address.toLowerCase() === parties.signer.address.toLowerCase()) return `${visibleText(parties.signer.name)} (${shown})`;
  const label = parties.lookup.address('ethereum', address).label;
  return label === undefined ? shown : `${visibleText(label)} (${shown})`;
}

function signed(delta: bigint, words: (value: bigint) => string): string {
  return delta < 0n ? `−${words(-delta)}` : `+${words(delta)}`;
}

/** "5 USDC", or the raw integer with the token's address when its decimals are not known. */
function tokenText(value: bigint, token: string, { lookup }: ReadingParties): string {
  const resolved = lookup.token('ethereum', token);
  const amount = tokenAmount(value, resolved);
  return resolved === undefined ? `${grouped(amount.formatted)} raw units of the unknown token ${getAddress(token)}` : amount.text;
}

function tokenName(token: string, { lookup }: ReadingParties): string {
  const resolved = lookup.token('ethereum', token);
  return resolved === undefined ? `the unknown token ${getAddress(token)}` : resolved.symbol;
}

interface Approval {
  token: string;
  owner: string;
  spender: string;
  value: bigint;
}

/** ERC-20 Transfer logs summed per token and holder (`"<token> <holder>"`), and Approval logs in order. */
function tokenEvents(logs: RawSimulation['logs']): { transfers: Map<string, bigint>; approvals: Approval[] } {
  const transfers = new Map<string, bigint>();
  const approvals: Approval[] = [];
  const add = (token: string, holder: string, delta: bigint) =>
    transfers.set(`${token} ${holder.toLowerCase()}`, (transfers.get(`${token} ${holder.toLowerCase()}`) ?? 0n) + delta);
  for (const log of logs) {
    const [signature, ...rest] = log.topics as Hex[];
    if (signature === undefined) continue;
    let event: ReturnType<typeof decodeEventLog<typeof erc20Abi>>;
    try {
      event = decodeEventLog({ abi: erc20Abi, topics: [signature, ...rest], data: log.data as Hex, strict: true });
    } catch {
      // Not an ERC-20 event (an ERC-721 Transfer indexes its token id, so it does not decode as one).
      continue;
    }
    if (event.eventName === 'Transfer') {
      add(log.address, event.args.from, -event.args.value);
      add(log.address, event.args.to, event.args.value);
    } else {
      approvals.push({
        token: log.address,
        owner: event.args.owner.toLowerCase(),
        spender: event.args.spender.toLowerCase(),
        value: event.args.value,
      });
    }
  }
  return { transfers, approvals };
}

/** Why it reverts: Error(string), Panic(uint256), a custom error of the called contract's uploaded ABI, or the raw data. */
function revertText(failure: { error: string; returnData: string }, { lookup, to }: ReadingParties): string {
  if (failure.error !== 'revert') return `It would fail: ${failure.error}; nothing but the network fee would change.`;
  if (failure.returnData === '0x') return 'It would revert without a reason; nothing but the network fee would change.';
  const abi: Abi = (to === undefined ? undefined : lookup.abi(to)) ?? [];
  // viem decodes Error(string), Panic(uint256) (with Solidity's words for its code) and the ABI's custom errors.
  const reverted = new ContractFunctionRevertedError({ abi, data: failure.returnData as Hex, functionName: 'call' });
  const decoded = reverted.data;
  const reason =
    decoded === undefined
      ? `an error this app cannot decode (${failure.returnData.slice(0, 10)}; no uploaded ABI defines it)`
      : decoded.errorName === 'Error'
        ? `“${visibleText(String(reverted.reason))}”`
        : decoded.errorName === 'Panic'
          ? `panic 0x${BigInt(decoded.args?.[0] as bigint).toString(16)} (${reverted.reason ?? 'a panic code Solidity does not define'})`
          : `${decoded.errorName}(${(decoded.args ?? []).map(String).join(', ')})`;
  return `It would revert: ${reason}; nothing but the network fee would change.`;
}

/** The simulation as main's confirmation and the terminal restate it: a heading line, then the card's lines. */
export function simulationInLines(view: SimulationView): string[] {
  if (view.status === 'not-simulated') return [`What this would do: not simulated: ${view.reason}`];
  const source =
    view.stateBundle === undefined
      ? `with the state ${view.node} gave`
      : `from a state bundle, proofs checked, made by ${view.stateBundle.madeBy}${view.stateBundle.forThisTransaction ? '' : ' for another transaction'}; compare the block hash with one you trust`;
  return [
    `What this would do (simulated at block ${view.block.number}, ${view.block.hash}, ${source}):`,
    ...view.lines.map((line) => `  ${line.text}`),
  ];
}

/** What the card and the confirmation say when nothing the organization names would change. */
export const NO_CHANGE = 'No balance of the signer or of an address the organization names would change.';
