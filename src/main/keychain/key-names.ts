import { QkError } from '../../shared/errors';

/** Key names are what people type and see; they stay short and unambiguous in file names, menus and logs. */
export const KEY_NAME_PATTERN = /^[A-Za-z0-9 ._-]{1,64}$/;

/**
 * Throws REQUEST_INVALID naming `field` unless `name` is 1-64 characters of letters, digits, space, `.`, `_`, `-`.
 * `label` is how the message refers to the field when it belongs to a larger object (e.g. `profile.apiKeyName`).
 */
export function assertKeyName(name: unknown, field: string, label = field): asserts name is string {
  if (typeof name !== 'string') {
    throw new QkError('REQUEST_INVALID', `${label} must be a string, got ${typeof name}`, { field });
  }
  if (!KEY_NAME_PATTERN.test(name)) {
    const reason =
      name.length === 0 || name.length > 64
        ? `has ${name.length} characters`
        : `contains ${JSON.stringify([...name].find((char) => !KEY_NAME_PATTERN.test(char)))}`;
    throw new QkError('REQUEST_INVALID', `${label} ${reason}; use 1-64 characters: letters, digits, space, '.', '_' or '-'`, { field });
  }
}
