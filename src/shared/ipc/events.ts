/**
 * The one channel main pushes on (docs/architecture.md#events-from-main): something the window shows changed, so
 * the screens reading it read again. An event names what changed, never the new state itself: the screens still read
 * through the contract's channels, so there is one way data reaches them. Validated in main before it is sent and in
 * the renderer when it arrives, like the contract's inputs and outputs.
 */
import { z } from 'zod';
import { activityStatus } from '../api/enums';
import { pendingRequestsSchema } from './channels/requests';

/** The Electron channel name (webContents.send / ipcRenderer.on); not one of the contract's request channels. */
export const APP_EVENT_CHANNEL = 'quorumkey:event';

const id = z.string().min(1).max(128);

export const appEventSchema = z.discriminatedUnion('type', [
  /** An activity of the active profile's organization appeared, or its status or votes changed. */
  z.strictObject({
    type: z.literal('activity'),
    change: z.enum(['created', 'changed']),
    organizationId: id,
    activityId: id,
    status: activityStatus,
    /**
     * Whether it completed as a type that can change the organization's users, policies, wallets, keys or quorum
     * (main decides): only then are the reads of the organization stale. A signature, a rejection or a vote is not.
     */
    organizationChanged: z.boolean(),
  }),
  /**
   * An export this desktop asked for, which had to wait for votes, was approved (its bundle can be opened now), ended
   * without a bundle (rejected, failed, or its approvals expired), or was withdrawn by its requester.
   */
  z.strictObject({ type: z.literal('export'), change: z.enum(['approved', 'ended', 'withdrawn']), organizationId: id, activityId: id }),
  /** The Sandbox's process started, stopped, failed or is restarting. */
  z.strictObject({ type: z.literal('sandbox'), state: z.enum(['stopped', 'starting', 'running', 'failed']) }),
  /** A profile was added, edited or removed, or another one became active. */
  z.strictObject({ type: z.literal('profile'), change: z.enum(['added', 'edited', 'removed', 'active']) }),
  /** The app locked or unlocked, wherever that was decided (the person, idle time, screen lock, suspend). */
  z.strictObject({ type: z.literal('lock'), locked: z.boolean() }),
  /**
   * A request to the service began or ended. The one event that carries the state it reports, the requests main waits
   * on: the progress line shows them (and their Cancel) while a slow vote runs, and reading them instead would be one
   * IPC call per change. It is main's own bookkeeping, not data read from a service.
   */
  z.strictObject({ type: z.literal('requests'), pending: pendingRequestsSchema }),
  /**
   * A security key whose registration this desktop waited on was not attached (rejected, failed, expired, another
   * credential, its profile moved), or such a notice was dismissed.
   */
  z.strictObject({ type: z.literal('passkey') }),
  /** The inbox of some profile changed (an item appeared, got a vote or left, a service failed or answered again). */
  z.strictObject({ type: z.literal('inbox') }),
  /**
   * The person clicked a notification about this activity: main made its profile active, and the window shows the
   * activity's reading. The one event that asks the window to show something, because the click happened outside it.
   */
  z.strictObject({ type: z.literal('open-activity'), profileId: id, activityId: id }),
]);

export type AppEvent = z.infer<typeof appEventSchema>;
