/**
 * What a describer fills in and the table that holds them. A describer reads the intent loosely (a field of the
 * wrong shape is left out, never thrown on), because it runs on whatever the service recorded, including activities
 * of older and newer versions.
 */
import type { activityOperations } from '../api/activities';
import type { ActivityType } from '../api/activity-types';
import type { Names } from './names';
import type { Change, Deletion, ExportDescription, Fact, OrganizationLookup, PolicyReader, Ref, SigningDecoder, SigningRequest } from './types';

export type Fields = Readonly<Record<string, unknown>>;

/**
 * What a describer fills in; the title defaults to the type in words and the summary to the first change or fact.
 * A signing describer sets its own title and summary first: a clear-signing reading then replaces them.
 */
export class Draft {
  title: string | undefined;
  summary: string | undefined;
  readonly facts: Fact[] = [];
  readonly changes: Change[] = [];
  readonly deletions: Deletion[] = [];
  readonly warnings: string[] = [];
  exports: ExportDescription | undefined;
  signing: SigningRequest | undefined;
  largeValue: string | undefined;

  constructor(
    readonly type: string,
    readonly names: Names,
    readonly decodeSigning: SigningDecoder | undefined,
    /** The recorded intent, whole (`{signTransactionIntentV2: …}`), for the clear-signing decoder. */
    readonly intent: Readonly<Record<string, unknown>>,
    /** The activity already ran or never will: the lookup shows the organization after it, not before. */
    readonly settled: boolean,
    readonly readPolicy: PolicyReader | undefined,
  ) {}

  /** A policy field's expression as people read it; `whenEmpty` words an empty one (no constraint). */
  policyExpression(value: string, kind: Parameters<PolicyReader>[1], whenEmpty: string): Ref {
    if (value.trim() === '') return { text: whenEmpty };
    return { text: this.readPolicy?.(value, kind) ?? value, code: true };
  }

  get lookup(): OrganizationLookup {
    return this.names.lookup;
  }

  fact(label: string, ...value: Ref[]): void {
    if (value.length > 0) this.facts.push({ label, value });
  }

  /** `before` [] is "none" (a thing created); undefined is "not known". */
  change(label: string, before: readonly Ref[] | undefined, after: readonly Ref[]): void {
    this.changes.push({ label, before, after });
  }

  /** State read from the lookup as the "before" of a change: unknown once the activity has settled. */
  beforeFrom<T>(state: T | undefined): T | undefined {
    return this.settled ? undefined : state;
  }

  warn(sentence: string): void {
    this.warnings.push(sentence);
  }
}

export type Describer = (fields: Fields, draft: Draft) => void;

/** The activity types the operation table submits: each has a describer, or the table does not compile. */
export type DescribedType = (typeof activityOperations)[keyof typeof activityOperations]['activityType'];

/** A family's describers, by the activity types it handles (older or newer types the table does not name too). */
export type Describers = Readonly<Partial<Record<ActivityType, Describer>>>;

/** Every described type with its describer: a table without one of them is a type error. */
export type DescriberTable = Readonly<Record<DescribedType, Describer>> & Describers;
