import type { IpcHandlers } from '../ipc/register';
import type { SecretClipboard } from './secret-clipboard';

/** Copying a secret (cleared after a while, on lock and on close) and clearing one that was pasted. */
export function clipboardHandlers({ clipboard }: { clipboard: SecretClipboard }): Pick<IpcHandlers, 'clipboard.copySecret' | 'clipboard.clearPasted'> {
  return {
    'clipboard.copySecret': async ({ text }) => {
      await clipboard.copy(text);
      return { clearAfterMs: clipboard.clearAfterMs };
    },
    'clipboard.clearPasted': async ({ text }) => {
      await clipboard.clearPasted(text);
      return null;
    },
  };
}
