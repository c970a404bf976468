import { TurnkeyRequestError } from '@turnkey/http';
import { expect } from 'vitest';

/** Awaits a call of Turnkey's client that must be refused, and returns the client's error for further checks. */
export async function clientRefusal(call: Promise<unknown>): Promise<TurnkeyRequestError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TurnkeyRequestError);
  return error as TurnkeyRequestError;
}
