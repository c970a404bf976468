/**
 * The preload: exposes `window.quorumkey`, one named method per IPC contract channel and `onEvent` for main's events,
 * and nothing else (no generic invoke, no ipcRenderer). Bundled as CommonJS because the renderer is sandboxed.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { createBridgeApi, withPlainErrors } from '../shared/ipc/bridge';
import { APP_EVENT_CHANNEL } from '../shared/ipc/events';

contextBridge.exposeInMainWorld(
  'quorumkey',
  withPlainErrors(
    createBridgeApi(
      (channel, input) => ipcRenderer.invoke(channel, input),
      (listener) => {
        // Only the event itself crosses: the page never sees Electron's event object (it holds the sender).
        const forward = (_event: IpcRendererEvent, appEvent: unknown) => listener(appEvent);
        ipcRenderer.on(APP_EVENT_CHANNEL, forward);
        return () => void ipcRenderer.removeListener(APP_EVENT_CHANNEL, forward);
      },
    ),
  ),
);
