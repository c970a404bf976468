/**
 * The one escaper for text that comes from a service or a file (user, tag, wallet, policy and token names, activity
 * fields, notes) before main shows it on any surface: its confirmation dialog, the terminal, a desktop notification,
 * a journal reading. Every character that could end a line, move the cursor, reorder what follows or hide itself is
 * shown as its escape (`\n`, `\u202E`), never acted on, so a name cannot fake a line of main's text or read
 * backwards. Nothing is removed: two names that differ only by an invisible character still read differently.
 */

/**
 * Controls (C0, DEL, C1 with U+0085), line and paragraph separators, format characters (bidi embeddings, overrides
 * and isolates, U+200E/U+200F, U+061C, zero-width characters, U+FEFF), lone surrogates, and the rest of the
 * characters Unicode says to draw as nothing (Default_Ignorable_Code_Point: U+034F, U+3164, variation selectors…).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeHidden(char: string): string {
  const short = SHORT_ESCAPES[char];
  if (short !== undefined) return short;
  const hex = char.codePointAt(0)!.toString(16).toUpperCase();
  return hex.length > 4 ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/** The end of a text cut inside an escape: a backslash and part of what follows it. */
const CUT_ESCAPE = /\\(?:u(?:\{[0-9A-F]*|[0-9A-F]{0,3}))?$/;

/**
 * `text` with every hidden character written as its escape. Printable text (backslashes included) is unchanged, so
 * escaping twice is escaping once.
 */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, escapeHidden);
}

/**
 * visibleText for a place that holds at most `maxLength` characters (a schema's): escapes are longer than what they
 * stand for, so what exceeds it is cut, never inside an escape, and ends in "…".
 */
export function visibleTextWithin(text: string, maxLength: number): string {
  const shown = visibleText(text);
  if (shown.length <= maxLength) return shown;
  return `${shown.slice(0, maxLength - 1).replace(CUT_ESCAPE, '')}…`;
}

/**
 * `text` in double quotes, as a name is quoted inside main's sentences: its quotes and backslashes escaped too, so
 * it cannot close the quote and go on as main's words.
 */
export function quotedText(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&').replace(HIDDEN, escapeHidden)}"`;
}

/**
 * `value` as indented JSON for a terminal: what JSON.stringify leaves raw in its strings (DEL, C1 controls,
 * separators, bidi and invisible characters) written as `\u` escapes, so the text still parses to `value`.
 */
export function jsonText(value: unknown): string {
  const json = JSON.stringify(value, null, 2) as string | undefined;
  if (json === undefined) return String(value);
  // JSON.stringify escapes every line break inside a string: a raw one is the indentation's own.
  return json.replace(HIDDEN, (char) => (char === '\n' ? char : jsonEscape(char)));
}

function jsonEscape(char: string): string {
  let escaped = '';
  for (let index = 0; index < char.length; index += 1) escaped += `\\u${char.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`;
  return escaped;
}
