/**
 * `node scripts/run-side-by-side.ts NAME…`: the package's npm scripts NAME… at the same time, each in its own process.
 * `npm test` starts this way: the typecheck, Prettier's check, ESLint and the e2e tier's build (`npm run build:e2e`),
 * each mostly single-threaded, so on two cores ESLint, the longest, has a core while the others share the second one
 * (`npm run check` is the first three, `npm run lint` the two lint checks). Each script's output (stdout and stderr,
 * in the order written) is held back and printed whole, every line prefixed with its name, when that script ends, so
 * no two interleave. Exits 1 when any script fails, naming each that did. Plain Node runs this file (its types are
 * only stripped).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Outcome {
  name: string;
  passed: boolean;
}

const packageScripts = (JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;
const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('run-side-by-side: name the npm scripts to run, e.g. `node scripts/run-side-by-side.ts typecheck lint`');
  process.exit(2);
}
const unknown = names.filter((name) => !Object.hasOwn(packageScripts, name));
if (unknown.length > 0) {
  console.error(`run-side-by-side: package.json has no script named ${unknown.join(', ')}`);
  process.exit(2);
}
const repeated = names.filter((name, index) => names.indexOf(name) !== index);
if (repeated.length > 0) {
  console.error(`run-side-by-side: ${repeated.join(', ')} named more than once`);
  process.exit(2);
}

/** Under `npm run`, npm's own entry script (no PATH lookup of npm, and the same npm); otherwise `npm` on PATH. */
const npmEntry = process.env.npm_execpath;
const npmCommand = npmEntry === undefined ? { file: 'npm', prefix: [] } : { file: process.execPath, prefix: [npmEntry] };

function run(name: string): Promise<Outcome> {
  const started = performance.now();
  // --silent: npm's own header and failure lines would only repeat what the summary below says.
  const child = spawn(npmCommand.file, [...npmCommand.prefix, 'run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    let finished = false;
    const finish = (passed: boolean, how: string) => {
      // A process that could not start can report both 'error' and 'close'.
      if (finished) return;
      finished = true;
      const seconds = Math.round((performance.now() - started) / 1000);
      const lines = Buffer.concat(output).toString('utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      lines.push(`${how} after ${seconds} s`);
      process.stdout.write(lines.map((line) => `[${name}] ${line}\n`).join(''));
      resolve({ name, passed });
    };
    child.on('error', (error) => finish(false, `could not start: ${error.message}`));
    child.on('close', (code, signal) => {
      if (code === 0) finish(true, 'passed');
      else finish(false, code === null ? `killed by ${signal ?? 'a signal'}` : `failed (exit ${code})`);
    });
  });
}

const failed = (await Promise.all(names.map(run))).filter((outcome) => !outcome.passed).map((outcome) => outcome.name);
if (failed.length > 0) {
  console.error(`run-side-by-side: ${failed.join(' and ')} failed`);
  process.exit(1);
}
