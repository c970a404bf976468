/**
 * Main's channels as the renderer reaches them: the real composition root (`createMainServices` and its handlers)
 * behind `dispatch`, with a trusted renderer URL, a temporary data directory and a keychain service name of its own
 * (run under test/support/with-secret-service.sh). `close` removes what the services left behind.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Channel, ChannelInput, ChannelOutput, IpcResult } from '../../src/shared/ipc/contract';
import type { ConfirmationRequest } from '../../src/main/confirmation/confirmation';
import { createDispatch } from '../../src/main/ipc/register';
import { createRendererUrlCheck } from '../../src/main/ipc/sender';
import type { Profile } from '../../src/main/profiles/profiles';
import { createMainHandlers, createMainServices, type MainServices, type MainServicesOptions } from '../../src/main/services';

const RENDERER_INDEX = '/opt/QuorumKey/out/renderer/index.html';
const RENDERER_URL = `file://${RENDERER_INDEX}`;

export interface DispatchBed {
  readonly dataDir: string;
  readonly services: MainServices;
  /** Every confirmation main asked for, in order. */
  readonly confirmations: readonly ConfirmationRequest[];
  /** How the person answers main's confirmations from now on (Continue by default). */
  answerConfirmations(goAhead: boolean): void;
  /** Dispatches `name` from the renderer, any input (main validates it); a refusal is the result, not a throw. */
  dispatch<C extends Channel>(name: C, input: unknown): Promise<IpcResult<ChannelOutput<C>>>;
  /** Dispatches `name` and returns its output; a refusal throws with its code and message. */
  call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>>;
  /**
   * Adds a hosted profile on the running Sandbox's organization that signs with keychain key `apiKeyName`, written
   * straight to the profiles (as a person's confirmed change would be); it does not become active.
   */
  addSandboxProfile(name: string, apiKeyName: string): Promise<Profile>;
  /** Closes the services, then removes their profiles, keychain entries and data directory. */
  close(): Promise<void>;
}

/** `now` is main's clock and the Sandbox's (it runs in this process): a test that moves it moves both. */
export async function startDispatchBed(
  options: { dataDirPrefix: string } & Pick<MainServicesOptions, 'askPkcs11Pin' | 'clipboard' | 'fetch' | 'now' | 'openPasskeyPage'>,
): Promise<DispatchBed> {
  const dataDir = await mkdtemp(join(tmpdir(), options.dataDirPrefix));
  const services = createMainServices({
    dataDir,
    keychainServiceName: `QuorumKey-test-${randomUUID()}`,
    ...(options.clipboard === undefined ? {} : { clipboard: options.clipboard }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.openPasskeyPage === undefined ? {} : { openPasskeyPage: options.openPasskeyPage }),
    ...(options.askPkcs11Pin === undefined ? {} : { askPkcs11Pin: options.askPkcs11Pin }),
  });
  // The person at main's confirmation: goes ahead unless a test says otherwise, and every question is kept.
  const confirmations: ConfirmationRequest[] = [];
  let goAhead = true;
  const handlers = createMainHandlers(services, {
    app: { version: '0.0.0-test', platform: process.platform, packaged: false },
    confirm: async (request) => {
      confirmations.push(request);
      return goAhead;
    },
  });
  const dispatch = createDispatch({ handlers, isTrustedSender: createRendererUrlCheck({ rendererIndexPath: RENDERER_INDEX }) });
  const bed: DispatchBed = {
    dataDir,
    services,
    confirmations,
    answerConfirmations(answer) {
      goAhead = answer;
    },
    dispatch: async (name, input) => (await dispatch(name, input, RENDERER_URL)) as IpcResult<ChannelOutput<typeof name>>,
    async call(name, input) {
      const result = await bed.dispatch(name, input);
      if (!result.ok) throw new Error(`${name} failed: ${result.error.code} ${result.error.message}`);
      return result.value;
    },
    async addSandboxProfile(name, apiKeyName) {
      const { baseUrl, enclaveSignerPublicKey } = await bed.call('sandbox.status', {});
      const sandbox = (await services.profiles.list()).find((profile) => profile.kind === 'sandbox');
      if (baseUrl === null || enclaveSignerPublicKey === null || sandbox === undefined) throw new Error('the Sandbox is not running');
      return services.profiles.add({ name, kind: 'hosted', baseUrl, organizationId: sandbox.organizationId, apiKeyName, enclaveSignerPublicKey });
    },
    async close() {
      await services.close();
      for (const profile of await services.profiles.list()) await services.profiles.remove(profile.id);
      for (const key of await services.keychain.listApiKeys()) await services.keychain.deleteApiKey(key.name);
      for (const key of await services.keychain.listEncryptionKeys()) await services.keychain.deleteEncryptionKey(key.name);
      for (const { activityId } of await services.keychain.listOneTimeKeys()) await services.keychain.releaseOneTimeKey(activityId);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return bed;
}
