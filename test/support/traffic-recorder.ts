/**
 * What crosses main's two edges, for the e2e host: every IPC call the page makes and every request main sends to a
 * service, each request tied to the IPC call it was made for (through AsyncLocalStorage, so work an IPC call sets off
 * inside main, such as the inbox looking again after a vote, counts toward that call). Requests made outside any
 * call (the pollers' own ticks, a test's setup through the handlers) have no cause. Measures what one action costs:
 * take a `mark()` before it, read `since(mark)` once `quiet()` is true.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RecordedCall {
  /** Its place among every call recorded; later calls have higher ones. */
  readonly index: number;
  readonly channel: string;
  readonly input: unknown;
}

export interface RecordedRequest {
  /** The operation, the last segment of its path (`approve_activity`, `list_activities`). */
  readonly operation: string;
  /** The JSON body as sent: the same body twice is the same question asked twice. */
  readonly body: string;
  /** The IPC call this request was made for; undefined when none was running (a poller's tick, a test's setup). */
  readonly cause: RecordedCall | undefined;
}

/** What one action cost: the calls and requests since its mark, and each question asked more than once. */
export interface TrafficCost {
  readonly calls: RecordedCall[];
  readonly requests: RecordedRequest[];
  /** `operation body` of each request whose operation and body an earlier one of the same action had already asked. */
  readonly repeated: string[];
  /** The calls and requests in order, in one line, to print or to explain a failed check. */
  readonly summary: string;
}

/** Where a measurement starts: the counts of calls and requests recorded before it. */
export interface TrafficMark {
  readonly calls: number;
  readonly requests: number;
}

export class TrafficRecorder {
  readonly calls: RecordedCall[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly #cause = new AsyncLocalStorage<RecordedCall>();
  #running = 0;
  #quietWaiters: (() => void)[] = [];

  /** Records each request and passes it on to the global fetch. */
  readonly fetch: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const body = typeof init?.body === 'string' ? init.body : '';
    this.requests.push({ operation: new URL(url).pathname.split('/').at(-1) ?? url, body, cause: this.#cause.getStore() });
    this.#running += 1;
    try {
      return await fetch(input, init);
    } finally {
      this.#finished();
    }
  };

  /** Records an IPC call and runs it (and whatever it sets off) as that call's cause. */
  async call<T>(channel: string, input: unknown, serve: () => Promise<T>): Promise<T> {
    const call = { index: this.calls.length, channel, input };
    this.calls.push(call);
    this.#running += 1;
    try {
      return await this.#cause.run(call, serve);
    } finally {
      this.#finished();
    }
  }

  /** Counts an event on its way to the page as work in flight: the page's reaction to it may be further calls. */
  async delivering(delivery: Promise<unknown>): Promise<void> {
    this.#running += 1;
    try {
      await delivery;
    } finally {
      this.#finished();
    }
  }

  #finished(): void {
    this.#running -= 1;
    if (this.#running > 0) return;
    for (const waiter of this.#quietWaiters.splice(0)) waiter();
  }

  mark(): TrafficMark {
    return { calls: this.calls.length, requests: this.requests.length };
  }

  /**
   * The IPC calls made since `mark`, and the requests made for them (requests of earlier calls still running, and of
   * no call, are left out).
   */
  since(mark: TrafficMark): { calls: RecordedCall[]; requests: RecordedRequest[] } {
    const calls = this.calls.slice(mark.calls);
    const requests = this.requests.slice(mark.requests).filter(({ cause }) => cause !== undefined && cause.index >= mark.calls);
    return { calls, requests };
  }

  /** The calls since `mark`, the requests made for them, and the questions among those asked twice. */
  cost(mark: TrafficMark): TrafficCost {
    const { calls, requests } = this.since(mark);
    const questions = requests.map(({ operation, body }) => `${operation} ${body}`);
    const repeated = questions.filter((question, index) => questions.indexOf(question) !== index);
    const summary =
      `${calls.length} IPC calls (${tally(calls.map(({ channel }) => channel))}); ` +
      `${requests.length} service requests (${tally(requests.map(({ operation, cause }) => `${operation} for ${cause?.channel}`))})`;
    return { calls, requests, repeated, summary };
  }

  /** True when no IPC call, service request or event delivery is in flight. */
  quiet(): boolean {
    return this.#running === 0;
  }

  /** Resolves once nothing is in flight (at once if nothing is). */
  whenQuiet(): Promise<void> {
    if (this.quiet()) return Promise.resolve();
    return new Promise((quiet) => this.#quietWaiters.push(quiet));
  }
}

/** "a ×3, b" for [a, b, a, a]: each name once, in the order first seen, with how often it came. */
function tally(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(', ');
}
