import { QkError } from '../../shared/errors';
import type { ChannelOutput } from '../../shared/ipc/contract';
import { quotedText } from '../../shared/visible-text';
import type { Confirm } from '../confirmation/confirmation';
import type { IpcHandlers } from '../ipc/register';
import type { Profiles } from '../profiles/profiles';
import type { Sandbox } from './sandbox';

type SandboxChannel = 'sandbox.status' | 'sandbox.start' | 'sandbox.stop' | 'sandbox.reset' | 'sandbox.restoreProfile';

export interface SandboxHandlerDeps {
  sandbox: Sandbox;
  profiles: Pick<Profiles, 'list'>;
  /** Main's confirmation surface: stopping a service that profiles send their requests to is asked there first. */
  confirm: Confirm;
}

export function sandboxHandlers({ sandbox, profiles, confirm }: SandboxHandlerDeps): Pick<IpcHandlers, SandboxChannel> {
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
      if (sandbox.isRunning) await confirmStop(sandbox, profiles, confirm);
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

/**
 * The profiles whose requests go to the running Sandbox (its own, and any other pointed at its address) stop working
 * until it runs again: the person is asked on main's surface, naming them, before it stops.
 */
async function confirmStop(sandbox: Sandbox, profiles: Pick<Profiles, 'list'>, confirm: Confirm): Promise<void> {
  const { info } = await sandbox.start();
  const served = new URL(info.baseUrl).origin;
  const users = (await profiles.list()).filter(
    (profile) => profile.kind === 'sandbox' || (URL.canParse(profile.baseUrl) && new URL(profile.baseUrl).origin === served),
  );
  if (users.length === 0) return;
  const names = users.map((profile) => quotedText(profile.name)).join(', ');
  const asked = await confirm({
    title: 'Stop the Sandbox?',
    message: `${users.length === 1 ? 'Profile' : 'Profiles'} ${names} ${users.length === 1 ? 'uses' : 'use'} it: their requests fail until the Sandbox runs again.`,
    detail: `The Sandbox serves ${info.baseUrl}. Its data stays; start it again on the Profiles screen.`,
    goAhead: 'Stop the Sandbox',
  });
  if (!asked) throw new QkError('USER_DECLINED', "stopping the Sandbox was declined in QuorumKey's confirmation; it keeps running");
}
