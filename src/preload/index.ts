/**
 * The preload: exposes `window.quorumkey`, one named method per IPC contract channel, and nothing else (no generic
 * invoke, no ipcRenderer). Bundled as CommonJS because the renderer is sandboxed.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { createBridgeApi, withPlainErrors } from '../shared/ipc/bridge';

contextBridge.exposeInMainWorld(
  'quorumkey',
  withPlainErrors(createBridgeApi((channel, input) => ipcRenderer.invoke(channel, input))),
);
