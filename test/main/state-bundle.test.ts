/**
 * State bundles against a real Anvil node: a bundle made after a token transfer's simulation lets a desktop with no
 * node simulate the same transfer to the same lines; a bundle whose balance, slot, code or header was changed is
 * refused naming what failed; a bundle made for another transaction lacks what this one reads, and says which. The
 * card's channels write and read the files main's dialogs pick.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFunctionData, getAddress, parseEther, serializeTransaction, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppSettings, DeclaredToken } from '../../src/shared/ipc/contract';
import type { SimulationView } from '../../src/shared/ipc/simulation';
import { parseStateBundle, stateBundleText, type StateBundle } from '../../src/shared/offline/state-bundle';
import type { OrganizationSnapshot } from '../../src/main/signing/organization';
import type { SigningRequest } from '../../src/main/signing/signing-request';
import { simulateTransaction } from '../../src/main/simulation/run-transaction';
import { Simulations } from '../../src/main/simulation/simulation';
import { simulationInLines } from '../../src/main/simulation/reading';
import { simulationHandlers } from '../../src/main/simulation/simulation.ipc';
import { RECIPIENT, SIGNER, TOKEN_ABI, startSimulationChain, type SimulationChain } from '../support/simulation-chain';

const CHAIN_ID = 31337;
const OTHER = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';

let chain: SimulationChain;
beforeAll(async () => {
  chain = await startSimulationChain();
}, 60_000);
afterAll(() => chain?.stop());

const snapshot = {
  viewer: { userId: 'u', username: 'alice', organizationId: 'o', organizationName: 'Acme' },
  wallets: [
    { walletId: 'w1', walletName: 'Treasury' },
    { walletId: 'w2', walletName: 'Payroll' },
  ],
  accounts: [
    { walletId: 'w1', address: SIGNER.address, path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
    { walletId: 'w2', address: RECIPIENT, path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
  ],
  privateKeys: [],
  contracts: [],
  policies: [],
  users: [],
  tags: [],
  rootQuorum: undefined,
} as unknown as OrganizationSnapshot;

function transfer(to: string, amount: bigint): string {
  return serializeTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce: 0,
    to: chain.token,
    data: encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [to as Hex, amount] }),
    gas: 200_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
}

function signingRequest(unsignedTransaction: string): SigningRequest {
  return { operation: 'sign_transaction', signWith: SIGNER.address, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' };
}

function simulations(nodeUrls: AppSettings['nodeUrls']): Simulations {
  const tokens: DeclaredToken[] = [{ family: 'ethereum', chainId: CHAIN_ID, address: chain.token, symbol: 'ACME', decimals: 18 }];
  return new Simulations({
    settings: { get: async () => ({ nodeUrls }) as AppSettings },
    tokens: { list: async () => tokens },
    simulate: simulateTransaction,
  });
}

const withNode = () => simulations({ [`eip155:${CHAIN_ID}`]: chain.anvil.url });
/** A desktop with no node set at all: only a state bundle can give it the chain's state. */
const offline = () => simulations(undefined);

async function bundleFor(unsignedTransaction: string): Promise<StateBundle> {
  // Through the file format, as a proposer's file reaches another desktop.
  return parseStateBundle(stateBundleText(await withNode().stateBundleFor(signingRequest(unsignedTransaction), snapshot)), 'bundle.json');
}

function reasonOf(view: SimulationView): string {
  if (view.status !== 'not-simulated') throw new Error(`expected not simulated, got ${JSON.stringify(view.lines)}`);
  return view.reason;
}

