/**
 * UI state shared across screens: where the user is, whether the app is locked, the settings and which profile is
 * active. Never secrets: private keys typed into import forms live only in those forms' local state.
 */
import { create } from 'zustand';
import type { AppSettings } from '../../shared/ipc/contract';

export const SCREENS = ['profiles', 'keys', 'wallets', 'approvals', 'sign', 'contracts', 'users', 'policies', 'import', 'decrypt', 'journal', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];

export interface ActiveProfileSummary {
  id: string;
  name: string;
}

/** A reveal main refused until the person re-enters the passphrase: settled by the re-authentication prompt. */
export interface ReauthRequest {
  done: () => void;
  cancel: () => void;
}

interface UiState {
  screen: Screen;
  locked: boolean;
  reauth: ReauthRequest | undefined;
  settings: AppSettings | undefined;
  activeProfile: ActiveProfileSummary | null;
  show: (screen: Screen) => void;
  setLocked: (locked: boolean) => void;
  setSettings: (settings: AppSettings) => void;
  setActiveProfile: (profile: ActiveProfileSummary | null) => void;
  setReauth: (request: ReauthRequest | undefined) => void;
}

export const useUi = create<UiState>()((set) => ({
  screen: 'profiles',
  locked: false,
  reauth: undefined,
  settings: undefined,
  activeProfile: null,
  show: (screen) => set({ screen }),
  setLocked: (locked) => set({ locked }),
  setSettings: (settings) => set({ settings }),
  setActiveProfile: (activeProfile) => set({ activeProfile }),
  setReauth: (reauth) => set({ reauth }),
}));
