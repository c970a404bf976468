/**
 * `CronSpan('<cron>', '<duration>', '<IANA time zone>')` of a policy's `time` expression
 * (docs/service.md#policy-language): true while the clock lies in [fire, fire + duration) for some fire time of the
 * cron schedule, read in that zone.
 *
 * Decisions where Turnkey's docs are silent:
 * - Day-of-week accepts 0–7, both 0 and 7 meaning Sunday (as Vixie cron does).
 * - A duration may combine units in the order d, h, m (`1h30m`, `1d12h`); each unit at most once.
 * - Wall-clock times skipped when clocks go forward (02:30 on a US spring-forward day) do not fire; times shown
 *   twice when clocks go back fire once, at their first occurrence (as cron runs a fixed-time job once).
 */

import { QkError } from '../errors';

export interface CronSchedule {
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  /** 0 = Sunday … 6 = Saturday; a written 7 is stored as 0. */
  readonly daysOfWeek: ReadonlySet<number>;
  /** Whether the field was written as something other than `*`: Vixie cron ORs the two day fields only then. */
  readonly dayOfMonthRestricted: boolean;
  readonly dayOfWeekRestricted: boolean;
}

export interface CronSpan {
  readonly schedule: CronSchedule;
  readonly durationMinutes: number;
  readonly timeZone: string;
}

/** A parsed argument, or why it is refused and which characters of the argument text are at fault. */
export type CronArgumentResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string; readonly start: number; readonly length: number };

/** Longest window a CronSpan may open (docs/service.md#policy-language: duration ≤ 7 days). */
export const MAX_SPAN_MINUTES = 7 * 24 * 60;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MINUTES = 24 * 60;
/** Larger than any daylight-saving shift in the tz database (Antarctica/Troll's 2 hours). */
const MAX_CLOCK_SHIFT_MS = 3 * HOUR_MS;

interface FieldRule {
  readonly name: string;
  readonly min: number;
  readonly max: number;
}

const FIELD_RULES: readonly FieldRule[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 7 },
];
const FIELD_NAMES = FIELD_RULES.map((rule) => rule.name).join(' ');

/** Days in each month of a leap year: a day-of-month that fits none of the chosen months never fires. */
const LONGEST_MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

type Refusal = Extract<CronArgumentResult<never>, { ok: false }>;
const refuse = (reason: string, start: number, length: number): Refusal => ({ ok: false, reason, start, length });

/** Parses a 5-field cron schedule: numbers, ranges `a-b`, lists `a,b` and `*`; no steps, names, macros or seconds. */
export function parseCronSchedule(text: string): CronArgumentResult<CronSchedule> {
  if (text.trimStart().startsWith('@')) {
    return refuse(`cron macros like ${text.trim()} are not supported: write the 5 fields (${FIELD_NAMES})`, 0, text.length);
  }
  const fields = [...text.matchAll(/\S+/g)].map((match) => ({ text: match[0], start: match.index }));
  if (fields.length !== FIELD_RULES.length) {
    const seconds = fields.length === 6 ? '; a seconds field is not supported' : '';
    return refuse(`a cron schedule has 5 fields (${FIELD_NAMES}), this one has ${fields.length}${seconds}`, 0, text.length);
  }
  const values: ReadonlySet<number>[] = [];
  for (const [index, rule] of FIELD_RULES.entries()) {
    const field = fields[index]!;
    const parsed = parseField(field.text, field.start, rule);
    if (!parsed.ok) return parsed;
    values.push(parsed.value);
  }
  const [minutes, hours, daysOfMonth, months, writtenDaysOfWeek] = values as [
    ReadonlySet<number>,
    ReadonlySet<number>,
    ReadonlySet<number>,
    ReadonlySet<number>,
    ReadonlySet<number>,
  ];
  const schedule: CronSchedule = {
    minutes,
    hours,
    daysOfMonth,
    months,
    daysOfWeek: new Set([...writtenDaysOfWeek].map((day) => day % 7)),
    dayOfMonthRestricted: fields[2]!.text !== '*',
    dayOfWeekRestricted: fields[4]!.text !== '*',
  };
  const dayOfMonthAlone = schedule.dayOfMonthRestricted && !schedule.dayOfWeekRestricted;
  if (dayOfMonthAlone && ![...months].some((month) => [...daysOfMonth].some((day) => day <= LONGEST_MONTH_DAYS[month - 1]!))) {
    return refuse(
      `the schedule never fires: no chosen month has day ${[...daysOfMonth].join(', ')}`,
      fields[2]!.start,
      fields[3]!.start + fields[3]!.text.length - fields[2]!.start,
    );
  }
  return { ok: true, value: schedule };
}