describe('a state bundle', () => {
  it('lets a desktop without a node simulate a token transfer to the same lines, and says where the state came from', async () => {
    const unsigned = transfer(RECIPIENT, parseEther('5'));
    const online = await withNode().forRequest(signingRequest(unsigned), snapshot);
    const bundle = await bundleFor(unsigned);
    expect(bundle.madeBy).toBe(`alice of Acme, from the node at ${chain.anvil.url}`);
    expect(bundle.accounts.map((account) => account.address)).toContain(chain.token.toLowerCase());
    expect(await offline().forRequest(signingRequest(unsigned), snapshot)).toEqual({
      status: 'not-simulated',
      reason: `no node set for Anvil (eip155:${CHAIN_ID}) in Settings`,
    });
    const fromBundle = await offline().fromStateBundle(signingRequest(unsigned), snapshot, bundle);
    expect(fromBundle.status).toBe('simulated');
    if (fromBundle.status !== 'simulated' || online.status !== 'simulated') return;
    expect(fromBundle.lines).toEqual(online.lines);
    expect(fromBundle.lines.map((line) => line.text)).toContain(`Payroll / m/44'/60'/0'/0/0 (${getAddress(RECIPIENT)}): +5 ACME`);
    expect(fromBundle.block.hash).toBe(bundle.block.hash);
    expect(fromBundle.node).toBeUndefined();
    expect(fromBundle.stateBundle).toEqual({ madeBy: bundle.madeBy, madeAt: bundle.madeAt, forThisTransaction: true });
    expect(simulationInLines(fromBundle)[0]).toBe(
      `What this would do (simulated at block ${fromBundle.block.number}, ${bundle.block.hash}, from a state bundle, proofs checked, made by ${bundle.madeBy}; compare the block hash with one you trust):`,
    );
  });

  it('is refused, naming the proof that failed, when a balance, a slot, a code or the header was changed', async () => {
    const unsigned = transfer(RECIPIENT, parseEther('5'));
    const bundle = await bundleFor(unsigned);
    const signer = SIGNER.address.toLowerCase();
    const token = chain.token.toLowerCase();
    const tampered = (change: (copy: StateBundle) => void) => {
      const copy = structuredClone(bundle);
      change(copy);
      return offline().fromStateBundle(signingRequest(unsigned), snapshot, copy);
    };
    const accountOf = (copy: StateBundle, address: string) => copy.accounts.find((account) => account.address === address)!;

    expect(reasonOf(await tampered((copy) => (accountOf(copy, signer).balance = `0x${(10n ** 30n).toString(16)}`)))).toBe(
      `the state bundle is refused: the balance the state bundle gives for ${signer} is not the one its proof proves at block ${BigInt(bundle.block.number)}`,
    );
    const slot = accountOf(bundle, token).storage.find((entry) => entry.value !== '0x0')!;
    expect(
      reasonOf(
        await tampered((copy) => {
          const entry = accountOf(copy, token).storage.find((candidate) => candidate.slot === slot.slot)!;
          entry.value = `0x${(BigInt(entry.value) * 2n).toString(16)}`;
        }),
      ),
    ).toBe(`the state bundle is refused: the value the state bundle gives for slot ${slot.slot} of ${token} is not the one its proof proves`);
    expect(reasonOf(await tampered((copy) => (accountOf(copy, token).code = `${accountOf(copy, token).code!}00`)))).toBe(
      `the state bundle is refused: the code the state bundle gives for ${token} does not hash to its proven code hash`,
    );
    // A balance changed with the proof node that holds it: the proof no longer hashes up to the state root.
    expect(
      reasonOf(
        await tampered((copy) => {
          const proof = accountOf(copy, signer).proof;
          proof[proof.length - 1] = `${proof[proof.length - 1]!.slice(0, -2)}00`;
        }),
      ),
    ).toBe(`the state bundle is refused: the proof of the account ${signer} does not lead to the state root of block ${BigInt(bundle.block.number)}`);
    expect(reasonOf(await tampered((copy) => (copy.block.header = `${copy.block.header.slice(0, -2)}00`)))).toBe(
      `the state bundle is refused: the state bundle's block header does not hash to the block hash it names (${bundle.block.hash})`,
    );
  });

  it('made for another transaction, lacks what this one reads, and says which', async () => {
    // A transfer to another recipient reads that recipient's balance slot, which this bundle never proved.
    const bundle = await bundleFor(transfer(RECIPIENT, parseEther('5')));
    const other = transfer(OTHER, parseEther('5'));
    const reason = reasonOf(await offline().fromStateBundle(signingRequest(other), snapshot, bundle));
    expect(reason).toMatch(new RegExp(`^the state bundle lacks slot 0x[0-9a-f]{64} of ${chain.token.toLowerCase()}$`));
    // One for another transaction that reads nothing more still simulates, and says it was made for another.
    const smaller = transfer(RECIPIENT, parseEther('1'));
    const view = await offline().fromStateBundle(signingRequest(smaller), snapshot, bundle);
    expect(view.status === 'simulated' && view.stateBundle?.forThisTransaction).toBe(false);
  });

  it('is refused for another chain, and its file is refused when it is not one', async () => {
    const unsigned = transfer(RECIPIENT, 1n);
    const bundle = await bundleFor(unsigned);
    expect(reasonOf(await offline().fromStateBundle(signingRequest(unsigned), snapshot, { ...bundle, chainId: 1 }))).toBe(
      `the state bundle is of chain id 1, and the transaction names ${CHAIN_ID}`,
    );
    expect(() => parseStateBundle('{"format":"quorumkey-state-bundle","version":2}', 'old.json')).toThrow(
      /^old\.json is not a QuorumKey state bundle \(version 1\): version: /,
    );
    expect(() => parseStateBundle('not json', 'x.json')).toThrow('x.json is not JSON; expected a state bundle written by QuorumKey');
  });
});

