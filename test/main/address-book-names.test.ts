/**
 * A name from this desktop's address book on every reading main makes of a waiting signing request: the Approvals
 * list's row, the history's row and the inbox's item (whose notification says the same summary) name the recipient as
 * the card does, and the Sign screen's preview simulates the request on the node Settings name, with the named
 * recipient's balance change among its lines. Main's confirmation of a stamp made where the service cannot be reached
 * still names it. A name kept for another organization names nothing here. Through the real composition root, the
 * Sandbox and an Anvil node.
 */
import { createTestClient, getAddress, http, parseEther, serializeTransaction, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, ChannelInput, ChannelOutput } from '../../src/shared/ipc/contract';
import { startDispatchBed, type DispatchBed } from '../support/dispatch-bed';
import { startSimulationChain, type SimulationChain } from '../support/simulation-chain';
import { ETHEREUM_ACCOUNT } from '../support/valid-inputs';

const CHAIN_ID = 31337;
/** Anvil's third and fourth accounts: strangers to the organization, named only by the address book. */
const PAYROLL = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
const VENDOR = getAddress('0x90f79bf6eb2c4f870365e785982e1f101e93b906');

let bed: DispatchBed;
let chain: SimulationChain;
let treasury: string;
let toPayroll: string;
let toVendor: string;
let toPayrollRequest: ChannelInput<'signing.submit'>['request'];

function call<C extends Channel>(name: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return bed.call(name, input);
}

function transfer(to: Hex, nonce: number): ChannelInput<'signing.submit'>['request'] {
  const unsigned = serializeTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce,
    to,
    value: parseEther('1.5'),
    gas: 21_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
  return { operation: 'sign_transaction', signWith: treasury, type: 'TRANSACTION_TYPE_ETHEREUM', unsignedTransaction: unsigned.slice(2) };
}

async function submitted(request: ChannelInput<'signing.submit'>['request']): Promise<string> {
  const outcome = await call('signing.submit', { request });
  if (outcome.state !== 'consensus-needed') throw new Error(`the signing request is ${outcome.state}`);
  return outcome.activity.id;
}

beforeAll(async () => {
  chain = await startSimulationChain();
  bed = await startDispatchBed({ dataDirPrefix: 'qk-address-book-names-' });
  await call('sandbox.start', {});
  bed.answerConfirmations(true);
  const wallet = await call('wallets.create', { name: 'Treasury', accounts: [ETHEREUM_ACCOUNT] });
  if (wallet.state !== 'completed') throw new Error(`the wallet is ${wallet.state}`);
  treasury = wallet.result.addresses[0]!;
  await createTestClient({ mode: 'anvil', chain: foundry, transport: http(chain.anvil.url) }).setBalance({
    address: treasury as Hex,
    value: parseEther('10'),
  });
  await call('app.setSettings', { nodeUrls: { [`eip155:${CHAIN_ID}`]: chain.anvil.url } });
  // A second member of a root quorum of two: every signing request waits for a vote.
  await call('keys.generateApiKey', { name: 'bea' });
  const bea = await call('users.create', { userName: 'Bea', apiKey: { kind: 'keychain', keyName: 'bea' } });
  if (bea.state !== 'completed') throw new Error(`Bea is ${bea.state}`);
  const root = await call('approvals.whoami', {});
  await call('organization.updateRootQuorum', { userIds: [root.userId, bea.result.userId], threshold: 2 });

  await call('addressBook.add', { entry: { family: 'ethereum', chainId: CHAIN_ID, address: PAYROLL, name: 'Payroll' } });
  // Named on this desktop, but for another organization: not a name this one's readings may use.
  await bed.services.addressBook.add('another-organization', { family: 'ethereum', chainId: CHAIN_ID, address: VENDOR, name: 'Vendor' });
  toPayrollRequest = transfer(PAYROLL, 0);
  toPayroll = await submitted(toPayrollRequest);
  toVendor = await submitted(transfer(VENDOR, 1));
  await bed.services.inbox.check();
}, 120_000);

