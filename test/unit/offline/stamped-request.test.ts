import { describe, expect, it } from 'vitest';
import { checkStampableRequest, parseStampedRequest, stampedRequestText } from '../../../src/shared/offline/stamped-request';

const request = {
  path: '/public/v1/submit/approve_activity',
  body: '{"type":"ACTIVITY_TYPE_APPROVE_ACTIVITY"}',
  stamp: { headerName: 'X-Stamp' as const, headerValue: 'e30' },
};

describe('the offline stamped-request file', () => {
  it('writes version 1 and reads back exactly what was written, the body byte for byte', () => {
    const text = stampedRequestText(request);
    expect(JSON.parse(text)).toEqual({ version: 1, ...request });
    expect(parseStampedRequest(text, 'vote.json')).toEqual({ version: 1, ...request });
  });

  it.each([
    ['not JSON', 'nope', /vote\.json is not JSON/],
    ['no version', JSON.stringify(request), /version/],
    ['a later version', JSON.stringify({ version: 2, ...request }), /version/],
    ['an extra field', JSON.stringify({ version: 1, ...request, secret: 'x' }), /secret/],
    [
      'another stamp header',
      JSON.stringify({ version: 1, ...request, stamp: { headerName: 'X-Stamp-Webauthn', headerValue: 'e30' } }),
      /stamp\.headerName/,
    ],
    ['a body that is not a JSON object', JSON.stringify({ version: 1, ...request, body: '[1]' }), /body/],
  ])('refuses %s with FILE_ERROR naming the file and the field', (_, text, field) => {
    let thrown: unknown;
    try {
      parseStampedRequest(text, 'vote.json');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'FILE_ERROR', message: expect.stringMatching(field) });
    expect((thrown as Error).message).toContain('vote.json');
  });

  it('refuses to stamp a path or body the file could not hold, naming the field', () => {
    expect(() => checkStampableRequest({ path: 'approve_activity', body: '{}' })).toThrow(
      expect.objectContaining({ code: 'REQUEST_INVALID', details: { field: 'path' } }),
    );
    expect(() => checkStampableRequest({ path: request.path, body: '"text"' })).toThrow(
      expect.objectContaining({ code: 'REQUEST_INVALID', details: { field: 'body' } }),
    );
    expect(() => checkStampableRequest({ path: request.path, body: request.body })).not.toThrow();
  });
});
