/** The Touch ID glue over Electron's systemPreferences (issue 15, finding 5), with Electron mocked. */
import { describe, expect, it, vi } from 'vitest';
import { electronTouchId } from '../../src/main/lock/touch-id';

const sensor = vi.hoisted(() => ({ canPrompt: true, prompts: [] as string[] }));

vi.mock('electron', () => ({
  systemPreferences: {
    canPromptTouchID: () => sensor.canPrompt,
    promptTouchID: async (reason: string) => {
      sensor.prompts.push(reason);
    },
  },
}));

describe('electronTouchId', () => {
  it('is available on macOS only while systemPreferences.canPromptTouchID() says so', () => {
    sensor.canPrompt = true;
    expect(electronTouchId('darwin').available()).toBe(true);
    expect(electronTouchId('linux').available()).toBe(false);
    expect(electronTouchId('win32').available()).toBe(false);
    sensor.canPrompt = false;
    expect(electronTouchId('darwin').available()).toBe(false);
  });

  it('prompts through systemPreferences.promptTouchID with the reason', async () => {
    await electronTouchId('darwin').prompt('unlock QuorumKey');
    expect(sensor.prompts).toEqual(['unlock QuorumKey']);
  });
});
