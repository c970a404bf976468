/**
 * scripts/run-side-by-side.ts, which `npm run check`, `npm run lint` and `npm test` run their phases with: any script
 * that fails fails the run, and each script's output is printed whole, under its name, however the scripts' writes
 * interleave in time. The runner reads the package.json beside its folder, so it runs here from a copy in a temporary
 * package whose scripts are small Node programs.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const RUNNER = join(import.meta.dirname, '../../scripts/run-side-by-side.ts');

/** A script that prints each line in turn, `pauseMs` apart, then exits with `exitCode`. */
function printer(lines: string[], pauseMs: number, exitCode = 0): string {
  const program = `const lines = ${JSON.stringify(lines)}; const next = () => { const line = lines.shift(); if (line === undefined) process.exit(${exitCode}); console.log(line); setTimeout(next, ${pauseMs}); }; next();`;
  return `node -e '${program}'`;
}

const root = mkdtempSync(join(tmpdir(), 'qk-side-by-side-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, 'scripts'));
copyFileSync(RUNNER, join(root, 'scripts/run-side-by-side.ts'));
writeFileSync(
  join(root, 'package.json'),
  JSON.stringify({
    name: 'side-by-side-fixture',
    private: true,
    type: 'module',
    scripts: {
      // Their writes alternate in time: the slow one's second line comes after the quick one has finished.
      slow: printer(['slow 1', 'slow 2'], 1500),
      quick: printer(['quick 1', 'quick 2'], 100),
      broken: printer(['about to fail'], 0, 3),
    },
  }),
);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runSideBySide(...names: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/run-side-by-side.ts', ...names], { cwd: root }, (error, stdout, stderr) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** The output's lines without the closing "passed after N s" one's time, which depends on the machine. */
function withoutTimes(stdout: string): string[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/ after \d+ s$/, ''));
}

describe('run-side-by-side', () => {
  it("prints each script's output whole, under its name, in the order the scripts end", async () => {
    const run = await runSideBySide('slow', 'quick');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(withoutTimes(run.stdout)).toEqual([
      '[quick] quick 1',
      '[quick] quick 2',
      '[quick] passed',
      '[slow] slow 1',
      '[slow] slow 2',
      '[slow] passed',
    ]);
  });

  it('fails when any script fails, after the others have run to their end, and names it', async () => {
    const run = await runSideBySide('broken', 'slow');
    expect(run.code).toBe(1);
    expect(withoutTimes(run.stdout)).toEqual([
      '[broken] about to fail',
      '[broken] failed (exit 3)',
      '[slow] slow 1',
      '[slow] slow 2',
      '[slow] passed',
    ]);
    expect(run.stderr).toBe('run-side-by-side: broken failed\n');
  });

  it('refuses a name package.json has no script for, running nothing', async () => {
    const run = await runSideBySide('quick', 'typo');
    expect(run).toEqual({ code: 2, stdout: '', stderr: 'run-side-by-side: package.json has no script named typo\n' });
  });
});