afterAll(async () => {
  await bed?.close();
  chain?.stop();
});

describe('names from the address book on the rows', () => {
  it('the Approvals row, the history row and the inbox item name the recipient as the card does', async () => {
    const card = await call('signing.describe', { activityId: toPayroll });
    expect(card.description.summary).toMatch(/^Send 1\.5 ETH to Payroll on /);

    const row = (await call('approvals.pending', {})).find((item) => item.activityId === toPayroll);
    expect(row?.reading.summary).toBe(card.description.summary);
    const history = (await call('activities.list', {})).find((activity) => activity.id === toPayroll);
    expect(history?.reading.summary).toBe(card.description.summary);
    const inboxItem = (await call('inbox.list', {})).profiles.flatMap((profile) => profile.items).find((item) => item.activityId === toPayroll);
    expect(inboxItem?.summary).toBe(card.description.summary);
  });

  it('leaves an address another organization’s book names bare', async () => {
    const row = (await call('approvals.pending', {})).find((item) => item.activityId === toVendor);
    expect(row?.reading.summary).toMatch(new RegExp(`^Send 1\\.5 ETH to ${VENDOR} on `));
    expect(row?.reading.summary).not.toContain('Vendor');
  });
});

describe('names from the address book where the service cannot be reached', () => {
  it('main’s confirmation of a stamp into a file names the recipient, read from the request alone', async () => {
    const sandbox = (await bed.services.profiles.getActive())!;
    // The same key and organization, at an address where nothing listens: the reading is made offline.
    const unreachable = await bed.services.profiles.add({
      name: 'air-gapped',
      kind: 'hosted',
      baseUrl: 'http://127.0.0.1:9',
      organizationId: sandbox.organizationId,
      apiKeyName: sandbox.apiKeyName,
      enclaveSignerPublicKey: sandbox.enclaveSignerPublicKey,
    });
    await bed.services.profiles.setActive(unreachable.id);
    try {
      const before = bed.confirmations.length;
      await call('signing.stampToFile', { request: toPayrollRequest, file: 'to-payroll.json' });
      const asked = bed.confirmations.slice(before);
      expect(asked).toHaveLength(1);
      expect(asked[0]?.reading?.summary).toMatch(/^Send 1\.5 ETH to Payroll on /);
      expect(asked[0]?.reading?.verdict).toMatch(/^not read: the service could not be asked/);
    } finally {
      await bed.services.profiles.setActive(sandbox.id);
    }
  });
});

describe('the Sign screen’s preview simulates the request', () => {
  it('shows what it would do on the node Settings name, the named recipient’s change among the lines', async () => {
    const view = await call('simulation.forRequest', { request: toPayrollRequest });
    if (view.status !== 'simulated') throw new Error(`not simulated: ${view.reason}`);
    expect(view.node).toBe(chain.anvil.url);
    const lines = view.lines.map((line) => line.text);
    expect(lines[0]).toMatch(new RegExp(`^Treasury / m/44'/60'/0'/0/0 \\(${getAddress(treasury)}\\): −1\\.5\\d* ETH \\(network fee included\\)$`));
    expect(lines).toContain(`Payroll (${PAYROLL}): +1.5 ETH`);
  });

  it('says why a request on a chain without a node, or one that signs a payload, is not simulated', async () => {
    const mainnet = {
      ...toPayrollRequest,
      unsignedTransaction: serializeTransaction({ chainId: 1, type: 'eip1559', to: PAYROLL, value: 1n }).slice(2),
    };
    expect(await call('simulation.forRequest', { request: mainnet })).toEqual({
      status: 'not-simulated',
      reason: 'no node set for Ethereum (eip155:1) in Settings',
    });
    const payload = await call('simulation.forRequest', {
      request: {
        operation: 'sign_raw_payload',
        signWith: treasury,
        payload: 'pay the auditors',
        encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
        hashFunction: 'HASH_FUNCTION_KECCAK256',
      },
    });
    expect(payload).toEqual({ status: 'not-simulated', reason: 'it signs payloads, not a transaction' });
  });
});
