/**
 * Copying secrets: the clipboard is cleared 30 s later, unless something else was copied meanwhile. The timer is
 * module-wide so that hiding or leaving the screen that copied does not cancel it.
 */
export const CLIPBOARD_CLEAR_MS = 30_000;

let pendingClear: ReturnType<typeof setTimeout> | undefined;

export async function copySecret(text: string): Promise<void> {
  await navigator.clipboard.writeText(text);
  if (pendingClear !== undefined) clearTimeout(pendingClear);
  pendingClear = setTimeout(() => {
    pendingClear = undefined;
    void clearIfStillHolding(text);
  }, CLIPBOARD_CLEAR_MS);
}

/** After a secret is pasted into a form, it should not stay on the clipboard for the next paste elsewhere. */
export async function clearClipboardAfterPaste(pasted: string): Promise<void> {
  await clearIfStillHolding(pasted);
}

async function clearIfStillHolding(text: string): Promise<void> {
  let current: string | undefined;
  try {
    current = await navigator.clipboard.readText();
  } catch {
    // Reading may be refused (no permission, window not focused); clearing a secret matters more than keeping
    // whatever else might be there.
    current = undefined;
  }
  if (current !== undefined && current.trim() !== text.trim()) return;
  await navigator.clipboard.writeText('').catch((error: unknown) => console.warn('could not clear the clipboard', error));
}
