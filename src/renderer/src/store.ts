/**
 * UI state shared across screens: where the user is, whether the app is locked, what to open next. What main knows
 * (the settings, the active profile) is read through the query layer (queries.ts), not copied here. Never secrets:
 * private keys typed into import forms live only in those forms' local state.
 */
import { create } from 'zustand';

export const SCREENS = [
  'profiles',
  'keys',
  'wallets',
  'approvals',
  'sign',
  'contracts',
  'addressBook',
  'users',
  'policies',
  'import',
  'decrypt',
  'journal',
  'settings',
] as const;
export type Screen = (typeof SCREENS)[number];

/** An activity to show on the Approvals screen once `profileId` is the active profile. */
export interface ActivityToOpen {
  profileId: string;
  activityId: string;
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
  /** An activity the Approvals screen should open (a notification's click, the inbox's Enter), until it has. */
  activityToOpen: ActivityToOpen | undefined;
  show: (screen: Screen) => void;
  openActivity: (target: ActivityToOpen) => void;
  activityOpened: () => void;
  setLocked: (locked: boolean) => void;
  setReauth: (request: ReauthRequest | undefined) => void;
}

export const useUi = create<UiState>()((set) => ({
  screen: 'profiles',
  locked: false,
  reauth: undefined,
  activityToOpen: undefined,
  show: (screen) => set({ screen }),
  openActivity: (activityToOpen) => set({ screen: 'approvals', activityToOpen }),
  activityOpened: () => set({ activityToOpen: undefined }),
  setLocked: (locked) => set({ locked }),
  setReauth: (reauth) => set({ reauth }),
}));
