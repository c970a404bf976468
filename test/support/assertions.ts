import { expect } from 'vitest';
import { QkError } from '../../src/shared/errors';

/** Awaits a promise that must reject with a QkError, and returns that error for further checks. */
export async function rejection(promise: Promise<unknown>): Promise<QkError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(QkError);
  return error as QkError;
}
