/**
 * The Sandbox service as a Node child process: for tests and the browser preview, where there is no Electron. It runs
 * the service's source entry through tsx (or a built .js entry as is); only its stderr is kept, for the log.
 */
import { fork } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PARENT_IPC_FLAG } from '../../shared/service-process';
import type { LaunchServiceProcess } from './service-process';

export const SERVICE_SOURCE_ENTRY = join(import.meta.dirname, '../../service/cli.ts');

/**
 * Where each child keeps the code V8 compiled from the entry's bundle (Node's own cache, checked against each file's
 * contents; the directory `module.enableCompileCache()` uses, so the CLI's starts share it): a start then skips
 * compiling what an earlier one compiled, about an eighth of a built entry's start.
 */
const COMPILE_CACHE_DIR = join(tmpdir(), 'node-compile-cache');

export function nodeServiceProcess(entry: string = SERVICE_SOURCE_ENTRY, log: (line: string) => void = console.error): LaunchServiceProcess {
  return () => {
    const child = fork(entry, [PARENT_IPC_FLAG], {
      execArgv: entry.endsWith('.ts') ? ['--import', 'tsx'] : [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: { NODE_COMPILE_CACHE: COMPILE_CACHE_DIR, ...process.env },
    });
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      for (const line of text.split('\n')) if (line !== '') log(line);
    });
    return {
      pid: child.pid,
      send: (message) => {
        if (child.connected) child.send(message);
      },
      onMessage: (listener) => child.on('message', listener),
      onExit: (listener) => child.once('exit', (code) => listener(code)),
      kill: () => child.kill('SIGKILL'),
    };
  };
}
