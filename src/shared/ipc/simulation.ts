/**
 * IPC schema of a signing request's simulation: what main's EVM says the transaction would do at the node's latest
 * block, worded by main, line by line. The card lays the lines out and main's confirmation restates them.
 */
import { z } from 'zod';

const text = z.string().max(2000);

/** One line of what the transaction would do; `kind` says how the card marks it. */
export const simulationLine = z.strictObject({
  kind: z.enum(['balance', 'approval', 'revert', 'refused']),
  text,
});
export type SimulationLine = z.infer<typeof simulationLine>;

export const simulationView = z.discriminatedUnion('status', [
  z.strictObject({
    status: z.literal('simulated'),
    /** The block whose state the transaction ran on, as the node gave it: its number (digits grouped) and hash. */
    block: z.strictObject({ number: z.string().max(40), hash: z.string().max(80) }),
    /** The node the state was read from (its origin, as set in Settings); absent when a state bundle gave it. */
    node: text.optional(),
    /**
     * The state bundle the state came from, every value checked against the block's state root: who says they made
     * it (a claim), when, and whether it was made for this very transaction.
     */
    stateBundle: z.strictObject({ madeBy: text, madeAt: text, forThisTransaction: z.boolean() }).optional(),
    lines: z.array(simulationLine).max(500),
  }),
  /** "no node set for Ethereum (eip155:1) in Settings", or why the node or the EVM could not answer. */
  z.strictObject({ status: z.literal('not-simulated'), reason: text }),
]);
export type SimulationView = z.infer<typeof simulationView>;
