/**
 * IPC schemas of policies in words: an expression cut into pieces, its ids named and its amounts in units (main's
 * policy reading, `src/shared/describe/policy-reading.ts`); an update's change token by token; and why a request is
 * denied or waits for votes (the sub-expressions that decided, with the values they read). Checked against the
 * reader's types, so a change there is a type error here rather than a screen that silently drops a field.
 */
import { z } from 'zod';
import type { DiffPiece } from '../describe/policy-diff';
import type { ExpressionPiece } from '../describe/policy-reading';

const text = z.string().max(100_000);

export const expressionPiece = z.strictObject({
  text,
  name: text.optional(),
  kind: z.enum(['user', 'tag', 'wallet', 'private key', 'policy']).optional(),
  units: text.optional(),
  note: text.optional(),
}) satisfies z.ZodType<ExpressionPiece>;
export type ExpressionPieceView = z.infer<typeof expressionPiece>;

const pieces = z.array(expressionPiece).max(20_000);

/** A policy's expressions in words; empty pieces for an empty field. */
export const policyReading = z.strictObject({ condition: pieces, consensus: pieces, time: pieces });
export type PolicyReadingView = z.infer<typeof policyReading>;

export const diffPiece = expressionPiece.extend({ change: z.enum(['same', 'removed', 'added']) }) satisfies z.ZodType<DiffPiece>;

/** One changed field of a policy update, token by token. */
export const policyFieldChange = z.strictObject({
  field: z.enum(['name', 'effect', 'condition', 'consensus', 'time', 'notes']),
  label: z.string(),
  pieces: z.array(diffPiece).max(40_000),
});
export type PolicyFieldChangeView = z.infer<typeof policyFieldChange>;

const outcome = z.enum(['true', 'false', 'error']);

/** Why one policy decided a denial or a wait: the field, and the sub-expressions that decided it with what they read. */
export const policyWhy = z.strictObject({
  policyId: z.string(),
  policyName: z.string(),
  field: z.enum(['condition', 'consensus', 'time']),
  outcome,
  parts: z.array(
    z.strictObject({
      pieces,
      line: z.number().int().positive(),
      column: z.number().int().positive(),
      outcome,
      reads: z.array(z.strictObject({ expression: text, value: text })),
      error: text.optional(),
    }),
  ),
});
export type PolicyWhyView = z.infer<typeof policyWhy>;
