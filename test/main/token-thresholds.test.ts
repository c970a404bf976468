/** Per-token large-value thresholds: typed in the token's units, converted exactly, checked, and held in base units. */
import { describe, expect, it } from 'vitest';
import { wideningChanges, DEFAULT_SETTINGS } from '../../src/main/settings/settings';
import { checkTokenWarnAbove, migratedThresholds, parseTokenUnits, tokenCatalog, tokenThresholdsOf } from '../../src/main/tokens/token-thresholds';
import { QkError } from '../../src/shared/errors';

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const ACME = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
const usdc = { symbol: 'USDC', decimals: 6 };

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(QkError);
    return (error as QkError).message;
  }
  throw new Error('expected a refusal');
}

describe('token thresholds', () => {
  it('converts an amount in the token’s units exactly to base units', () => {
    expect(parseTokenUnits('10000', usdc)).toBe(10_000_000_000n);
    expect(parseTokenUnits('10,000.5', usdc)).toBe(10_000_500_000n);
    expect(parseTokenUnits('0.000001', usdc)).toBe(1n);
    expect(parseTokenUnits('7', { symbol: 'NFT', decimals: 0 })).toBe(7n);
    expect(parseTokenUnits('1.000000000000000001', { symbol: 'WETH', decimals: 18 })).toBe(1_000_000_000_000_000_001n);
  });

  it('refuses more decimals than the token has, zero, what is not an amount and more than a uint256', () => {
    expect(refusal(() => parseTokenUnits('0.0000001', usdc))).toBe('threshold: USDC has 6 decimals; 0.0000001 has 7');
    expect(refusal(() => parseTokenUnits('1.5', { symbol: 'NFT', decimals: 0 }))).toBe('threshold: NFT has no decimals; 1.5 has 1');
    expect(refusal(() => parseTokenUnits('0.000', usdc))).toMatch(/a threshold of 0 USDC would flag every transfer/);
    expect(refusal(() => parseTokenUnits('1e6', usdc))).toMatch(/"1e6" is not an amount of USDC/);
    expect(refusal(() => parseTokenUnits('1,00', usdc))).toMatch(/is not an amount of USDC/);
    expect(refusal(() => parseTokenUnits('9'.repeat(80), { symbol: 'X', decimals: 0 }))).toMatch(/more than a token amount can hold/);
  });

  it('names only known or declared tokens, once each, stored as the catalog spells them', () => {
    const declared = [{ family: 'ethereum' as const, chainId: 1, address: ACME, symbol: 'ACME', decimals: 2 }];
    const catalog = tokenCatalog(declared, undefined);
    const checked = checkTokenWarnAbove([{ token: { family: 'ethereum', chainId: 1, address: USDC.toLowerCase() }, amount: '10,000' }], catalog);
    expect(checked).toEqual([{ token: { family: 'ethereum', chainId: 1, address: USDC }, baseUnits: '10000000000' }]);
    expect(refusal(() => checkTokenWarnAbove([{ token: { family: 'ethereum', chainId: 1, address: ACME }, amount: '0.001' }], catalog))).toBe(
      'threshold: ACME has 2 decimals; 0.001 has 3',
    );
    expect(refusal(() => checkTokenWarnAbove([{ token: { family: 'ethereum', chainId: 56, address: USDC }, amount: '1' }], catalog))).toBe(
      `tokenWarnAbove: no known or declared token is at ${USDC} on chain id 56; declare it first`,
    );
    const twice = [
      { token: { family: 'ethereum' as const, chainId: 1, address: USDC }, amount: '1' },
      { token: { family: 'ethereum' as const, chainId: 1, address: USDC.toLowerCase() }, amount: '2' },
    ];
    expect(refusal(() => checkTokenWarnAbove(twice, catalog))).toBe('tokenWarnAbove: USDC on Ethereum (chain id 1) has two thresholds; keep one');
    // A declaration imitating a known token is not in the catalog: it can have no threshold.
    expect(
      tokenCatalog([{ family: 'ethereum', chainId: 1, address: ACME, symbol: 'USDC', decimals: 6 }], undefined).some(
        (token) => token.token.address === ACME,
      ),
    ).toBe(false);
  });

  it('hands the reader base units, and shows each threshold on its token in the units it is declared with now', () => {
    const warnAbove = [
      { token: { family: 'ethereum' as const, chainId: 1, address: USDC }, baseUnits: '10000000000' },
      { token: { family: 'ethereum' as const, chainId: 1, address: ACME }, baseUnits: '1000500' },
    ];
    const thresholdOf = (decimals: number) =>
      tokenCatalog([{ family: 'ethereum', chainId: 1, address: ACME, symbol: 'ACME', decimals }], warnAbove).flatMap((token) =>
        token.warnAbove === undefined ? [] : [token.warnAbove],
      );
    expect(thresholdOf(2)).toEqual(['10000', '10005']);
    // Declared again with more decimals, the same base units read as a smaller amount: the threshold does not move.
    expect(thresholdOf(6)).toEqual(['10000', '1.0005']);
    expect(tokenThresholdsOf(warnAbove)).toEqual([
      { family: 'ethereum', chainId: 1, address: USDC, raw: 10_000_000_000n },
      { family: 'ethereum', chainId: 1, address: ACME, raw: 1_000_500n },
    ]);
  });

  it('migrates thresholds kept in units with the decimals the token has, leaving out those not in force', () => {
    const catalog = tokenCatalog([{ family: 'ethereum', chainId: 1, address: ACME, symbol: 'ACME', decimals: 2 }], undefined);
    const acmeKey = { family: 'ethereum' as const, chainId: 1, address: ACME };
    expect(
      migratedThresholds(
        [
          { token: acmeKey, amount: '12.5' },
          { token: { ...acmeKey, chainId: 10 }, amount: '1' },
          { token: { family: 'ethereum', chainId: 1, address: USDC }, amount: '0.0000001' },
          { token: { family: 'ethereum', chainId: 1, address: USDC }, baseUnits: '5' },
        ],
        catalog,
      ),
    ).toEqual([
      { token: acmeKey, baseUnits: '1250' },
      { token: { family: 'ethereum', chainId: 1, address: USDC }, baseUnits: '5' },
    ]);
  });

  it('counts raising or removing a token threshold as widening, in the token’s units where it is read', () => {
    const at = (baseUnits: string | undefined) => ({
      ...DEFAULT_SETTINGS,
      ...(baseUnits === undefined ? {} : { tokenWarnAbove: [{ token: { family: 'ethereum' as const, chainId: 1, address: USDC }, baseUnits }] }),
    });
    const catalog = tokenCatalog([], undefined);
    expect(wideningChanges(at('10000000000'), at('5000000000'), catalog)).toEqual([]);
    expect(wideningChanges(at('10000000000'), at('10000500000'), catalog).map((change) => change.change)).toEqual(['10,000 USDC → 10,000.5 USDC']);
    expect(wideningChanges(at('10000000000'), at(undefined), catalog).map((change) => change.words)).toEqual([
      `removing the large-transfer warning of USDC (${USDC} on Ethereum (chain id 1)) (at 10,000 USDC)`,
    ]);
    expect(wideningChanges(at('10000000000'), at(undefined)).map((change) => change.change)).toEqual(['10,000,000,000 base units → no threshold']);
  });

  it('words the passphrase prompt with the token’s symbol and grouped digits, not its address and a bare integer', () => {
    const at = (baseUnits: string) => ({
      ...DEFAULT_SETTINGS,
      tokenWarnAbove: [{ token: { family: 'ethereum' as const, chainId: 1, address: USDC }, baseUnits }],
    });
    const [raised] = wideningChanges(at('1000000000000'), at('2000000000000'), tokenCatalog([], undefined));
    expect(raised?.words).toBe(`raising the large-transfer warning of USDC (${USDC} on Ethereum (chain id 1)) from 1,000,000 USDC to 2,000,000 USDC`);
  });
});
