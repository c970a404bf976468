/**
 * The service requests main is waiting on, so the screens can show what is pending and cancel it. Each request
 * gets its own AbortController; cancelling aborts the fetch, and the client answers CANCELLED. Every change is
 * reported with the whole list (`onChange`), which main pushes to the window: the progress line then shows what waits
 * without asking for it while a slow vote runs.
 */
import { randomUUID } from 'node:crypto';

export interface InFlightRequest {
  id: string;
  /** Where the request went: the service URL and operation path. */
  url: string;
  startedAtMs: number;
}

export interface InFlightTicket {
  id: string;
  signal: AbortSignal;
  /** Forgets the request; call it once the answer (or the failure) is in. */
  end(): void;
}

export class InFlightRequests {
  readonly #requests = new Map<string, { request: InFlightRequest; controller: AbortController }>();
  readonly #now: () => number;
  readonly #onChange: ((pending: InFlightRequest[]) => void) | undefined;

  constructor({ now = Date.now, onChange }: { now?: () => number; onChange?: (pending: InFlightRequest[]) => void } = {}) {
    this.#now = now;
    this.#onChange = onChange;
  }

  begin(url: string): InFlightTicket {
    const id = randomUUID();
    const controller = new AbortController();
    this.#requests.set(id, { request: { id, url, startedAtMs: this.#now() }, controller });
    this.#changed();
    return {
      id,
      signal: controller.signal,
      end: () => {
        // Already gone when it was cancelled: that change was reported then.
        if (this.#requests.delete(id)) this.#changed();
      },
    };
  }

  /** Oldest first. */
  list(): InFlightRequest[] {
    return [...this.#requests.values()].map(({ request }) => ({ ...request }));
  }

  /** Cancels the request with `id`, or every pending request when no id is given; answers how many were cancelled. */
  cancel(id?: string): number {
    const chosen = id === undefined ? [...this.#requests.values()] : [this.#requests.get(id)].filter((entry) => entry !== undefined);
    for (const { request, controller } of chosen) {
      this.#requests.delete(request.id);
      controller.abort();
    }
    if (chosen.length > 0) this.#changed();
    return chosen.length;
  }

  #changed(): void {
    this.#onChange?.(this.list());
  }
}
