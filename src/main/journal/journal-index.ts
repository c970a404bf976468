/**
 * What main keeps of the verified journal: per entry, only what the Journal screen filters and sorts on (time, action,
 * profile), where its line is in the file and the line's SHA-256, in flat typed arrays (some 55 bytes an entry). The
 * entries themselves, with their readings and proofs (up to kilobytes each), stay in the file: a list or an export
 * reads the lines it answers again and checks them against the hashes kept here. An entry's position is its `seq`, as
 * main verifies its journal from entry 0.
 */
import { QkError } from '../../shared/errors';
import { JOURNAL_ACTIONS, type JournalAction } from '../../shared/journal/format';

const HASH_BYTES = 32;
const ACTION_CODES = new Map<string, number>(JOURNAL_ACTIONS.map((action, code) => [action, code]));

/**
 * Index rows of consecutive entries, as a verification builds them: typed arrays a worker thread transfers without
 * copying. A profile is its position in `profileIds` plus one (0: none).
 */
export interface IndexRows {
  /** Byte offset of each entry's line in the file. */
  offsets: Float64Array;
  /** Where the last row's line ends, its newline included. */
  end: number;
  /** Each entry's `at`, milliseconds since the epoch. */
  times: Float64Array;
  /** Each entry's action, as its position in JOURNAL_ACTIONS. */
  actions: Uint8Array;
  profiles: Uint32Array;
  profileIds: string[];
  /** Each line's SHA-256 (the next entry's `prev`), 32 bytes after another. */
  hashes: Uint8Array;
}

/** Where an entry's line is, and the hash its bytes must still have. */
export interface LineLocation {
  seq: number;
  offset: number;
  /** Without the newline. */
  length: number;
  hash: Uint8Array;
}

export interface IndexFilter {
  /** A family (`vote`) or a whole action (`vote.approved`). */
  action?: string;
  profileId?: string;
  fromMs?: number;
  toMs?: number;
}

/** What the index keeps of a verified entry: what the Journal screen filters on, and where its line is. */
export interface IndexedLine {
  /** The entry's `at`, milliseconds since the epoch. */
  at: number;
  action: JournalAction;
  profileId: string | undefined;
  /** Where its line starts in the file. */
  offset: number;
  /** The line's SHA-256, hex. */
  hash: string;
}

/** The rows of `lines`, consecutive verified lines of the file, the last of which ends (its newline included) at `end`. */
export function indexRows(lines: IndexedLine[], end: number): IndexRows {
  const count = lines.length;
  const rows: IndexRows = {
    offsets: new Float64Array(count),
    end,
    times: new Float64Array(count),
    actions: new Uint8Array(count),
    profiles: new Uint32Array(count),
    profileIds: [],
    hashes: new Uint8Array(count * HASH_BYTES),
  };
  const hashes = Buffer.from(rows.hashes.buffer);
  const profileCodes = new Map<string, number>();
  for (const [row, line] of lines.entries()) {
    rows.offsets[row] = line.offset;
    rows.times[row] = line.at;
    rows.actions[row] = ACTION_CODES.get(line.action)!;
    rows.profiles[row] = line.profileId === undefined ? 0 : internProfile(profileCodes, rows.profileIds, line.profileId);
    hashes.write(line.hash, row * HASH_BYTES, HASH_BYTES, 'hex');
  }
  return rows;
}

/** The rows of consecutive runs of entries, `parts` in file order, as one run. */
export function joinRows(parts: IndexRows[]): IndexRows {
  if (parts.length === 1) return parts[0]!;
  const count = parts.reduce((sum, part) => sum + part.offsets.length, 0);
  const rows: IndexRows = {
    offsets: new Float64Array(count),
    end: parts.at(-1)?.end ?? 0,
    times: new Float64Array(count),
    actions: new Uint8Array(count),
    profiles: new Uint32Array(count),
    profileIds: [],
    hashes: new Uint8Array(count * HASH_BYTES),
  };
  const profileCodes = new Map<string, number>();
  let at = 0;
  for (const part of parts) {
    copyRows(part, rows, at, profileCodes, rows.profileIds);
    at += part.offsets.length;
  }
  return rows;
}

/** The buffers of `rows`, for a postMessage transfer list. */
export function rowBuffers({ offsets, times, actions, profiles, hashes }: IndexRows): ArrayBuffer[] {
  return [offsets, times, actions, profiles, hashes].map((column) => column.buffer as ArrayBuffer);
}

export class JournalIndex {
  /** Entries indexed: entries 0 … count-1. */
  count = 0;
  /** Where the last entry's line ends, its newline included. */
  private end = 0;
  private offsets = new Float64Array(0);
  private times = new Float64Array(0);
  private actions = new Uint8Array(0);
  private profiles = new Uint32Array(0);
  private hashes = new Uint8Array(0);
  private readonly profileIds: string[] = [];
  private readonly profileCodes = new Map<string, number>();

