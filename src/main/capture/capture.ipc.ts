import type { IpcHandlers } from '../ipc/register';
import type { CaptureProtection } from './capture-protection';

export function captureHandlers({ captureProtection }: { captureProtection: CaptureProtection }): Pick<IpcHandlers, 'app.setSecretOnScreen'> {
  return {
    'app.setSecretOnScreen': async ({ onScreen }) => {
      captureProtection.setSecretOnScreen(onScreen);
      return { captureProtectionSupported: captureProtection.supported };
    },
  };
}