function parseField(text: string, start: number, rule: FieldRule): CronArgumentResult<ReadonlySet<number>> {
  const all = (): Set<number> => new Set(Array.from({ length: rule.max - rule.min + 1 }, (_, offset) => rule.min + offset));
  if (text === '*') return { ok: true, value: all() };
  const values = new Set<number>();
  let itemStart = start;
  for (const item of text.split(',')) {
    const problem = parseItem(item, itemStart, rule, values);
    if (problem !== undefined) return problem;
    itemStart += item.length + 1;
  }
  return { ok: true, value: values };
}

/** Adds the values of one list item (`5` or `1-5`) to `into`, or says what is wrong with it. */
function parseItem(item: string, start: number, rule: FieldRule, into: Set<number>): Refusal | undefined {
  const field = `${rule.name} field`;
  const range = `${rule.min}-${rule.max}${rule.name === 'day-of-week' ? ', 0 and 7 both Sunday' : ''}`;
  if (item === '') return refuse(`${field}: empty list item; separate values with single commas, like 1,15`, start, 0);
  const match = /^(\d+)(?:-(\d+))?$/.exec(item);
  if (match === null) {
    const why = item.includes('/')
      ? "steps ('/') are not supported: list the values instead, like 0,15,30,45"
      : /[a-z]/i.test(item)
        ? `names are not supported: use numbers (${range})`
        : item.includes('*')
          ? "'*' must stand alone as the whole field"
          : `'${item}' is not a number, a range like 1-5 or a list like 1,3,5`;
    return refuse(`${field}: ${why}`, start, item.length);
  }
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  for (const value of [first, last]) {
    if (value < rule.min || value > rule.max) return refuse(`${field}: ${value} is outside ${range}`, start, item.length);
  }
  if (first > last) return refuse(`${field}: the range ${item} runs backwards; write ${last}-${first} or a list`, start, item.length);
  for (let value = first; value <= last; value += 1) into.add(value);
  return undefined;
}