  /** Adds the rows of the entries that verified after the last one indexed. */
  append(rows: IndexRows): void {
    const added = rows.offsets.length;
    if (added === 0) return;
    if (rows.offsets[0] !== this.end) {
      throw new QkError('INTERNAL', `journal index rows start at byte ${rows.offsets[0]}, not at ${this.end} where the index ends; this is a bug`);
    }
    this.reserve(this.count + added);
    const { offsets, times, actions, profiles, hashes } = this;
    copyRows(rows, { offsets, times, actions, profiles, hashes }, this.count, this.profileCodes, this.profileIds);
    this.count += added;
    this.end = rows.end;
  }

  /** The newest `limit` entries matching `filter`, newest first. */
  select(filter: IndexFilter, limit: number): number[] {
    const matches = this.matcher(filter);
    const selected: number[] = [];
    for (let seq = this.count - 1; seq >= 0 && selected.length < limit; seq--) if (matches(seq)) selected.push(seq);
    return selected;
  }

  /** The first and last entries in the time range, and all between them; undefined when none is in it. */
  span(range: Pick<IndexFilter, 'fromMs' | 'toMs'>): { first: number; last: number } | undefined {
    const matches = this.matcher(range);
    let first = 0;
    while (first < this.count && !matches(first)) first++;
    if (first === this.count) return undefined;
    let last = this.count - 1;
    while (!matches(last)) last--;
    return { first, last };
  }

  location(seq: number): LineLocation {
    if (!Number.isInteger(seq) || seq < 0 || seq >= this.count) throw new QkError('INTERNAL', `the journal index has no entry ${seq}; this is a bug`);
    const offset = this.offsets[seq]!;
    const next = seq + 1 < this.count ? this.offsets[seq + 1]! : this.end;
    return { seq, offset, length: next - offset - 1, hash: this.hashes.slice(seq * HASH_BYTES, (seq + 1) * HASH_BYTES) };
  }

  /** Where entry `seq`'s line ends, its newline included. */
  lineEnd(seq: number): number {
    const { offset, length } = this.location(seq);
    return offset + length + 1;
  }

  hashHex(seq: number): string {
    return Buffer.from(this.location(seq).hash).toString('hex');
  }

  private matcher({ action, profileId, fromMs = -Infinity, toMs = Infinity }: IndexFilter): (seq: number) => boolean {
    const actions = new Set(
      JOURNAL_ACTIONS.flatMap((name: JournalAction, code) =>
        action === undefined || name === action || name.startsWith(`${action}.`) ? [code] : [],
      ),
    );
    // 0 is "no profile", which no filter asks for; -1, a profile no entry has, matches none.
    const profile = profileId === undefined ? undefined : (this.profileCodes.get(profileId) ?? -1);
    return (seq) =>
      actions.has(this.actions[seq]!) &&
      (profile === undefined || this.profiles[seq] === profile) &&
      this.times[seq]! >= fromMs &&
      this.times[seq]! <= toMs;
  }

  /** Grows the columns to hold `count` entries, by half again at least: appends come an entry at a time. */
  private reserve(count: number): void {
    if (count <= this.offsets.length) return;
    const capacity = Math.max(count, Math.ceil(this.offsets.length * 1.5), 64);
    this.offsets = copyInto(new Float64Array(capacity), this.offsets);
    this.times = copyInto(new Float64Array(capacity), this.times);
    this.actions = copyInto(new Uint8Array(capacity), this.actions);
    this.profiles = copyInto(new Uint32Array(capacity), this.profiles);
    this.hashes = copyInto(new Uint8Array(capacity * HASH_BYTES), this.hashes);
  }
}

function copyInto<T extends { set(values: ArrayLike<number>): void }>(bigger: T, column: ArrayLike<number>): T {
  bigger.set(column);
  return bigger;
}

/** The columns rows are copied into. */
type Columns = Pick<IndexRows, 'offsets' | 'times' | 'actions' | 'profiles' | 'hashes'>;

/**
 * Copies `rows` into `target` from row `at` on, their profiles recoded as `codes` and `ids` (which grow with profiles
 * new to them) number them.
 */
function copyRows(rows: IndexRows, target: Columns, at: number, codes: Map<string, number>, ids: string[]): void {
  target.offsets.set(rows.offsets, at);
  target.times.set(rows.times, at);
  target.actions.set(rows.actions, at);
  target.hashes.set(rows.hashes, at * HASH_BYTES);
  rows.profiles.forEach((local, row) => {
    target.profiles[at + row] = local === 0 ? 0 : internProfile(codes, ids, rows.profileIds[local - 1]!);
  });
}

/** The code of `profileId` in `ids` (its position plus one), added when new. */
function internProfile(codes: Map<string, number>, ids: string[], profileId: string): number {
  let code = codes.get(profileId);
  if (code === undefined) {
    ids.push(profileId);
    code = ids.length;
    codes.set(profileId, code);
  }
  return code;
}
