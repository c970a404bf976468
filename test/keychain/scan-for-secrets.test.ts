import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanForSecrets } from '../support/scan-for-secrets';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qk-scan-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('scanForSecrets', () => {
  // 0xfb/0xfa bytes put '+' and '/' into standard base64, so it differs from base64url.
  const secret = Uint8Array.from({ length: 32 }, (_, index) => 0xfb ^ (index & 1));
  const secretHex = Buffer.from(secret).toString('hex');

  it('finds a secret in every encoding it checks, in nested files, without reporting the secret itself', async () => {
    await mkdir(join(dir, 'a', 'b'), { recursive: true });
    await writeFile(join(dir, 'a', 'b', 'hex.json'), `{"k":"${secretHex}"}`);
    await writeFile(join(dir, 'upper.txt'), secretHex.toUpperCase());
    await writeFile(join(dir, 'raw.bin'), Buffer.concat([Buffer.from([9, 9]), Buffer.from(secret)]));
    await writeFile(join(dir, 'b64.txt'), Buffer.from(secret).toString('base64'));
    await writeFile(join(dir, 'b64url.txt'), Buffer.from(secret).toString('base64url'));
    const findings = await scanForSecrets(dir, ['00'.repeat(16), secretHex]);
    expect(findings.map((finding) => [finding.file, finding.secretIndex, finding.encoding]).sort()).toEqual(
      [
        [join('a', 'b', 'hex.json'), 1, 'hex'],
        ['upper.txt', 1, 'HEX'],
        ['raw.bin', 1, 'raw'],
        ['b64.txt', 1, 'base64'],
        ['b64url.txt', 1, 'base64url'],
      ].sort(),
    );
    expect(JSON.stringify(findings)).not.toContain(secretHex);
  });

  it('reports a match of identical base64 and base64url forms once', async () => {
    const plain = Uint8Array.from({ length: 18 }, (_, index) => index + 1);
    await writeFile(join(dir, 'b64.txt'), Buffer.from(plain).toString('base64'));
    expect((await scanForSecrets(dir, [plain])).map((finding) => finding.encoding)).toEqual(['base64']);
  });

  it('reports nothing for clean files and refuses secrets too short to scan for', async () => {
    await writeFile(join(dir, 'public.json'), '{"publicKey":"02abcdef"}');
    expect(await scanForSecrets(dir, [secret])).toEqual([]);
    await expect(scanForSecrets(dir, ['abcd'])).rejects.toThrow('shorter than 16 bytes');
  });
});
