/**
 * What a start of the operator's CLI costs (issue 37): `--help` of the built bin (out/cli/quorumkey.js, built first by
 * vite.cli.config.ts) beside the same entry run through tsx as `npm run cli` used to, and beside a Node process that
 * does nothing; then an unknown command, refused before any command's code loads, and a known command refused by what
 * it reads once the app's services are loaded (what every command but `journal verify` and `clear-signing` loads
 * before its work), built and through tsx. Each is the median of 10 starts, taken in turn so
 * that a busy moment costs all alike. Wall time is what a person or a test waits; CPU time, reported by the process
 * itself as it exits, is what a loaded machine does not blur. Prints numbers, asserts nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'vite';

const ROOT = resolve(import.meta.dirname, '../..');
const STARTS = 10;
/** Loaded before the program: reports the process's own CPU time on stderr as it exits. */
const EXIT_REPORT = `process.on('exit', () => { const usage = process.resourceUsage(); process.stderr.write('\\n{"cpuMs":' + (usage.userCPUTime + usage.systemCPUTime) / 1e3 + '}'); });`;

interface Start {
  wallMs: number;
  cpuMs: number;
}

/** Runs `node --import REPORT ...args` to its exit, which must be `exitCode`. */
function start(reportHook: string, args: readonly string[], exitCode: number): Promise<Start> {
  return new Promise((resolvePromise, reject) => {
    const began = performance.now();
    const child = spawn(process.execPath, ['--import', reportHook, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const wallMs = performance.now() - began;
      const report = /\{"cpuMs":[^}]*\}$/.exec(stderr.trim());
      if (code !== exitCode || report === null) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      else resolvePromise({ wallMs, cpuMs: (JSON.parse(report[0]) as { cpuMs: number }).cpuMs });
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 0 ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[middle]!;
}

export async function run(): Promise<void> {
  const buildStart = performance.now();
  await build({ configFile: join(ROOT, 'vite.cli.config.ts'), logLevel: 'warn' });
  console.log(`npm run build:cli: ${((performance.now() - buildStart) / 1000).toFixed(1)} s`);

  const directory = mkdtempSync(join(tmpdir(), 'quorumkey-bench-cli-'));
  try {
    const reportHook = join(directory, 'exit-report.mjs');
    writeFileSync(reportHook, EXIT_REPORT);
    const built = join(ROOT, 'out/cli/quorumkey.js');
    const throughTsx = ['--import', 'tsx', join(ROOT, 'src/main/cli/index.ts')];
    const unknownCommand = ['--data-dir', join(directory, 'data'), 'no-such-command'];
    // An empty data dir holds no profile of that name: refused (exit 1) by the profiles the services read.
    const servicesCommand = ['--data-dir', join(directory, 'data'), '--profile', 'nobody', 'activities', 'list'];
    const programs = [
      { label: 'built bin (node out/cli/quorumkey.js --help)', args: [built, '--help'], exitCode: 0 },
      { label: 'through tsx (node --import tsx src/main/cli/index.ts --help)', args: [...throughTsx, '--help'], exitCode: 0 },
      { label: 'bare Node (node -e "")', args: ['-e', ''], exitCode: 0 },
      { label: 'built bin, an unknown command (refused before any command loads)', args: [built, ...unknownCommand], exitCode: 2 },
      { label: 'built bin, activities list --profile nobody (the app services loaded)', args: [built, ...servicesCommand], exitCode: 1 },
      { label: 'through tsx, activities list --profile nobody (the app services loaded)', args: [...throughTsx, ...servicesCommand], exitCode: 1 },
    ];
    const starts = programs.map(() => [] as Start[]);
    for (let round = 0; round < STARTS; round += 1) {
      for (const [index, program] of programs.entries()) starts[index]!.push(await start(reportHook, program.args, program.exitCode));
    }
    for (const [index, program] of programs.entries()) {
      const taken = starts[index]!;
      console.log(
        `${program.label}: ${median(taken.map((each) => each.wallMs)).toFixed(0)} ms wall, ${median(taken.map((each) => each.cpuMs)).toFixed(0)} ms CPU (median of ${STARTS})`,
      );
    }
    const [builtHelp, tsxHelp, , builtUnknown, builtCommand, tsxCommand] = starts.map((taken) => median(taken.map((each) => each.wallMs)));
    console.log(
      `tsx / built: --help ${(tsxHelp! / builtHelp!).toFixed(1)}×, a command on the services ${(tsxCommand! / builtCommand!).toFixed(1)}× the wall time; ` +
        `built, an unknown command / --help: ${(builtUnknown! / builtHelp!).toFixed(1)}×; goal for the built --help: under 300 ms`,
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
