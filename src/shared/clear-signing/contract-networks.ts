/**
 * The chain an Ethereum contract interface is for. The service's interfaces are keyed by address only, and the same
 * address on two chains may be two contracts (an Ethereum label must not name a Base contract), so the app states
 * the chain in the upload itself, where every operator votes on it and every desktop reads it: the first line of the
 * interface's notes, "Network: eip155:<chain id>" (a CAIP-2 chain id). An upload without that line (made before, or
 * by another tool) names no chain: it is read on every chain, with a warning saying so.
 */

const NETWORK_LINE = /^Network: eip155:([1-9]\d{0,15})$/;

/** The chain the notes name, or undefined when their first line names none. */
export function chainIdOfNotes(notes: string | undefined): number | undefined {
  const match = NETWORK_LINE.exec((notes ?? '').split('\n', 1)[0]!.trim());
  return match === null ? undefined : Number(match[1]);
}

/** Notes stating `chainId` on their first line, then the operator's own notes. */
export function notesWithChainId(chainId: number, notes: string | undefined): string {
  const own = (notes ?? '').trim();
  return `Network: eip155:${chainId}${own === '' ? '' : `\n${own}`}`;
}

/** The operator's own notes, without the network line. */
export function notesWithoutChainId(notes: string): string {
  return chainIdOfNotes(notes) === undefined ? notes : notes.split('\n').slice(1).join('\n');
}
