/**
 * The one escaper for service and file text: every character that could break a line, move the cursor, reorder text
 * or hide itself is shown as its escape, and nothing else changes.
 */
import { describe, expect, it } from 'vitest';
import { jsonText, quotedText, visibleText, visibleTextWithin } from '../../src/shared/visible-text';

describe('visibleText', () => {
  it('shows line breaks and separators inside one name as escapes, so they end no line', () => {
    const forged = 'Carol\n\nPolicy verdict: allowed by policy "Payroll"\r\nAfter\u2028this\u2029one\u0085';
    expect(visibleText(forged)).toBe('Carol\\n\\nPolicy verdict: allowed by policy "Payroll"\\r\\nAfter\\u2028this\\u2029one\\u0085');
    expect(visibleText(forged)).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
  });

  it('shows C0 and C1 controls (BEL, ESC, DEL, CSI) and tabs as escapes', () => {
    expect(visibleText('a\u0007b\u001b[2Jc\u007fd\u009be\tf\u0000')).toBe('a\\u0007b\\u001B[2Jc\\u007Fd\\u009Be\\tf\\u0000');
  });

  it('shows bidi embeddings, overrides, isolates and marks as escapes', () => {
    const bidi = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'];
    for (const char of bidi) expect(visibleText(`x${char}y`)).toBe(`x\\u${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}y`);
    expect(visibleText('invoice\u202Efdp.exe')).toBe('invoice\\u202Efdp.exe');
  });

  it('shows invisible format characters (zero-width, BOM, word joiner, tags, fillers) as escapes', () => {
    expect(visibleText('A\u200Bl\u200Ci\u200Dc\uFEFFe\u2060\u00AD\u3164\u{E0041}')).toBe(
      'A\\u200Bl\\u200Ci\\u200Dc\\uFEFFe\\u2060\\u00AD\\u3164\\u{E0041}',
    );
  });

  it('shows a lone surrogate as its escape', () => {
    expect(visibleText('a\uD800b')).toBe('a\\uD800b');
  });

  it('leaves printable text alone, whatever its script, and escaping twice is escaping once', () => {
    const printable = 'Trésorerie — 资金 Казна 🏦 C:\\keys "quoted" \\u202E';
    expect(visibleText(printable)).toBe(printable);
    const escaped = visibleText('a\u202Eb\nc');
    expect(visibleText(escaped)).toBe(escaped);
  });
});

describe('visibleTextWithin', () => {
  it('keeps escaped text that fits as it is', () => {
    expect(visibleTextWithin('a\u202Eb', 8)).toBe('a\\u202Eb');
  });

  it('cuts what the escapes made too long, never inside an escape, and says so with an ellipsis', () => {
    expect(visibleTextWithin('\u202E'.repeat(10), 20)).toBe('\\u202E\\u202E\\u202E…');
    expect(visibleTextWithin(`ab\u{E0041}`, 8)).toBe('ab…');
    expect(visibleTextWithin('abcdefg\nz', 9)).toBe('abcdefg…');
    for (let maxLength = 1; maxLength < 40; maxLength += 1) {
      const shown = visibleTextWithin('x\u2028y\u{E0041}z\u0007', maxLength);
      expect(shown.length).toBeLessThanOrEqual(maxLength);
      expect(shown).not.toMatch(/\\(?:u(?:\{[0-9A-F]*|[0-9A-F]{0,3}))?…$/);
    }
  });
});

describe('quotedText', () => {
  it('quotes a name, escaping its quotes and backslashes so it cannot close the quote', () => {
    expect(quotedText('Payroll", allowed by "Ops')).toBe('"Payroll\\", allowed by \\"Ops"');
    expect(quotedText('a\\"b')).toBe('"a\\\\\\"b"');
  });

  it('escapes the same hidden characters as visibleText, unlike JSON.stringify', () => {
    expect(quotedText('Pay\u2028roll\u202E\n')).toBe('"Pay\\u2028roll\\u202E\\n"');
    expect(JSON.stringify('Pay\u2028roll\u202E')).not.toContain('\\u202E');
  });
});

describe('jsonText', () => {
  it('service text forges lines of main’s terminal text: JSON for the terminal escapes what JSON.stringify leaves raw, and parses back', () => {
    const value = { userName: 'Mallory\u007f\u009b2J\u202Edrow\u2028\u2029\u200B\u{E0041}', lines: ['a\nb'], n: 1 };
    const text = jsonText(value);
    expect(JSON.stringify(value, null, 2)).toMatch(/[\u202E\u2028]/);
    expect(text).not.toMatch(/[\p{Cf}\p{Zl}\p{Zp}\u007F-\u009F]/u);
    expect(text).toContain('"userName": "Mallory\\u007F\\u009B2J\\u202Edrow\\u2028\\u2029\\u200B\\uDB40\\uDC41"');
    expect(JSON.parse(text)).toEqual(value);
    expect(text.split('\n')).toHaveLength(JSON.stringify(value, null, 2).split('\n').length);
  });
});