describe('the card’s state bundle channels', () => {
  it('save to the file main’s save dialog picks, simulate from the one its open dialog picks, and do nothing when closed', async () => {
    const unsigned = transfer(RECIPIENT, parseEther('5'));
    const dir = await mkdtemp(join(tmpdir(), 'qk-state-bundle-'));
    try {
      let picked: string | undefined = join(dir, 'picked.json');
      const suggested: string[] = [];
      const node = withNode();
      const noNode = offline();
      const handlers = simulationHandlers({
        active: { services: async () => ({ client: {} }) } as never,
        simulations: {
          forActivity: () => Promise.reject(new Error('not asked here')),
          forRequest: () => Promise.reject(new Error('not asked here')),
          activityRequest: async () => ({ request: signingRequest(unsigned), snapshot }),
          stateBundleFor: (request, organization) => node.stateBundleFor(request, organization),
          fromStateBundle: (request, organization, bundle) => noNode.fromStateBundle(request, organization, bundle),
        },
        stateBundleFiles: {
          saveAs: async (name) => {
            suggested.push(name);
            return picked;
          },
          open: async () => picked,
        },
      });
      const saved = await handlers['simulation.saveStateBundle']({ activityId: 'activity-1234' });
      expect(saved).toEqual({ saved: true, file: join(dir, 'picked.json'), block: expect.stringMatching(/^\d/) });
      expect(suggested).toEqual([expect.stringMatching(/^state-bundle-activity-block-\d+\.json$/)]);
      expect(parseStateBundle(await readFile(join(dir, 'picked.json'), 'utf8'), 'picked.json').chainId).toBe(CHAIN_ID);
      const view = await handlers['simulation.fromStateBundle']({ activityId: 'activity-1234' });
      expect(view?.status === 'simulated' && view.lines.map((line) => line.text)).toContain(
        `Payroll / m/44'/60'/0'/0/0 (${getAddress(RECIPIENT)}): +5 ACME`,
      );
      picked = undefined;
      expect(await handlers['simulation.saveStateBundle']({ activityId: 'activity-1234' })).toEqual({ saved: false });
      expect(await handlers['simulation.fromStateBundle']({ activityId: 'activity-1234' })).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
