/**
 * One folder per channel namespace (docs/architecture.md#one-folder-per-namespace): the handler of `ns.name` is in
 * `src/main/<ns>/<ns>.ipc.ts` (a camelCase namespace in kebab case: `privateKeys` → `private-keys`), so a channel's name
 * says where its handler is, and every `*.ipc.ts` handles its own namespace only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ipcContract } from '../../src/shared/ipc/contract';

const ROOT = join(import.meta.dirname, '../..');

function handlerFileOf(channel: string): string {
  const folder = channel.split('.')[0]!.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return `src/main/${folder}/${folder}.ipc.ts`;
}

/** The channels each file handles: the quoted `ns.name` keys of the handler objects it returns. */
function handledChannels(text: string): string[] {
  return [...text.matchAll(/^ +'([a-zA-Z][a-zA-Z0-9]*\.[a-zA-Z][a-zA-Z0-9]*)': /gm)].map((match) => match[1]!);
}

/** What breaks the rule, in words: a channel handled elsewhere, twice, or nowhere; an ipc file named for no namespace. */
function namespaceProblems(files: ReadonlyMap<string, string>, channels: readonly string[]): string[] {
  const problems: string[] = [];
  const handledIn = new Map<string, string[]>();
  for (const [file, text] of files) {
    for (const channel of handledChannels(text)) handledIn.set(channel, [...(handledIn.get(channel) ?? []), file]);
  }
  for (const channel of channels) {
    const where = handledIn.get(channel) ?? [];
    if (where.length === 0) problems.push(`${channel} is handled in no *.ipc.ts file`);
    for (const file of where) if (file !== handlerFileOf(channel)) problems.push(`${channel} is handled in ${file}, not ${handlerFileOf(channel)}`);
    if (where.length > 1) problems.push(`${channel} is handled ${where.length} times`);
  }
  const namespaces = new Set(channels.map(handlerFileOf));
  for (const file of files.keys()) if (!namespaces.has(file)) problems.push(`${file} is named for no channel namespace`);
  return problems;
}

function ipcFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ipc.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(ROOT, path), readFileSync(path, 'utf8'));
  }
  return files;
}

describe('one folder per channel namespace', () => {
  it("every channel is handled once, in its namespace's folder", () => {
    expect(namespaceProblems(ipcFiles(join(ROOT, 'src/main')), Object.keys(ipcContract))).toEqual([]);
  });

  it('names a channel handled in another folder, twice or nowhere, and a stray ipc file', () => {
    const files = new Map([
      ['src/main/signing/signing.ipc.ts', "  return {\n    'signing.preview': async () => 1,\n    'contracts.list': async () => [],\n  };"],
      ['src/main/private-keys/private-keys.ipc.ts', "    'privateKeys.list': async () => [],\n    'signing.preview': async () => 1,"],
      ['src/main/capture/capture.ipc.ts', ''],
    ]);
    expect(namespaceProblems(files, ['signing.preview', 'contracts.list', 'privateKeys.list', 'privateKeys.create'])).toEqual([
      'signing.preview is handled in src/main/private-keys/private-keys.ipc.ts, not src/main/signing/signing.ipc.ts',
      'signing.preview is handled 2 times',
      'contracts.list is handled in src/main/signing/signing.ipc.ts, not src/main/contracts/contracts.ipc.ts',
      'privateKeys.create is handled in no *.ipc.ts file',
      'src/main/capture/capture.ipc.ts is named for no channel namespace',
    ]);
  });
});
