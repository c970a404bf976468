/**
 * The docs the code cites are in the repository: every relative link in the README and docs/, and every docs/ path
 * (with its #anchor) cited in a comment under src/ or test/, resolves; nothing cites a note that a clone of the
 * repository does not contain.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trimTrailing } from '../../src/shared/text';

const ROOT = resolve(import.meta.dirname, '../..');
const THIS_FILE = relative(ROOT, import.meta.filename);

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path, keep));
    else if (keep(path)) found.push(path);
  }
  return found;
}

const markdownFiles = ['README.md', ...filesUnder('docs', (path) => path.endsWith('.md'))];
const sourceFiles = [...filesUnder('src', isSource), ...filesUnder('test', isSource), 'eslint.config.js'].filter((path) => path !== THIS_FILE);

function isSource(path: string): boolean {
  return /\.(?:ts|tsx|js|mjs|cjs|sh)$/.test(path) && !path.includes('/fixtures/');
}

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s(.*)$/.exec(line);
    // The optional closing run of '#' is not part of the title.
    const title = heading === null ? '' : trimTrailing(heading[1]!.trim(), '#').trim();
    if (title === '') continue;
    const base = title
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function anchorsOf(path: string): Set<string> {
  return headingAnchors(readFileSync(join(ROOT, path), 'utf8'));
}

function exists(path: string): boolean {
  try {
    statSync(join(ROOT, path));
    return true;
  } catch {
    return false;
  }
}

/** Why `target` (relative to `from`'s folder, or the repository root for citations) does not resolve, if it does not. */
function brokenTarget(from: string, target: string): string | undefined {
  const [pathPart = '', anchor] = target.split('#', 2);
  const file = pathPart === '' ? from : relative(ROOT, resolve(ROOT, dirname(from), pathPart));
  if (file.startsWith('..')) return `${target} points outside the repository`;
  if (!exists(file)) return `${target}: no file ${file}`;
  if (anchor !== undefined && anchor !== '') {
    if (!file.endsWith('.md')) return `${target}: anchors are checked only in Markdown files`;
    if (!anchorsOf(file).has(anchor)) return `${target}: ${file} has no heading #${anchor}`;
  }
  return undefined;
}

/** Markdown links and images outside code spans and fences: `[text](target)`. */
function markdownLinks(markdown: string): string[] {
  const targets: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) targets.push(match[1]!);
  }
  return targets;
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

describe('docs links', () => {
  it('finds the docs it checks', () => {
    expect(markdownFiles).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/service.md', 'docs/formats.md']));
  });

  it.each(markdownFiles)('every relative link in %s resolves', (file) => {
    const broken = markdownLinks(readFileSync(join(ROOT, file), 'utf8'))
      .filter((target) => !EXTERNAL.test(target))
      .map((target) => brokenTarget(file, target))
      .filter((reason) => reason !== undefined);
    expect(broken).toEqual([]);
  });

  it('every docs/ citation in src/ and test/ names an existing file and heading', () => {
    const broken: string[] = [];
    let citations = 0;
    for (const file of sourceFiles) {
      for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(/(?<![\w/.-])docs\/[\w./-]*\w(?:#[\w-]+)?/g)) {
        citations++;
        const reason = brokenTarget('.', match[0]);
        if (reason !== undefined) broken.push(`${file}: ${reason}`);
      }
    }
    expect(broken).toEqual([]);
    expect(citations).toBeGreaterThan(50);
  });

  it('nothing cites a note that is not in the repository', () => {
    // Design notes, API notes and format notes that lived beside the repository, never in it.
    const outside =
      /\bdesign\.md\b|\bapi-notes\b|\bcrypto-formats\b|\bservice-interface-spec\b|\bDEVELOPERS\.md\b|\.\.\/shared\/(?:design|reference)/;
    const offenders = [...sourceFiles, ...markdownFiles].flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => outside.test(line))
        .map(({ line, index }) => `${file}:${index + 1}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});

describe('headingAnchors', () => {
  it('slugs headings the way GitHub does', () => {
    const anchors = headingAnchors(
      '# Fingerprint, idempotency and votes\n## `canApprove` and canReject\n```\n# not a heading\n```\n## Errors\n## Errors\n',
    );
    expect([...anchors]).toEqual(['fingerprint-idempotency-and-votes', 'canapprove-and-canreject', 'errors', 'errors-1']);
  });
});
