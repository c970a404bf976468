import { QkError } from '../../shared/errors';

/**
 * The service's one rule for deleting key material: a wallet or private key that was never exported is deleted
 * only when the request says `deleteWithoutExport: true`, since no copy of its secret exists anywhere else.
 */
export function refuseUnexportedDeletion(
  unexported: readonly string[],
  deleteWithoutExport: boolean,
  what: (names: string) => string,
  details: Record<string, unknown>,
): void {
  if (deleteWithoutExport || unexported.length === 0) return;
  throw new QkError(
    'NOT_EXPORTED',
    `${what(unexported.join(', '))}, and deleting loses key material nobody holds a copy of. Export first, or set deleteWithoutExport: true`,
    { ...details, unexported },
  );
}
