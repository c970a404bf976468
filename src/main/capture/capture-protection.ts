import type { AppSettings } from '../../shared/ipc/contract';
import type { Settings } from '../settings/settings';

/**
 * Whether the OS can keep a window out of screenshots and screen sharing: macOS and Windows can, Linux (X11 and the
 * Wayland compositors alike) offers no way to.
 */
export function captureProtectionSupported(platform: string): boolean {
  return platform === 'darwin' || platform === 'win32';
}

/** Applies the decision to the window (Electron's setContentProtection in the app). */
export type ApplyCaptureProtection = (protect: boolean) => void;

/**
 * Decides whether the window is kept out of screen capture: always while a revealed secret is on screen, otherwise as
 * the captureProtection setting says. Until the settings file has been read, and when it cannot be read, the window
 * is protected: an unreadable file must not switch the protection off.
 */
export class CaptureProtection {
  readonly supported: boolean;
  #settingOn = true;
  #settingKnown = false;
  #secretOnScreen = false;
  #apply: ApplyCaptureProtection | undefined;
  #loading: Promise<void> | undefined;
  readonly #settings: Pick<Settings, 'get'>;

  constructor({ settings, platform }: { settings: Pick<Settings, 'get' | 'onChange'>; platform: string }) {
    this.supported = captureProtectionSupported(platform);
    this.#settings = settings;
    settings.onChange((current) => this.#useSetting(current));
  }

  /** Whether the window should be out of capture now. */
  get protected(): boolean {
    return this.#secretOnScreen || this.#settingOn;
  }

  /**
   * Reads the setting, once (attaching a window starts it); later changes arrive through Settings.onChange. Never
   * rejects: an unreadable file leaves the window protected.
   */
  load(): Promise<void> {
    this.#loading ??= this.#settings.get().then(
      (current) => {
        // A change made while the file was being read is newer than what was read.
        if (!this.#settingKnown) this.#useSetting(current);
      },
      (error: unknown) => console.warn('could not read the settings; the window stays out of screen capture', error),
    );
    return this.#loading;
  }

  /** Applies the decision through `apply` now and on every change, until the returned function is called. */
  attach(apply: ApplyCaptureProtection): () => void {
    this.#apply = apply;
    apply(this.protected);
    void this.load();
    return () => {
      if (this.#apply === apply) this.#apply = undefined;
    };
  }

  /** A revealed secret appeared on screen (`true`) or was hidden (`false`). */
  setSecretOnScreen(onScreen: boolean): void {
    this.#secretOnScreen = onScreen;
    this.#apply?.(this.protected);
  }

  #useSetting(settings: AppSettings): void {
    this.#settingKnown = true;
    this.#settingOn = settings.captureProtection;
    this.#apply?.(this.protected);
  }
}
