/** Warnings in words, collected while a request is read; one warning per kind and subject (or message, without one). */
import type { SigningWarning, SigningWarningKind } from './types';

export class Warnings {
  readonly list: SigningWarning[] = [];
  private readonly seen = new Set<string>();

  add(kind: SigningWarningKind, message: string, subject?: string): void {
    const key = `${kind} ${subject ?? message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push({ kind, message, ...(subject === undefined ? {} : { subject }) });
  }
}
