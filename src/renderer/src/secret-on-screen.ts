/**
 * While a revealed secret is on screen, main keeps the window out of screenshots and screen sharing whatever the
 * Settings say. Reveals are counted here, so main hears only of the first one shown and the last one hidden (two at
 * once, or React mounting one twice in development, would otherwise drop the protection early).
 */
import { useEffect, useState } from 'react';
import type { QkError } from '../../shared/errors';
import { call } from './api';

export interface SecretProtection {
  /** Main answered: the window is out of capture (where the OS can do that). */
  ready: boolean;
  /** Whether the OS honours it; false on Linux, where the window can still be captured. */
  supported: boolean;
  /** Main could not be told; the secret must stay masked. */
  error: QkError | undefined;
}

let secretsOnScreen = 0;
let protection: Promise<{ captureProtectionSupported: boolean }> | undefined;

function secretShown(): Promise<{ captureProtectionSupported: boolean }> {
  secretsOnScreen += 1;
  protection ??= call((api) => api.app.setSecretOnScreen({ onScreen: true }));
  return protection;
}

function secretHidden(): void {
  secretsOnScreen -= 1;
  if (secretsOnScreen > 0) return;
  protection = undefined;
  call((api) => api.app.setSecretOnScreen({ onScreen: false })).catch((error: unknown) =>
    console.warn('could not tell main the secret is hidden; the window stays out of screen capture', error),
  );
}

/** Tells main a secret is on screen for as long as the calling component is mounted. */
export function useSecretOnScreen(): SecretProtection {
  const [state, setState] = useState<SecretProtection>({ ready: false, supported: true, error: undefined });
  useEffect(() => {
    let mounted = true;
    secretShown().then(
      ({ captureProtectionSupported }) => mounted && setState({ ready: true, supported: captureProtectionSupported, error: undefined }),
      (error: QkError) => mounted && setState({ ready: false, supported: true, error }),
    );
    return () => {
      mounted = false;
      secretHidden();
    };
  }, []);
  return state;
}
