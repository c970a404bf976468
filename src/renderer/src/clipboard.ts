/**
 * Secrets go to the clipboard through main, which uses the system clipboard: the renderer's navigator.clipboard is
 * refused while the window is not focused, so it could not clear a copy made just before switching apps. Main
 * clears the copy after the delay it answers, on lock and on quit, unless something else was copied meanwhile.
 */
import { call } from './api';

/** Copies `text` and answers after how many milliseconds main clears it. */
export async function copySecret(text: string): Promise<number> {
  const { clearAfterMs } = await call((api) => api.clipboard.copySecret({ text }));
  return clearAfterMs;
}

/** After a secret is pasted into a form, it should not stay on the clipboard for the next paste elsewhere. */
export async function clearClipboardAfterPaste(pasted: string): Promise<void> {
  if (pasted.trim() === '') return;
  await call((api) => api.clipboard.clearPasted({ text: pasted })).catch((error: unknown) => console.warn('could not clear the clipboard', error));
}
