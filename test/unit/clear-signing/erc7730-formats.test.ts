/** The ERC-7730 field formats and paths, on the spec's own examples where it gives them. */
import { describe, expect, it } from 'vitest';
import {
  chainText,
  dateText,
  durationText,
  interoperableAddressText,
  nativeAmountText,
  unitText,
} from '../../../src/shared/clear-signing/erc7730/formats';
import { parsePath, pathText } from '../../../src/shared/clear-signing/erc7730/paths';

describe('ERC-7730 formats', () => {
  it('formats dates, durations and units as the spec shows', () => {
    expect(dateText(1_709_191_632n)).toBe('2024-02-29 07:27:12Z');
    expect(durationText(8_250n)).toBe('02:17:30');
    expect(durationText(90_061n)).toBe('25:01:01');
    expect(unitText(10n, 0, 'h', false)).toBe('10h');
    expect(unitText(15n, 1, 'd', false)).toBe('1.5d');
    expect(unitText(36_000n, 0, 's', true)).toBe('36ks');
    expect(unitText(500n, 0, 'bps', false)).toBe('500bps');
  });

  it('names native amounts and chains by the chain', () => {
    expect(nativeAmountText(198_661_440_000_000_000n, 1)).toBe('0.19866144 ETH');
    expect(nativeAmountText(10n ** 18n, 137)).toBe('1 POL');
    expect(chainText(1n)).toBe('Ethereum');
    expect(chainText(99_999_999n)).toBe('chain 99999999');
  });

  it('reads an ERC-7930 interoperable address with its checksum', () => {
    expect(interoperableAddressText('0x00010000010114d8da6bf26964af9d7eed9e03e53415d37aa96045', (address) => address)).toBe(
      '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045@eip155:1#4CA88C9C',
    );
    expect(() => interoperableAddressText('0x0001000001011400', (address) => address)).toThrow(/lengths do not add up/);
  });

  it('refuses a date out of range and a negative duration', () => {
    expect(() => dateText(10n ** 20n)).toThrow(/is not a date/);
    expect(() => durationText(-1n)).toThrow(/cannot be negative/);
  });
});

describe('ERC-7730 paths', () => {
  it('parses roots, indexes and slices in both spellings', () => {
    expect(parsePath('#.params.path.[-20:]')).toEqual({
      root: '#',
      steps: [
        { kind: 'name', name: 'params' },
        { kind: 'name', name: 'path' },
        { kind: 'slice', start: -20 },
      ],
    });
    expect(pathText(parsePath('recipients[0]'))).toBe('#.recipients.[0]');
    expect(pathText(parsePath('details.[]'))).toBe('#.details.[]');
    expect(parsePath('@.value').root).toBe('@');
    expect(parsePath('$.metadata.enums.mode').root).toBe('$');
  });

  it('refuses what is not a path', () => {
    expect(() => parsePath('a..b!')).toThrow(/is not an ERC-7730 path/);
  });
});
