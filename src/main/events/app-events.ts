/**
 * Main's side of the event channel (src/shared/ipc/events.ts): the services report what changed here, and whoever
 * shows a window (Electron's webContents.send in the app, the e2e host's page) subscribes.
 */
import { QkError } from '../../shared/errors';
import { describeIssues } from '../../shared/ipc/contract';
import { appEventSchema, type AppEvent } from '../../shared/ipc/events';

export type AppEventListener = (event: AppEvent) => void;

export class AppEvents {
  readonly #listeners = new Set<AppEventListener>();

  /** Calls `listener` with every event from now on; answers the function that stops it. */
  subscribe(listener: AppEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Checks `event` against the contract (one outside it is a bug in main, refused here rather than at the window) and
   * hands it to every listener; a listener that throws is logged and does not stop the others.
   */
  emit(event: AppEvent): void {
    const parsed = appEventSchema.safeParse(event);
    if (!parsed.success) {
      throw new QkError('INTERNAL', `main emitted an event outside the contract (${describeIssues(parsed.error)}); this is a bug`);
    }
    for (const listener of this.#listeners) {
      try {
        listener(parsed.data);
      } catch (error) {
        console.error('an event listener failed', error);
      }
    }
  }
}
