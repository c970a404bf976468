/**
 * Text checks for untrusted input that run in linear time. A backtracking pattern over a long attacker-chosen
 * string blocks the event loop (and with the Sandbox inside Electron main, the whole app), so these check the
 * length first and then scan each character a bounded number of times.
 */

/** The longest email address SMTP can carry (a 256-octet path minus its angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

const WHITESPACE = /\s/;

/**
 * `local@domain.tld`: at most 254 characters, exactly one `@`, no whitespace, a non-empty local part, and a dot
 * inside the domain with text on both sides — the shape the service has always accepted, checked without a pattern
 * that backtracks.
 */
export function isEmailAddress(text: string): boolean {
  if (text.length > MAX_EMAIL_LENGTH || WHITESPACE.test(text)) return false;
  const at = text.indexOf('@');
  if (at < 1 || text.indexOf('@', at + 1) !== -1) return false;
  const domain = text.slice(at + 1);
  const dot = domain.indexOf('.', 1);
  return dot !== -1 && dot < domain.length - 1;
}

/** `text` without the run of `char` at its end (`/x+$/` rescans the run from every start: quadratic). */
export function trimTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end -= 1;
  return text.slice(0, end);
}
