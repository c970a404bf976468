/** A real Anvil node (`@foundry-rs/anvil`) on loopback for the tests that send transactions. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface Anvil {
  process: ChildProcess;
  url: string;
}

/** The binary of Anvil's platform package (its `anvil` bin is a launcher that would outlive a kill). */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  return join(
    dirname(require.resolve(`@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}/package.json`)),
    'bin',
    'anvil',
  );
}

/** Starts Anvil (chain 31337, Prague rules: EIP-7702) on a free loopback port; resolves once it prints where it listens. */
export function startAnvil(): Promise<Anvil> {
  const child = spawn(anvilBinary(), ['--host', '127.0.0.1', '--port', '0', '--chain-id', '31337'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`anvil did not start within 20 s: ${output}`));
    }, 20_000);
    child.on('error', reject);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on (127\.0\.0\.1:\d+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ process: child, url: `http://${match[1]}` });
      }
    });
  });
}
