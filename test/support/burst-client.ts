/**
 * A client in its own process that sends `count` POSTs of `bytes` each to `url`, `concurrency` at a time, and prints
 * one JSON line: every answer as "STATUS message". Load from outside the process under test, as the SDKs would send.
 * Usage: node --import tsx test/support/burst-client.ts URL BYTES COUNT CONCURRENCY
 */
import { request } from 'node:http';

const [url, bytes, count, concurrency] = process.argv.slice(2);
if (url === undefined || bytes === undefined || count === undefined || concurrency === undefined) {
  console.error('usage: burst-client.ts URL BYTES COUNT CONCURRENCY');
  process.exit(2);
}
const prefix = '{"filler":"';
const body = Buffer.from(`${prefix}${'x'.repeat(Number(bytes) - prefix.length - 2)}"}`);

function post(): Promise<string> {
  return new Promise((resolve, reject) => {
    const sent = request(url!, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve(`${response.statusCode} ${(JSON.parse(text) as { message?: string }).message ?? text}`);
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const answers: string[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (next < Number(count)) {
      next += 1;
      answers.push(await post());
    }
  }),
);
process.stdout.write(`${JSON.stringify(answers)}\n`);
