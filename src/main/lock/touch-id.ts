import { systemPreferences } from 'electron';
import type { TouchId } from './unlocker';

/** Touch ID through Electron: offered only on macOS, and only where the Mac says it can prompt now. */
export function electronTouchId(platform: NodeJS.Platform = process.platform): TouchId {
  return {
    available: () => platform === 'darwin' && systemPreferences.canPromptTouchID(),
    prompt: (reason) => systemPreferences.promptTouchID(reason),
  };
}
