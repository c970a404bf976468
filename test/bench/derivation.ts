/**
 * Wallet-account derivation throughput: 1,000 Ethereum (secp256k1, m/44'/60'/0'/0/i) and 1,000 Solana
 * (ed25519, m/44'/501'/i'/0') accounts from one seed, address included. Goal: under 1 s each.
 * Baseline: as many accounts, each derived from the seed by a fresh deriver (no parent-node cache), which is what
 * deriving one path at a time from the root costs. Every run derives its own range of account indexes: the enclave
 * remembers the public keys it computed, and one run's must not serve the next.
 */
import { addressFor, type AddressFormat } from '../../src/service/enclave/addresses.js';
import { createKeyDeriver, deriveKey, type Curve, type DerivedKey } from '../../src/service/enclave/derivation.js';
import { mnemonicToSeed } from '../../src/service/enclave/mnemonic.js';

const ACCOUNTS = 1000;
/** Accounts derived, both ways, before measuring: the first use of a curve builds its precomputed tables. */
const WARMUP_ACCOUNTS = 100;
const GOAL_MS = 1000;
const MNEMONIC = 'test test test test test test test test test test test junk';

interface Case {
  name: string;
  curve: Curve;
  format: AddressFormat;
  path: (index: number) => string;
}

const CASES: Case[] = [
  { name: 'Ethereum', curve: 'CURVE_SECP256K1', format: 'ADDRESS_FORMAT_ETHEREUM', path: (i) => `m/44'/60'/0'/0/${i}` },
  { name: 'Solana', curve: 'CURVE_ED25519', format: 'ADDRESS_FORMAT_SOLANA', path: (i) => `m/44'/501'/${i}'/0'` },
];

export interface DerivationBenchResult {
  name: string;
  accounts: number;
  milliseconds: number;
  baselineMilliseconds: number;
  accountsPerSecond: number;
  withinGoal: boolean;
}

/**
 * Derives every account and its address; with `sharedDeriver` false each account comes from the seed alone
 * (deriveKey), without the parent nodes a deriver keeps.
 */
function deriveAll(seed: Uint8Array, { name, curve, format, path }: Case, sharedDeriver: boolean, firstIndex: number, accounts = ACCOUNTS): number {
  const started = performance.now();
  const addresses = new Set<string>();
  const deriver = sharedDeriver ? createKeyDeriver({ seed, curve }) : undefined;
  const derive = (accountPath: string): DerivedKey => deriver?.derive(accountPath) ?? deriveKey({ seed, curve, path: accountPath });
  for (let i = firstIndex; i < firstIndex + accounts; i++) {
    const key = derive(path(i));
    addresses.add(addressFor({ curve, publicKey: key.publicKey, format }));
    key.privateKey.fill(0);
  }
  deriver?.wipe();
  const milliseconds = performance.now() - started;
  if (addresses.size !== accounts) throw new Error(`${name}: expected ${accounts} distinct addresses, got ${addresses.size}`);
  return milliseconds;
}

export async function run(): Promise<DerivationBenchResult[]> {
  const seed = await mnemonicToSeed(MNEMONIC);
  const results: DerivationBenchResult[] = [];
  for (const benchCase of CASES) {
    deriveAll(seed, benchCase, true, 2 * ACCOUNTS, WARMUP_ACCOUNTS);
    deriveAll(seed, benchCase, false, 2 * ACCOUNTS + WARMUP_ACCOUNTS, WARMUP_ACCOUNTS);
    const milliseconds = deriveAll(seed, benchCase, true, 0);
    const baselineMilliseconds = deriveAll(seed, benchCase, false, ACCOUNTS);
    const result = {
      name: benchCase.name,
      accounts: ACCOUNTS,
      milliseconds: Math.round(milliseconds),
      baselineMilliseconds: Math.round(baselineMilliseconds),
      accountsPerSecond: Math.round((ACCOUNTS / milliseconds) * 1000),
      withinGoal: milliseconds < GOAL_MS,
    };
    results.push(result);
    console.log(
      `derivation ${result.name}: ${result.accounts} accounts in ${result.milliseconds} ms (${result.accountsPerSecond} accounts/s, ` +
        `${(baselineMilliseconds / milliseconds).toFixed(2)}× the baseline of one account at a time from the seed: ` +
        `${result.baselineMilliseconds} ms)${result.withinGoal ? '' : ` — over the ${GOAL_MS} ms goal`}`,
    );
  }
  seed.fill(0);
  return results;
}
