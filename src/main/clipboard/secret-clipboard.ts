/**
 * Copying secrets happens in main, with the system clipboard (Electron's `clipboard`), because the renderer's
 * `navigator.clipboard` is refused while the window is not focused: exactly the copy, switch app, paste moment when
 * the 30 s clear must still run. A copied secret is cleared after 30 s, on lock and on quit, but only while the
 * clipboard still holds what we put there: something the person copied since is theirs, not ours to erase.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The part of Electron's `clipboard` this needs; tests pass an in-memory one. */
export interface TextClipboard {
  readText(): Promise<string>;
  writeText(text: string): Promise<void>;
  clear(): void;
}

export const CLIPBOARD_CLEAR_MS = 30_000;

export interface SecretClipboardOptions {
  clipboard: TextClipboard;
  clearAfterMs?: number;
  /** Where a failed clear is reported. */
  log?: (message: string, error: unknown) => void;
}

export class SecretClipboard {
  readonly clearAfterMs: number;
  readonly #clipboard: TextClipboard;
  /** A digest of the secret we put there, not the secret itself, so main does not keep it for 30 s. */
  #copiedDigest: Buffer | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  readonly #log: (message: string, error: unknown) => void;

  constructor({ clipboard, clearAfterMs = CLIPBOARD_CLEAR_MS, log = console.error }: SecretClipboardOptions) {
    this.#clipboard = clipboard;
    this.clearAfterMs = clearAfterMs;
    this.#log = log;
  }

  /** Puts `secret` on the clipboard and schedules its removal. */
  async copy(secret: string): Promise<void> {
    await this.#clipboard.writeText(secret);
    this.#copiedDigest = digestOf(secret);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.clearCopied(), this.clearAfterMs);
    this.#timer.unref?.();
  }

  /**
   * Clears the clipboard if it still holds the secret we copied (on the timer, on lock, on quit). Never rejects: it
   * runs from timers and lock listeners, so a clipboard failure is logged instead.
   */
  async clearCopied(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const digest = this.#copiedDigest;
    this.#copiedDigest = undefined;
    if (digest === undefined) return;
    try {
      if (await this.holds(digest)) this.#clipboard.clear();
    } catch (error) {
      this.#log('could not clear the copied secret from the clipboard', error);
    }
  }

  /** After `pasted` went into a form from the clipboard, clears it if the clipboard still holds that text. */
  async clearPasted(pasted: string): Promise<void> {
    if (await this.holds(digestOf(pasted))) this.#clipboard.clear();
  }

  private async holds(digest: Buffer): Promise<boolean> {
    return timingSafeEqual(digestOf(await this.#clipboard.readText()), digest);
  }
}

/** Surrounding whitespace does not count: pasting into a form may trim it. */
function digestOf(text: string): Buffer {
  return createHash('sha256').update(text.trim(), 'utf8').digest();
}
