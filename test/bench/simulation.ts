/**
 * A transaction's simulation once the node's state is read: an ERC-20 transfer on a real Anvil node, run first with
 * its state read from the node (account, code and storage reads, as the card's first simulation makes them), then 20
 * times more over the state that first run read, which times the EVM alone (a fresh VM each run, as each card gets).
 * Goal: under 300 ms after the state is read. Then the same transfer's state bundle is made, and the transfer simulated
 * from it with every proof checked. Wall and CPU time; numbers only, no assertions.
 */
import { encodeFunctionData, parseEther, serializeTransaction } from 'viem';
import { stateBundleText } from '../../src/shared/offline/state-bundle';
import { executeSimulation, prepareSimulation, simulateTransaction } from '../../src/main/simulation/run-transaction';
import { RECIPIENT, SIGNER, TOKEN_ABI, startSimulationChain } from '../support/simulation-chain';

const RUNS = 20;
const GOAL_MS = 300;

export async function run(): Promise<void> {
  const chain = await startSimulationChain();
  try {
    const unsignedTransaction = serializeTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce: 1,
      to: chain.token,
      data: encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [RECIPIENT, parseEther('5')] }),
      gas: 100_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
    const readStart = performance.now();
    const prepared = await prepareSimulation({ nodeUrl: chain.anvil.url, chainId: 31337, from: SIGNER.address, unsignedTransaction });
    const first = await executeSimulation(prepared);
    const readMs = performance.now() - readStart;
    console.log(
      `first run, reading the node: ${readMs.toFixed(1)} ms, ${first.nodeCalls} node calls, ${first.logs.length} logs, gas ${first.gasUsed}`,
    );

    const wall: number[] = [];
    const cpuStart = process.cpuUsage();
    for (let index = 0; index < RUNS; index++) {
      const start = performance.now();
      const again = await executeSimulation(prepared);
      wall.push(performance.now() - start);
      if (again.nodeCalls !== first.nodeCalls) throw new Error(`a run after the first read the node again (${again.nodeCalls} calls)`);
    }
    const cpu = process.cpuUsage(cpuStart);
    wall.sort((a, b) => a - b);
    const median = wall[Math.floor(RUNS / 2)]!;
    const worst = wall[RUNS - 1]!;
    console.log(
      `after the state is read (${RUNS} runs): median ${median.toFixed(1)} ms, worst ${worst.toFixed(1)} ms, CPU ${((cpu.user + cpu.system) / 1000 / RUNS).toFixed(1)} ms a run; goal < ${GOAL_MS} ms: ${median < GOAL_MS ? 'met' : 'missed'}`,
    );

    const job = { chainId: 31337, from: SIGNER.address, unsignedTransaction };
    const makeStart = performance.now();
    const { stateBundle } = await simulateTransaction({ ...job, nodeUrl: chain.anvil.url, stateBundleMadeBy: 'the bench' });
    const makeMs = performance.now() - makeStart;
    if (stateBundle === undefined) throw new Error('the simulation made no state bundle');
    const slots = stateBundle.accounts.reduce((total, account) => total + account.storage.length, 0);
    const checkStart = performance.now();
    const fromBundle = await simulateTransaction({ ...job, stateBundle });
    console.log(
      `state bundle: made in ${makeMs.toFixed(1)} ms (${stateBundle.accounts.length} accounts, ${slots} slots, ${stateBundleText(stateBundle).length} bytes); simulated from it, proofs checked, in ${(performance.now() - checkStart).toFixed(1)} ms, ${fromBundle.logs.length} logs, gas ${fromBundle.gasUsed}`,
    );
  } finally {
    chain.stop();
  }
}
