/**
 * What a signing request's transaction would do, before anyone signs it: main runs it on a worker thread's EVM over
 * the state of the latest block of the node Settings names for its chain (off-thread.ts, run-transaction.ts), then
 * words the result with the organization's names and the known and declared tokens (reading.ts). The approval card
 * asks for it (`simulation.forActivity`) and main's confirmation restates it.
 *
 * What it trusts: the node. A node that lies about its state makes the simulation lie, so every reading names the
 * node and the block it ran on, and a node that fails or is too slow leaves the request "not simulated", saying why.
 * A desktop without a node may simulate from a proposer's state bundle instead (state-bundle.ts): then it trusts only
 * that the bundle's block is the chain's, which the reading leaves for the operator to compare by its hash.
 */
import { describeSigningActivity, type ClearSigningContext, type SigningDescription } from '../../shared/clear-signing';
import { grouped } from '../../shared/clear-signing/amounts';
import { Lookup } from '../../shared/clear-signing/lookup';
import { QkError, toQkError } from '../../shared/errors';
import type { SimulationView } from '../../shared/ipc/simulation';
import { unsignedTransactionHash, type StateBundle } from '../../shared/offline/state-bundle';
import { visibleText } from '../../shared/visible-text';
import type { AddressBook } from '../address-book/address-book';
import type { ApiClient } from '../client/api-client';
import type { Settings } from '../settings/settings';
import { contractsForReading, readOrganization, type OrganizationSnapshot } from '../signing/organization';
import { activityOf, signingRequestOf, type SigningRequest } from '../signing/signing-request';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import { simulateOffThread } from './off-thread';
import { NO_CHANGE, simulationLines } from './reading';
import type { RawSimulation, SimulationJob } from './run-transaction';

export interface SimulationsOptions {
  settings: Pick<Settings, 'get'>;
  tokens: Pick<DeclaredTokens, 'list'>;
  /** This desktop's names for the organization's addresses: their balance changes are shown, by name. */
  addressBook?: Pick<AddressBook, 'list'>;
  /** Runs a simulation; a worker thread per simulation unless a test runs it another way. */
  simulate?: (job: SimulationJob) => Promise<RawSimulation>;
}

export class Simulations {
  private readonly simulate: (job: SimulationJob) => Promise<RawSimulation>;

  constructor(private readonly options: SimulationsOptions) {
    this.simulate = options.simulate ?? ((job) => simulateOffThread(job));
  }

  /** The simulation of a signing activity's transaction, read from the service with the organization's names. */
  async forActivity(client: ApiClient, activityId: string): Promise<SimulationView> {
    const { request, snapshot } = await this.activityRequest(client, activityId);
    return this.forRequest(request, snapshot);
  }

  /** The simulation of `request`'s transaction over the state `stateBundle` proves, without a node. */
  async fromStateBundle(request: SigningRequest, snapshot: OrganizationSnapshot, stateBundle: StateBundle): Promise<SimulationView> {
    return (await this.run(request, snapshot, { stateBundle })).view;
  }

  /**
   * A state bundle for `request`'s transaction: simulated anew on the node's latest block, with a proof of every
   * account and slot that run read. Refused, with why, when it cannot be simulated there.
   */
  async stateBundleFor(request: SigningRequest, snapshot: OrganizationSnapshot): Promise<StateBundle> {
    const { view, stateBundle } = await this.run(request, snapshot, { makeStateBundle: true });
    if (stateBundle === undefined) {
      throw new QkError('FAILED_PRECONDITION', `no state bundle: ${view.status === 'not-simulated' ? view.reason : 'the simulation made none'}`);
    }
    return stateBundle;
  }

  /** A signing activity's request, and the organization that names its parties. */
  async activityRequest(client: ApiClient, activityId: string): Promise<{ request: SigningRequest; snapshot: OrganizationSnapshot }> {
    const { activity } = await client.query('get_activity', { activityId });
    const request = signingRequestOf(activity);
    if (request === undefined) {
      throw new QkError(
        'REQUEST_INVALID',
        `activity ${activityId} is a ${activity.type}, which signs nothing; only a signing activity is simulated`,
        {
          activityId,
        },
      );
    }
    return { request, snapshot: await readOrganization(client) };
  }

