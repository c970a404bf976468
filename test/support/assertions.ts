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

/** The code of the QkError that `action` throws, or undefined when it returns; anything else thrown fails the test. */
export function thrownCode(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(QkError);
    return (error as QkError).code;
  }
  return undefined;
}

/** The code of the QkError `promise` rejects with, or undefined when it resolves; any other rejection fails the test. */
export async function rejectionCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(QkError);
    return (error as QkError).code;
  }
  return undefined;
}

/** The QkError `action` throws; returning or throwing anything else fails the test. */
export function thrown(action: () => unknown): QkError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(QkError);
    return error as QkError;
  }
  return expect.fail('expected a QkError to be thrown');
}

/** `action` throws a QkError with `code`, a message matching `message`, and `details` when given. */
export function expectQkError(action: () => unknown, code: string, message: RegExp, details?: Record<string, unknown>): void {
  const error = thrown(action);
  expect(error.code).toBe(code);
  expect(error.message).toMatch(message);
  if (details !== undefined) expect(error.details).toMatchObject(details);
}

/** The item at `position`, failing the test at once (rather than carrying on with undefined) when the list is shorter. */
export function itemAt<T>(items: readonly T[], position: number): T {
  const item = items[position];
  if (item === undefined) throw new Error(`expected an item at position ${position}, but the list has ${items.length}`);
  return item;
}
