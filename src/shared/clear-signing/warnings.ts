/** Warnings in words, collected while a request is read; one warning per kind and subject (or message, without one). */
import type { LookAlike, SigningWarning, SigningWarningKind } from './types';

/** Kinds that alone should stop a signature: the card shows them first and main asks a second question. */
const CRITICAL_KINDS: ReadonlySet<SigningWarningKind> = new Set(['LOOK_ALIKE_ADDRESS', 'SAFE_DELEGATECALL']);

export class Warnings {
  private readonly added: SigningWarning[] = [];
  private readonly seen = new Set<string>();

  /** Critical warnings first, each group in the order found. */
  get list(): SigningWarning[] {
    return [...this.added.filter((warning) => warning.severity === 'critical'), ...this.added.filter((warning) => warning.severity !== 'critical')];
  }

  add(kind: SigningWarningKind, message: string, subject?: string, lookAlike?: LookAlike): void {
    const key = `${kind} ${subject ?? message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.added.push({
      kind,
      message,
      ...(subject === undefined ? {} : { subject }),
      ...(CRITICAL_KINDS.has(kind) ? { severity: 'critical' as const } : {}),
      ...(lookAlike === undefined ? {} : { lookAlike }),
    });
  }
}
