/** Tokens operators declare for clear signing: checked, stored in the data directory, replaced and removed. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeclaredTokens } from '../../src/main/tokens/declared-tokens';
import { QkError } from '../../src/shared/errors';

const ACME = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
const MINT = 'So11111111111111111111111111111111111111112';

let dataDir: string;
let tokens: DeclaredTokens;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qk-tokens-'));
  tokens = new DeclaredTokens({ dataDir });
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function refusal(promise: Promise<unknown>): Promise<QkError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(QkError);
  return error as QkError;
}

describe('declared tokens', () => {
  it('stores an ERC-20 checksummed per chain and a mint as given, and replaces a declaration for the same chain and address', async () => {
    expect(await tokens.list()).toEqual([]);
    await tokens.declare({ family: 'ethereum', chainId: 1, address: ACME.toLowerCase(), symbol: 'ACME', decimals: 2 });
    await tokens.declare({ family: 'ethereum', chainId: 8453, address: ACME, symbol: 'bACME', decimals: 18 });
    await tokens.declare({ family: 'solana', address: MINT, symbol: 'wSOL', decimals: 9, name: 'Wrapped SOL' });
    const replaced = await tokens.declare({ family: 'ethereum', chainId: 1, address: ACME, symbol: 'ACME', decimals: 6 });
    expect(replaced).toEqual([
      { family: 'ethereum', chainId: 8453, address: ACME, symbol: 'bACME', decimals: 18 },
      { family: 'solana', address: MINT, symbol: 'wSOL', decimals: 9, name: 'Wrapped SOL' },
      { family: 'ethereum', chainId: 1, address: ACME, symbol: 'ACME', decimals: 6 },
    ]);
    // A new instance reads the file: the declarations outlive the process.
    expect(await new DeclaredTokens({ dataDir }).list()).toEqual(replaced);
    expect(JSON.parse(await readFile(join(dataDir, 'declared-tokens.json'), 'utf8'))).toEqual({ tokens: replaced });
  });

  it('refuses a malformed address and a token on the known list, naming why', async () => {
    const notAddress = await refusal(tokens.declare({ family: 'ethereum', chainId: 1, address: '0x1234', symbol: 'X', decimals: 1 }));
    expect(notAddress.message).toBe('address: "0x1234" is not an Ethereum address (0x and 40 hex digits)');
    const notMint = await refusal(tokens.declare({ family: 'solana', address: '0OIl', symbol: 'X', decimals: 1 }));
    expect(notMint.message).toMatch(/is not a Solana mint address/);
    const known = await refusal(
      tokens.declare({ family: 'ethereum', chainId: 1, address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', symbol: 'USDX', decimals: 18 }),
    );
    expect(known.message).toBe(
      'address: 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 on Ethereum (chain id 1) is USDC on the known token list (6 decimals); it needs no declaration',
    );
    // USDC's mainnet address on another chain is not the known token: it may be declared there.
    expect(
      await tokens.declare({ family: 'ethereum', chainId: 56, address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', symbol: 'X', decimals: 1 }),
    ).toHaveLength(1);
  });

  it('refuses a declaration imitating a known token’s symbol or name, naming where the real one is', async () => {
    const spoof = await refusal(tokens.declare({ family: 'ethereum', chainId: 1, address: ACME, symbol: 'usdc', decimals: 6, name: 'USD Coin' }));
    expect(spoof.details).toEqual({ field: 'symbol' });
    expect(spoof.message).toMatch(
      /^symbol: "usdc" is reserved to USD Coin \(USDC\) of the known token list, at 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 on Ethereum \(chain id 1\); /,
    );
    const byName = await refusal(tokens.declare({ family: 'ethereum', chainId: 1, address: ACME, symbol: 'ACME', decimals: 6, name: 'Tether  U5D' }));
    expect(byName.message).toMatch(/^name: "Tether {2}U5D" is reserved to Tether USD \(USDT\)/);
    expect(await tokens.list()).toEqual([]);
  });

  it('lists a declaration stored before the rule, that imitates a known token, with why it is not read', async () => {
    await writeFile(
      join(dataDir, 'declared-tokens.json'),
      JSON.stringify({ tokens: [{ family: 'ethereum', chainId: 1, address: ACME, symbol: 'USDC', decimals: 6 }] }),
    );
    const [view] = await tokens.views();
    expect(view?.notRead).toMatch(/^not read: its symbol "USDC" is reserved to USD Coin/);
  });

  it('removes a declaration, and says so when there is none', async () => {
    await tokens.declare({ family: 'ethereum', chainId: 1, address: ACME, symbol: 'ACME', decimals: 2 });
    expect(await tokens.remove({ family: 'ethereum', chainId: 1, address: ACME.toLowerCase() })).toEqual([]);
    const missing = await refusal(tokens.remove({ family: 'ethereum', chainId: 1, address: ACME }));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toBe(`no token is declared for ${ACME} on Ethereum (chain id 1)`);
  });
});
