/** The Sandbox service in an Electron utility process: a Node process Electron starts and ends with the app. */
import { utilityProcess } from 'electron';
import { PARENT_IPC_FLAG, type ToServiceMessage } from '../../shared/service-process';
import type { LaunchServiceProcess } from './service-process';

/** `entry` is the built service entry (out/main/service.js beside the built main). */
export function utilityServiceProcess(entry: string, log: (line: string) => void = console.error): LaunchServiceProcess {
  return () => {
    const child = utilityProcess.fork(entry, [PARENT_IPC_FLAG], { serviceName: 'QuorumKey Sandbox', stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      for (const line of text.split('\n')) if (line !== '') log(line);
    });
    // Held until the process is up, so the start message cannot be lost to a process not yet there.
    let pending: ToServiceMessage[] | undefined = [];
    child.once('spawn', () => {
      for (const message of pending ?? []) child.postMessage(message);
      pending = undefined;
    });
    return {
      get pid() {
        return child.pid;
      },
      send: (message) => (pending === undefined ? child.postMessage(message) : void pending.push(message)),
      onMessage: (listener) => child.on('message', listener),
      onExit: (listener) => child.once('exit', (code) => listener(code)),
      kill: () => void child.kill(),
    };
  };
}
