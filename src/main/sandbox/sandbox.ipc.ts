import type { ChannelOutput } from '../../shared/ipc/contract';
import type { IpcHandlers } from '../ipc/register';
import type { Sandbox } from './sandbox';

type SandboxChannel = 'sandbox.status' | 'sandbox.start' | 'sandbox.stop' | 'sandbox.reset' | 'sandbox.restoreProfile';

export function sandboxHandlers({ sandbox }: { sandbox: Sandbox }): Pick<IpcHandlers, SandboxChannel> {
  const status = async (): Promise<ChannelOutput<'sandbox.status'>> => {
    const { state, error, restarts, notice } = sandbox.status();
    const health = { state, error: error ?? null, restarts, notice: notice ?? null };
    if (sandbox.isRunning) {
      // Answers the running service (start is idempotent), whoever started it.
      const { info, profile } = await sandbox.start();
      return {
        running: true,
        ...health,
        profileId: profile.id,
        organizationId: info.organizationId,
        rootUserId: info.rootUserId,
        baseUrl: info.baseUrl,
        enclaveSignerPublicKey: info.enclaveSignerPublicKey,
      };
    }
    // Stopped: the profile from an earlier run is still there, but its URL and root user belong to no live service.
    const stored = await sandbox.storedProfile();
    return {
      running: false,
      ...health,
      profileId: stored?.id ?? null,
      organizationId: stored?.organizationId ?? null,
      rootUserId: null,
      baseUrl: null,
      enclaveSignerPublicKey: stored?.enclaveSignerPublicKey ?? null,
    };
  };
  return {
    'sandbox.status': status,
    'sandbox.start': async () => {
      await sandbox.start();
      return status();
    },
    'sandbox.stop': async () => {
      await sandbox.stop();
      return status();
    },
    'sandbox.reset': async () => {
      await sandbox.reset();
      return status();
    },
    'sandbox.restoreProfile': async () => {
      await sandbox.restoreProfile();
      return status();
    },
  };
}
