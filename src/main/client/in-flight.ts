/**
 * The service requests main is waiting on, so the screens can show what is pending and cancel it. Each request
 * gets its own AbortController; cancelling aborts the fetch, and the client answers CANCELLED.
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

  constructor({ now = Date.now }: { now?: () => number } = {}) {
    this.#now = now;
  }

  begin(url: string): InFlightTicket {
    const id = randomUUID();
    const controller = new AbortController();
    this.#requests.set(id, { request: { id, url, startedAtMs: this.#now() }, controller });
    return { id, signal: controller.signal, end: () => this.#requests.delete(id) };
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
    return chosen.length;
  }
}
