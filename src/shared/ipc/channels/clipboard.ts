/** The `clipboard.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { channel, nothing } from '../schemas';

/** A mnemonic (with room for 24 long words), a passphrase or a private key in any of its formats. */
const clipboardSecret = z.string().min(1).max(4096);

export const clipboardChannels = {
  /**
   * Puts a revealed secret on the system clipboard from main, which can also clear it while the window is not
   * focused: after `clearAfterMs`, on lock and on quit, as long as the clipboard still holds it.
   */
  copySecret: channel(z.strictObject({ text: clipboardSecret }), z.strictObject({ clearAfterMs: z.number().int().positive() })),
  /** After a secret was pasted into a form: clears the clipboard if it still holds `text`. */
  clearPasted: channel(z.strictObject({ text: clipboardSecret }), nothing),
} as const;