/** Parses `8h`, `30m`, `1d`, `1h30m`… into minutes; more than 0 and at most 7 days. */
export function parseSpanDuration(text: string): CronArgumentResult<number> {
  const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$/.exec(text);
  if (match === null || text === '') {
    return refuse(
      `'${text}' is not a duration: write a whole number of days, hours and/or minutes in that order, like 8h, 30m, 1d or 1h30m`,
      0,
      text.length,
    );
  }
  const [days, hours, minutes] = match.slice(1, 4).map((part) => Number(part ?? 0)) as [number, number, number];
  const total = days * DAY_MINUTES + hours * 60 + minutes;
  if (total === 0) return refuse('the duration must be longer than 0', 0, text.length);
  if (total > MAX_SPAN_MINUTES) return refuse(`the duration ${text} is longer than the 7-day limit`, 0, text.length);
  return { ok: true, value: total };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter that reads wall-clock fields in `timeZone`; throws RangeError for a zone Intl does not know. */
function wallClockFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Accepts an IANA time zone name (`America/New_York`, `UTC`); offsets like `+05:00` are not names. */
export function parseTimeZone(text: string): CronArgumentResult<string> {
  const example = "use an IANA name like 'America/New_York', 'Asia/Kathmandu' or 'UTC'";
  if (!/^[A-Za-z]/.test(text)) return refuse(`'${text}' is not a time zone name: ${example}`, 0, text.length);
  try {
    wallClockFormatter(text);
  } catch (error) {
    if (error instanceof RangeError) return refuse(`unknown time zone '${text}': ${example}`, 0, text.length);
    throw error;
  }
  return { ok: true, value: text };
}

/** Whether `epochMs` lies in [fire, fire + duration) for some fire time of the schedule in the span's zone. */
export function cronSpanContains(span: CronSpan, epochMs: number): boolean {
  const offsets = new ZoneOffsets(span.timeZone);
  const windowStart = epochMs - span.durationMinutes * MINUTE_MS;
  const day = new LocalDayCache();
  // Fire times are whole minutes; walk back from the latest one that can have started.
  for (let fire = Math.floor(epochMs / MINUTE_MS) * MINUTE_MS; fire > windowStart; fire -= MINUTE_MS) {
    const localMinutes = fire / MINUTE_MS + offsets.minutesAt(fire);
    const minuteOfDay = ((localMinutes % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
    const { schedule } = span;
    if (!schedule.minutes.has(minuteOfDay % 60) || !schedule.hours.has(Math.floor(minuteOfDay / 60))) continue;
    if (!dayMatches(schedule, day.of(Math.floor(localMinutes / DAY_MINUTES)))) continue;
    if (!repeatsEarlierWallTime(offsets, fire)) return true;
  }
  return false;
}

interface LocalDay {
  readonly dayOfMonth: number;
  readonly month: number;
  readonly dayOfWeek: number;
}

/** Calendar fields of a local day number (days since 1970-01-01 on the wall clock), computed once per day. */
class LocalDayCache {
  private dayNumber = Number.NaN;
  private fields: LocalDay = { dayOfMonth: 0, month: 0, dayOfWeek: 0 };

  of(dayNumber: number): LocalDay {
    if (dayNumber !== this.dayNumber) {
      const date = new Date(dayNumber * DAY_MINUTES * MINUTE_MS);
      this.dayNumber = dayNumber;
      this.fields = { dayOfMonth: date.getUTCDate(), month: date.getUTCMonth() + 1, dayOfWeek: date.getUTCDay() };
    }
    return this.fields;
  }
}

function dayMatches(schedule: CronSchedule, day: LocalDay): boolean {
  if (!schedule.months.has(day.month)) return false;
  const byDayOfMonth = schedule.daysOfMonth.has(day.dayOfMonth);
  const byDayOfWeek = schedule.daysOfWeek.has(day.dayOfWeek);
  if (schedule.dayOfMonthRestricted && schedule.dayOfWeekRestricted) return byDayOfMonth || byDayOfWeek;
  return byDayOfMonth && byDayOfWeek;
}

/** Whether the wall-clock minute shown at `fire` was shown before, in the hour repeated when clocks go back. */
function repeatsEarlierWallTime(offsets: ZoneOffsets, fire: number): boolean {
  const offset = offsets.minutesAt(fire);
  const before = offsets.minutesAt(fire - MAX_CLOCK_SHIFT_MS);
  if (before <= offset) return false;
  return offsets.minutesAt(fire - (before - offset) * MINUTE_MS) === before;
}

/**
 * UTC offsets of one zone, asking Intl once per UTC hour (and a few times more in an hour where the offset
 * changes, to find the minute it changes at) rather than once per minute of a window up to 7 days long.
 */
class ZoneOffsets {
  private readonly formatter: Intl.DateTimeFormat;
  private readonly byInstant = new Map<number, number>();
  private readonly byHour = new Map<number, { before: number; after: number; changesAt: number }>();

  constructor(timeZone: string) {
    this.formatter = wallClockFormatter(timeZone);
  }

  /** The offset in minutes (local − UTC) in force at `epochMs`. */
  minutesAt(epochMs: number): number {
    const hourStart = Math.floor(epochMs / HOUR_MS) * HOUR_MS;
    let hour = this.byHour.get(hourStart);
    if (hour === undefined) {
      hour = this.resolveHour(hourStart);
      this.byHour.set(hourStart, hour);
    }
    return epochMs < hour.changesAt ? hour.before : hour.after;
  }

  private resolveHour(hourStart: number): { before: number; after: number; changesAt: number } {
    const before = this.askIntl(hourStart);
    const after = this.askIntl(hourStart + HOUR_MS);
    // Offsets change on whole minutes (some zones at :30 or :45 UTC), so the change lies in (low, high].
    let low = hourStart;
    let high = hourStart + HOUR_MS;
    if (before !== after) {
      while (high - low > MINUTE_MS) {
        const middle = low + Math.floor((high - low) / MINUTE_MS / 2) * MINUTE_MS;
        if (this.askIntl(middle) === before) low = middle;
        else high = middle;
      }
    }
    return { before, after, changesAt: high };
  }

  private askIntl(epochMs: number): number {
    const known = this.byInstant.get(epochMs);
    if (known !== undefined) return known;
    const parts = new Map(this.formatter.formatToParts(epochMs).map((part) => [part.type, Number(part.value)]));
    const part = (type: Intl.DateTimeFormatPartTypes): number => {
      const value = parts.get(type);
      if (value === undefined) throw new QkError('INTERNAL', `Intl gave no ${type} for ${epochMs} in ${this.formatter.resolvedOptions().timeZone}`);
      return value;
    };
    const wallClock = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
    const offset = Math.round((wallClock - Math.floor(epochMs / 1000) * 1000) / MINUTE_MS);
    this.byInstant.set(epochMs, offset);
    return offset;
  }
}
