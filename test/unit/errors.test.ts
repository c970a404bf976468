import { describe, expect, it } from 'vitest';
import { QkError, errorCodes, isErrorCode, toQkError } from '../../src/shared/errors';

describe('QkError', () => {
  it('round-trips through plain data', () => {
    const error = new QkError('BUNDLE_SIGNATURE_INVALID', 'signature does not verify', { field: 'dataSignature' });
    const copy = QkError.fromData(JSON.parse(JSON.stringify(error.toData())));
    expect(copy).toBeInstanceOf(QkError);
    expect(copy.toData()).toEqual(error.toData());
    expect(copy.grpcCode).toBe(3);
  });

  it('maps every code to a gRPC status', () => {
    for (const [code, grpc] of Object.entries(errorCodes)) {
      expect(isErrorCode(code)).toBe(true);
      expect([3, 5, 6, 7, 8, 9, 10, 13, 14, 16]).toContain(grpc);
    }
    expect(isErrorCode('NOPE')).toBe(false);
  });

  it('wraps unexpected throws as INTERNAL and keeps QkErrors as they are', () => {
    expect(toQkError(new TypeError('boom')).code).toBe('INTERNAL');
    const known = new QkError('KEY_INVALID', 'bad key');
    expect(toQkError(known)).toBe(known);
  });
});
