/**
 * Wallet-account derivation throughput: 1,000 Ethereum (secp256k1, m/44'/60'/0'/0/i) and 1,000 Solana
 * (ed25519, m/44'/501'/i'/0') accounts from one seed, address included. Goal: under 1 s each.
 */
import { addressFor, type AddressFormat } from '../../src/service/enclave/addresses.js';
import { createKeyDeriver, type Curve } from '../../src/service/enclave/derivation.js';
import { mnemonicToSeed } from '../../src/service/enclave/mnemonic.js';

const ACCOUNTS = 1000;
const GOAL_MS = 1000;
const MNEMONIC = 'test test test test test test test test test test test junk';

interface Case {
  name: string;
  curve: Curve;
  format: AddressFormat;
  path(index: number): string;
}

const CASES: Case[] = [
  { name: 'Ethereum', curve: 'CURVE_SECP256K1', format: 'ADDRESS_FORMAT_ETHEREUM', path: (i) => `m/44'/60'/0'/0/${i}` },
  { name: 'Solana', curve: 'CURVE_ED25519', format: 'ADDRESS_FORMAT_SOLANA', path: (i) => `m/44'/501'/${i}'/0'` },
];

export interface DerivationBenchResult {
  name: string;
  accounts: number;
  milliseconds: number;
  accountsPerSecond: number;
  withinGoal: boolean;
}

export async function run(): Promise<DerivationBenchResult[]> {
  const seed = await mnemonicToSeed(MNEMONIC);
  const results: DerivationBenchResult[] = [];
  for (const { name, curve, format, path } of CASES) {
    const started = performance.now();
    const deriver = createKeyDeriver({ seed, curve });
    const addresses = new Set<string>();
    for (let i = 0; i < ACCOUNTS; i++) {
      const key = deriver.derive(path(i));
      addresses.add(addressFor({ curve, publicKey: key.publicKey, format }));
      key.privateKey.fill(0);
    }
    deriver.wipe();
    const milliseconds = performance.now() - started;
    if (addresses.size !== ACCOUNTS) throw new Error(`${name}: expected ${ACCOUNTS} distinct addresses, got ${addresses.size}`);
    const result = {
      name,
      accounts: ACCOUNTS,
      milliseconds: Math.round(milliseconds),
      accountsPerSecond: Math.round((ACCOUNTS / milliseconds) * 1000),
      withinGoal: milliseconds < GOAL_MS,
    };
    results.push(result);
    console.log(
      `derivation ${name}: ${result.accounts} accounts in ${result.milliseconds} ms (${result.accountsPerSecond} accounts/s)` +
        `${result.withinGoal ? '' : ` — over the ${GOAL_MS} ms goal`}`,
    );
  }
  seed.fill(0);
  return results;
}
