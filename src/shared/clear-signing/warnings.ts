/** Warnings in words, collected while a request is read; the same subject is warned about once per kind. */
import type { SigningWarning, SigningWarningKind } from './types';

export class Warnings {
  readonly list: SigningWarning[] = [];

  add(kind: SigningWarningKind, message: string, subject?: string): void {
    if (this.list.some((warning) => warning.kind === kind && warning.subject === subject && (subject !== undefined || warning.message === message))) return;
    this.list.push({ kind, message, ...(subject === undefined ? {} : { subject }) });
  }
}
