/**
 * How much of Turnkey's `@turnkey/http` client the service answers: every request method of `TurnkeyClient` is
 * called once (stamped, with an empty body) and counts as answered unless the service replies 404
 * OPERATION_NOT_FOUND, i.e. it has no route for the path. The count may grow, never drop below the recorded floor.
 */
import { TurnkeyClient, TurnkeyRequestError } from '@turnkey/http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';

/** The answered methods when last counted; raise it as operations are added. */
const ANSWERED_FLOOR = 142;

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

/**
 * The request methods: each comes with a `stamp<Method>` helper that only builds the signed request (so `stampLogin`,
 * whose helper is `stampStampLogin`, is a request method).
 */
function requestMethods(client: TurnkeyClient): string[] {
  const members = client as unknown as Record<string, unknown>;
  const isFunction = (name: string) => typeof members[name] === 'function';
  return Object.keys(client).filter((name) => isFunction(name) && isFunction(`stamp${name[0]!.toUpperCase()}${name.slice(1)}`));
}

async function isAnswered(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (error) {
    if (!(error instanceof TurnkeyRequestError)) throw error;
    const turnkeyErrorCode = (error.details?.[0] as { turnkeyErrorCode?: unknown } | undefined)?.turnkeyErrorCode;
    return turnkeyErrorCode !== 'OPERATION_NOT_FOUND';
  }
}

it(`answers at least ${ANSWERED_FLOOR} of the TurnkeyClient request methods`, async () => {
  const client = service.client();
  const methods = requestMethods(client);
  // The client's method count as released; a different count means another release, whose floor must be re-set.
  expect(methods.length).toBe(194);
  const answered: string[] = [];
  for (const name of methods) {
    const method = (client as unknown as Record<string, (input: unknown) => Promise<unknown>>)[name]!;
    if (await isAnswered(() => method({}))) answered.push(name);
  }
  expect(answered.length, `answered: ${answered.join(', ')}`).toBeGreaterThanOrEqual(ANSWERED_FLOOR);
});
