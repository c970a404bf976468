import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { grouped } from '../../shared/clear-signing/amounts';
import { parseStateBundle, stateBundleText } from '../../shared/offline/state-bundle';
import type { IpcHandlers } from '../ipc/register';
import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { knowsSigner } from '../signing/signing-request';
import { FILE_LIMITS, readBoundedText } from '../storage/bounded-file';
import type { Simulations } from './simulation';

type SimulationChannel = Extract<keyof IpcHandlers, `simulation.${string}`>;

export interface SimulationHandlerDeps extends Pick<ActiveProfileHandlerDeps, 'active'> {
  simulations: Pick<Simulations, 'forActivity' | 'forRequest' | 'activityRequest' | 'stateBundleFor' | 'fromStateBundle'>;
  stateBundleFiles: StateBundleFiles;
}

/** Main's own file dialogs for state bundles: the operator picks the file, the page never names a path. */
export interface StateBundleFiles {
  /** Where to save a bundle, `undefined` when the operator closes the dialog. */
  saveAs(suggestedName: string): Promise<string | undefined>;
  /** Which bundle to open, `undefined` when the operator closes the dialog. */
  open(): Promise<string | undefined>;
}

export function simulationHandlers({ active, simulations, stateBundleFiles }: SimulationHandlerDeps): Pick<IpcHandlers, SimulationChannel> {
  return {
    'simulation.forActivity': async ({ activityId }) => simulations.forActivity((await active.services()).client, activityId),
    'simulation.forRequest': async ({ request }) => {
      const { organization } = await active.services();
      // The profile's read of its organization, read anew when it does not know the signing key yet.
      return simulations.forRequest(request, await organization.snapshot((read) => knowsSigner(read, request.signWith)));
    },
    'simulation.saveStateBundle': async ({ activityId }) => {
      const { request, snapshot } = await simulations.activityRequest((await active.services()).client, activityId);
      // Made before the dialog, so a transaction that cannot be bundled is refused before a file is asked for.
      const bundle = await simulations.stateBundleFor(request, snapshot);
      const block = BigInt(bundle.block.number).toString();
      const file = await stateBundleFiles.saveAs(`state-bundle-${activityId.slice(0, 8)}-block-${block}.json`);
      if (file === undefined) return { saved: false };
      // The save dialog has already asked before replacing a file the operator picked.
      await writeFile(file, stateBundleText(bundle));
      return { saved: true, file, block: grouped(block) };
    },
    'simulation.fromStateBundle': async ({ activityId }) => {
      const file = await stateBundleFiles.open();
      if (file === undefined) return null;
      const bundle = parseStateBundle(await readBoundedText(file, FILE_LIMITS.stateBundle), basename(file));
      const { request, snapshot } = await simulations.activityRequest((await active.services()).client, activityId);
      return simulations.fromStateBundle(request, snapshot, bundle);
    },
  };
}
