import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('quorumkey', {});
