import { clipboard } from 'electron';
import type { TextClipboard } from './secret-clipboard';

/** The system clipboard, through Electron: works whether or not the app window has focus. */
export const electronClipboard: TextClipboard = {
  readText: () => clipboard.readText(),
  writeText: (text) => clipboard.writeText(text),
  clear: () => clipboard.clear(),
};
