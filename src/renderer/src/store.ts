/**
 * UI state shared across screens: where the user is, whether the app is locked, the settings and which profile is
 * active. Never secrets: private keys typed into import forms live only in those forms' local state.
 */
import { create } from 'zustand';
import type { AppSettings } from '../../shared/ipc/contract';

export const SCREENS = ['profiles', 'keys', 'wallets', 'approvals', 'sign', 'contracts', 'policies', 'import', 'decrypt', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];

export interface ActiveProfileSummary {
  id: string;
  name: string;
}

interface UiState {
  screen: Screen;
  locked: boolean;
  settings: AppSettings | undefined;
  activeProfile: ActiveProfileSummary | null;
  show(screen: Screen): void;
  setLocked(locked: boolean): void;
  setSettings(settings: AppSettings): void;
  setActiveProfile(profile: ActiveProfileSummary | null): void;
}

export const useUi = create<UiState>()((set) => ({
  screen: 'profiles',
  locked: false,
  settings: undefined,
  activeProfile: null,
  show: (screen) => set({ screen }),
  setLocked: (locked) => set({ locked }),
  setSettings: (settings) => set({ settings }),
  setActiveProfile: (activeProfile) => set({ activeProfile }),
}));
