/**
 * Searches every file under a directory for secrets in the encodings they are likely to leak in: lowercase and
 * uppercase hex, raw bytes, standard and URL-safe base64. Tests call it after a full run to prove that no private key
 * reached disk: `expect(await scanForSecrets(dataDir, secrets)).toEqual([])`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export interface SecretFinding {
  /** Path relative to the scanned directory. */
  file: string;
  /** Index of the secret in the list passed in (never the secret itself, so a failing test does not print it). */
  secretIndex: number;
  encoding: 'hex' | 'HEX' | 'raw' | 'base64' | 'base64url';
}

/** `secrets` are byte arrays or hex strings. Files are read whole; symlinks are not followed. */
export async function scanForSecrets(root: string, secrets: Iterable<Uint8Array | string>): Promise<SecretFinding[]> {
  const needles = [...secrets].map((secret, secretIndex) => {
    const bytes = typeof secret === 'string' ? Buffer.from(secret, 'hex') : Buffer.from(secret);
    if (bytes.length < 16) throw new Error(`secret #${secretIndex} is shorter than 16 bytes: too short to scan for reliably`);
    const hex = bytes.toString('hex');
    const forms: [SecretFinding['encoding'], Buffer][] = [
      ['hex', Buffer.from(hex)],
      ['HEX', Buffer.from(hex.toUpperCase())],
      ['raw', bytes],
      ['base64', Buffer.from(bytes.toString('base64').replace(/={1,2}$/, ''))],
      ['base64url', Buffer.from(bytes.toString('base64url'))],
    ];
    // Without '+' or '/' the two base64 alphabets agree; report such a match once.
    return { secretIndex, forms: forms.filter(([, form], index) => forms.findIndex(([, other]) => other.equals(form)) === index) };
  });
  const findings: SecretFinding[] = [];
  for (const file of await listFiles(root)) {
    const content = await readFile(file);
    for (const { secretIndex, forms } of needles) {
      for (const [encoding, form] of forms) {
        if (content.includes(form)) findings.push({ file: relative(root, file), secretIndex, encoding });
      }
    }
  }
  return findings;
}

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return listFiles(path);
      return entry.isFile() ? [path] : [];
    }),
  );
  return nested.flat();
}
