/**
 * `simulate ACTIVITY_ID`: what a signing activity's transaction would do, on the node Settings name for its chain;
 * with `--save-state-bundle FILE`, the state bundle a desktop without a node needs to simulate it too (written to a
 * new file); with `--state-bundle FILE`, simulated from such a bundle, every proof checked, without asking any node.
 */
import { basename } from 'node:path';
import { parseStateBundle, stateBundleText } from '../../shared/offline/state-bundle';
import { visibleText } from '../../shared/visible-text';
import type { ApiClient } from '../client/api-client';
import type { MainServices } from '../services';
import { simulationInLines } from '../simulation/reading';
import { FILE_LIMITS, readBoundedText, writeNewFile } from '../storage/bounded-file';
import { UsageError } from './usage-error';

export interface SimulateArguments {
  activityId: string;
  stateBundle: string | undefined;
  saveStateBundle: string | undefined;
}

/** The command's output: the simulation in lines, or what was saved where. */
export async function simulateCommand(
  { simulations }: Pick<MainServices, 'simulations'>,
  client: ApiClient,
  { activityId, stateBundle, saveStateBundle }: SimulateArguments,
): Promise<string> {
  if (stateBundle !== undefined && saveStateBundle !== undefined) {
    throw new UsageError('--state-bundle simulates from a bundle and --save-state-bundle makes one: give one of them');
  }
  if (stateBundle === '' || saveStateBundle === '') throw new UsageError('--state-bundle and --save-state-bundle take a file');
  const { request, snapshot } = await simulations.activityRequest(client, activityId);
  if (saveStateBundle !== undefined) {
    const bundle = await simulations.stateBundleFor(request, snapshot);
    await writeNewFile(saveStateBundle, stateBundleText(bundle));
    const slots = bundle.accounts.reduce((total, account) => total + account.storage.length, 0);
    return `Saved the state bundle of block ${BigInt(bundle.block.number)} (${bundle.block.hash}) to ${saveStateBundle}: ${bundle.accounts.length} accounts and ${slots} storage slots, each with its proof.\n`;
  }
  const view =
    stateBundle === undefined
      ? await simulations.forRequest(request, snapshot)
      : await simulations.fromStateBundle(
          request,
          snapshot,
          parseStateBundle(await readBoundedText(stateBundle, FILE_LIMITS.stateBundle), basename(stateBundle)),
        );
  return simulationInLines(view)
    .map((line) => `${visibleText(line)}\n`)
    .join('');
}
