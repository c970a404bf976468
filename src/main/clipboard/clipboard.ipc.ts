import { QkError } from '../../shared/errors';
import type { IpcHandlers } from '../ipc/register';
import type { SecretClipboard } from './secret-clipboard';

/** `clipboard` is absent where there is no system clipboard (the CLI builds the same services without one). */
export function clipboardHandlers({
  clipboard,
}: {
  clipboard: SecretClipboard | undefined;
}): Pick<IpcHandlers, 'clipboard.copySecret' | 'clipboard.clearPasted'> {
  const present = (): SecretClipboard => {
    if (clipboard === undefined) throw new QkError('FAILED_PRECONDITION', 'this process has no system clipboard to copy to');
    return clipboard;
  };
  return {
    'clipboard.copySecret': async ({ text }) => {
      const target = present();
      await target.copy(text);
      return { clearAfterMs: target.clearAfterMs };
    },
    'clipboard.clearPasted': async ({ text }) => {
      await present().clearPasted(text);
      return null;
    },
  };
}