  /** The simulation of `request`, named with `snapshot`; never throws for a node's failure, which it reports instead. */
  async forRequest(request: SigningRequest, snapshot: OrganizationSnapshot): Promise<SimulationView> {
    return (await this.run(request, snapshot, {})).view;
  }

  /** The simulation over the node's state (and its state bundle, when asked) or over a state bundle's. */
  private async run(
    request: SigningRequest,
    snapshot: OrganizationSnapshot,
    source: { stateBundle?: StateBundle; makeStateBundle?: boolean },
  ): Promise<{ view: SimulationView; stateBundle?: StateBundle }> {
    if (request.operation !== 'sign_transaction') return notSimulated('it signs payloads, not a transaction');
    const context: ClearSigningContext = {
      wallets: snapshot.wallets.map((wallet) => ({
        walletId: wallet.walletId,
        walletName: wallet.walletName,
        accounts: snapshot.accounts.filter((account) => account.walletId === wallet.walletId),
      })),
      privateKeys: snapshot.privateKeys.map((key) => ({
        privateKeyId: key.privateKeyId,
        privateKeyName: key.privateKeyName,
        addresses: key.addresses.flatMap((entry) => (entry.address === undefined ? [] : [{ address: entry.address }])),
      })),
      contracts: contractsForReading(snapshot.contracts),
      tokens: await this.options.tokens.list(),
      addressBook: (await this.options.addressBook?.list(snapshot.viewer.organizationId)) ?? [],
    };
    const description = describeSigningActivity(activityOf(request), context);
    const { details, network } = description;
    if (details.kind !== 'ethereum-transaction')
      return notSimulated(`only Ethereum transactions are simulated, and this is a ${network.name} transaction`);
    if (network.chainId === undefined) return notSimulated('the transaction names no chain');
    const chain = `eip155:${network.chainId}`;
    const { stateBundle } = source;
    const nodeUrl = (await this.options.settings.get()).nodeUrls?.[chain];
    if (stateBundle === undefined && nodeUrl === undefined) return notSimulated(`no node set for ${network.name} (${chain}) in Settings`);
    const from = signerAddress(description);
    if (from === undefined) return notSimulated(`the signer ${description.signer.text} has no Ethereum address this organization lists`);
    const transaction = { chainId: network.chainId, from, unsignedTransaction: request.unsignedTransaction };
    const { viewer } = snapshot;
    let raw: RawSimulation;
    try {
      raw = await this.simulate(
        stateBundle !== undefined
          ? { ...transaction, stateBundle }
          : {
              ...transaction,
              nodeUrl: nodeUrl!,
              ...(source.makeStateBundle === true
                ? { stateBundleMadeBy: `${viewer.username} of ${viewer.organizationName}, from the node at ${new URL(nodeUrl!).origin}` }
                : {}),
            },
      );
    } catch (error) {
      return notSimulated(toQkError(error).message);
    }
    const lines = simulationLines(raw, {
      lookup: new Lookup(context, network.chainId),
      signer: { address: from, name: description.signer.text },
      to: details.to?.address,
    });
    const view: SimulationView = {
      status: 'simulated',
      block: { number: grouped(raw.block.number.toString()), hash: raw.block.hash },
      ...(stateBundle === undefined
        ? { node: new URL(nodeUrl!).origin }
        : {
            stateBundle: {
              madeBy: visibleText(stateBundle.madeBy),
              madeAt: stateBundle.madeAt,
              forThisTransaction: stateBundle.transactionHash === unsignedTransactionHash(request.unsignedTransaction),
            },
          }),
      lines: lines.length === 0 ? [{ kind: 'balance', text: NO_CHANGE }] : lines,
    };
    return { view, ...(raw.stateBundle === undefined ? {} : { stateBundle: raw.stateBundle }) };
  }
}

function notSimulated(reason: string): { view: SimulationView } {
  return { view: { status: 'not-simulated', reason } };
}

/** The address the transaction is sent from: `signWith` itself, or the Ethereum address of the key it names. */
function signerAddress({ signer }: SigningDescription): string | undefined {
  if (/^0x[0-9a-fA-F]{40}$/.test(signer.signWith)) return signer.signWith;
  return signer.keyAddresses?.find((entry) => /^0x[0-9a-fA-F]{40}$/.test(entry.address))?.address;
}
