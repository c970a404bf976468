/**
 * Runs the built CLI (built once per test run by test/support/cli-build-setup.ts) in a child process, optionally with a
 * preload that makes every socket connection and fetch throw.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';

const repo = join(import.meta.dirname, '../..');

/** The built CLI's entry; only the files of vitest.config.ts's `cli` project are given one. */
export function builtCli(): string {
  const entry = inject('builtCli');
  if (entry === undefined) throw new Error('this test file starts the CLI: add it to STARTS_THE_CLI in vitest.config.ts, whose setup builds it');
  return entry;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Writes the no-network preload into `directory` and answers its path, for `runCli(..., { noNetwork })`. */
export async function writeNoNetworkPreload(directory: string): Promise<string> {
  const path = join(directory, 'no-network.mjs');
  await writeFile(
    path,
    [
      "import net from 'node:net';",
      "const refuse = () => { throw new Error('network disabled in this test'); };",
      'net.connect = refuse; net.createConnection = refuse; net.Socket.prototype.connect = refuse;',
      'globalThis.fetch = async () => refuse();',
    ].join('\n'),
  );
  return path;
}

/**
 * `quorumkey --data-dir DIR ...args`; with `noNetwork` (a preload path) the child cannot reach any socket; with
 * `airGapped` it runs as a machine with no keychain would: no D-Bus session bus (nor a display to start one from), and
 * inside `unshare -rn` (a network namespace of its own, whose loopback is down) when `airGapped.unshare` is set;
 * `input` is what the person types on stdin (nothing by default: stdin ends at once).
 */
export function runCli(
  dataDir: string,
  args: string[],
  options: { noNetwork?: string; airGapped?: { unshare: boolean }; input?: string } = {},
): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: options.noNetwork === undefined ? '' : `--import=${options.noNetwork}` };
  if (options.airGapped !== undefined) {
    for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR']) delete env[name];
  }
  const node = [process.execPath, builtCli(), '--data-dir', dataDir, ...args];
  const [command, ...commandArgs] = options.airGapped?.unshare ? ['unshare', '-rn', ...node] : node;
  return new Promise((resolve) => {
    const child = execFile(command!, commandArgs, { env, cwd: repo }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(options.input ?? '');
  });
}
