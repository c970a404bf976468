/**
 * The Sandbox service as a Node child process: for tests and the browser preview, where there is no Electron. It runs
 * the service's source entry through tsx (or a built .js entry as is); only its stderr is kept, for the log.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { PARENT_IPC_FLAG } from '../../shared/service-process';
import type { LaunchServiceProcess } from './service-process';

export const SERVICE_SOURCE_ENTRY = join(import.meta.dirname, '../../service/cli.ts');

export function nodeServiceProcess(entry: string = SERVICE_SOURCE_ENTRY, log: (line: string) => void = console.error): LaunchServiceProcess {
  return () => {
    const child = fork(entry, [PARENT_IPC_FLAG], {
      execArgv: entry.endsWith('.ts') ? ['--import', 'tsx'] : [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
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
