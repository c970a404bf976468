import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { passkeyPageHtml, runPasskeyPage, type OpenPasskeyPage, type PasskeyPage } from '../../src/main/passkeys/passkey-page';
import { readAssertion } from '../../src/main/passkeys/passkey-ceremonies';
import { rejection } from '../support/assertions';

const PAGE: PasskeyPage = {
  heading: 'Vote with security key "yk"',
  reading: ['Approving "Send 1 ETH to <b>Bob</b>"'],
  bodyFingerprint: 'sha256:0123',
  ceremony: { kind: 'get', challenge: new Uint8Array([1, 2, 3]), credentialId: 'AAAAAAAAAAAAAAAAAAAAAA' },
};

interface Reply {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One request to the page's server at 127.0.0.1, naming `host` as a browser at `url` would (or another host). */
function send(url: string, options: { method?: string; body?: string; contentType?: string; host?: string; path?: string } = {}): Promise<Reply> {
  const target = new URL(url);
  return new Promise((done, fail) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: target.port,
        path: options.path ?? target.pathname,
        method: options.method ?? 'GET',
        agent: false,
        headers: { host: options.host ?? target.host, ...(options.contentType === undefined ? {} : { 'content-type': options.contentType }) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: response.headers }));
      },
    );
    request.on('error', fail);
    request.end(options.body);
  });
}

const ASSERTION = {
  outcome: 'assertion',
  credentialId: 'AAAAAAAAAAAAAAAAAAAAAA',
  authenticatorData: Buffer.alloc(37, 1).toString('base64url'),
  clientDataJson: Buffer.from('{}').toString('base64url'),
  signature: Buffer.from([0x30, 0x00]).toString('base64url'),
};

/** Opens the page the way a test browser would, then does what `act` says with its URL; `acted` awaits that. */
function opener(
  act: (url: string) => Promise<void>,
  closed: Promise<void> = new Promise(() => undefined),
): { open: OpenPasskeyPage; closes: () => number; acted: () => Promise<void> } {
  let closes = 0;
  let acting: Promise<void> = Promise.resolve();
  return {
    open: async (url) => {
      acting = act(url);
      return { close: () => void closes++, closed };
    },
    closes: () => closes,
    acted: () => acting,
  };
}

describe("main's passkey page server", () => {
  it('serves the page once, at localhost, under a policy naming its one script, and takes one answer', async () => {
    const seen: Reply[] = [];
    let pageUrl = '';
    const { open, closes, acted } = opener(async (url) => {
      pageUrl = url;
      seen.push(await send(url));
      seen.push(await send(url));
      seen.push(await send(url, { method: 'POST', body: JSON.stringify(ASSERTION), contentType: 'application/json' }));
    });
    const answer = await runPasskeyPage({ page: PAGE, openPage: open, readAnswer: readAssertion });
    await acted();
    expect(answer.credentialId).toBe(ASSERTION.credentialId);
    expect(pageUrl).toMatch(/^http:\/\/localhost:\d+\/passkey\/[A-Za-z0-9_-]{43}$/);
    const [page, again, posted] = seen;
    expect(page?.status).toBe(200);
    expect(page?.headers['content-security-policy']).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'; .*connect-src 'self'/);
    expect(page?.text).toContain('Send 1 ETH to &#60;b&#62;Bob&#60;/b&#62;');
    expect(page?.text).toContain('sha256:0123');
    expect(again?.status).toBe(410);
    expect(posted?.status).toBe(200);
    expect(closes()).toBe(1);
    // The ceremony is over: the server is gone.
    await expect(send(pageUrl)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('answers 404 to another path or another host name, and still waits for its own page', async () => {
    const seen: Reply[] = [];
    const { open, acted } = opener(async (url) => {
      seen.push(await send(url, { path: '/passkey/guessed' }));
      seen.push(await send(url, { host: 'rebound.example:80' }));
      await send(url, { method: 'POST', body: JSON.stringify(ASSERTION), contentType: 'application/json' });
    });
    await runPasskeyPage({ page: PAGE, openPage: open, readAnswer: readAssertion });
    await acted();
    expect(seen.map((reply) => reply.status)).toEqual([404, 404]);
  });

  it('refuses a posted body that is not an answer, saying what is wrong, and ends the ceremony', async () => {
    const replies: Reply[] = [];
    const { open, acted } = opener(async (url) => {
      replies.push(await send(url, { method: 'POST', body: '{not json', contentType: 'application/json' }));
    });
    const error = await rejection(runPasskeyPage({ page: PAGE, openPage: open, readAnswer: readAssertion }));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.message).toMatch(/not JSON; nothing was signed/);
    await acted();
    expect(replies[0]?.status).toBe(400);
  });

  it('refuses an answer with a member missing, naming it', async () => {
    const { open } = opener(async (url) => {
      await send(url, { method: 'POST', body: JSON.stringify({ ...ASSERTION, signature: '' }), contentType: 'application/json' });
    });
    const error = await rejection(runPasskeyPage({ page: PAGE, openPage: open, readAnswer: readAssertion }));
    expect(error.code).toBe('STAMP_MALFORMED');
    expect(error.message).toMatch(/"signature"/);
  });

  it('refuses a post that is not JSON by its type', async () => {
    const { open } = opener(async (url) => {
      await send(url, { method: 'POST', body: JSON.stringify(ASSERTION), contentType: 'text/plain' });
    });
    expect((await rejection(runPasskeyPage({ page: PAGE, openPage: open, readAnswer: readAssertion }))).code).toBe('REQUEST_INVALID');
  });

  it('is PASSKEY_CANCELLED when the page says the authenticator refused, with its reason', async () => {
    const { open } = opener(async (url) => {
      await send(url, {
        method: 'POST',
        body: JSON.stringify({ outcome: 'cancelled', reason: 'NotAllowedError: timed out' }),
        contentType: 'application/json',
      });
    });
    const error = await rejection(runPasskeyPage({ page: PAGE, openPage: open, readAnswer: readAssertion }));
    expect(error.code).toBe('PASSKEY_CANCELLED');
    expect(error.message).toMatch(/NotAllowedError: timed out/);
  });

  it('is PASSKEY_CANCELLED when nothing answers in time, and closes the page', async () => {
    const { open, closes } = opener(async () => undefined);
    const error = await rejection(runPasskeyPage({ page: PAGE, openPage: open, readAnswer: readAssertion, timeoutMs: 20 }));
    expect(error.code).toBe('PASSKEY_CANCELLED');
    expect(error.message).toMatch(/no security key answered/);
    expect(closes()).toBe(1);
  });

  it('is PASSKEY_CANCELLED when the person closes the page', async () => {
    const { open } = opener(async () => undefined, Promise.resolve());
    const error = await rejection(runPasskeyPage({ page: PAGE, openPage: open, readAnswer: readAssertion }));
    expect(error.code).toBe('PASSKEY_CANCELLED');
    expect(error.message).toMatch(/window was closed/);
  });

  it('keeps the ceremony data out of reach of markup: no "<" survives inside its JSON', () => {
    const html = passkeyPageHtml({
      ...PAGE,
      ceremony: { kind: 'create', challenge: new Uint8Array([9]), user: { handle: new Uint8Array([1]), name: '</script><script>alert(1)</script>' } },
    });
    expect(html).not.toContain('</script><script>alert(1)');
    expect(html).toContain('\\u003c/script>');
  });
});
