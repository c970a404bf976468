/** The `simulation.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { simulationView } from '../simulation';
import { signingRequestInput } from '../signing';
import { channel, id } from '../schemas';

export const simulationChannels = {
  /**
   * What a signing activity's transaction would do, run by main's EVM on the state of the latest block of the node
   * Settings names for its chain: balance changes, allowances granted, a revert and its reason. Not simulated (and
   * why) without a node, for a request that signs no Ethereum transaction, or when the node fails.
   */
  forActivity: channel(z.strictObject({ activityId: id }), simulationView),
  /**
   * Saves a state bundle for a signing activity's transaction (simulated anew on the node's latest block, every
   * account and slot it read with the node's proof) to a file the operator picks in main's save dialog; the page names
   * no path. `saved: false` when the dialog is closed without one.
   */
  saveStateBundle: channel(
    z.strictObject({ activityId: id }),
    z.discriminatedUnion('saved', [
      z.strictObject({ saved: z.literal(true), file: z.string().max(4096), block: z.string().max(40) }),
      z.strictObject({ saved: z.literal(false) }),
    ]),
  ),
  /**
   * Simulates a signing activity's transaction without a node, over the state bundle file the operator picks in
   * main's open dialog, every value checked against its block's state root first; null when the dialog is closed.
   */
  fromStateBundle: channel(z.strictObject({ activityId: id }), simulationView.nullable()),
  /** simulation.forActivity's reading for a request not yet submitted: the Sign screen's preview shows it under the card. */
  forRequest: channel(z.strictObject({ request: signingRequestInput }), simulationView),
} as const;
