import { describe, expect, it } from 'vitest';
import {
  MAX_SPAN_MINUTES,
  cronSpanContains,
  parseCronSchedule,
  parseSpanDuration,
  parseTimeZone,
  type CronArgumentResult,
  type CronSpan,
} from '../../../src/shared/policy';

function accepted<T>(result: CronArgumentResult<T>): T {
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.value;
}

function refusal<T>(result: CronArgumentResult<T>): { reason: string; start: number; length: number } {
  if (result.ok) throw new Error('expected a refusal');
  return result;
}

function span(cron: string, duration: string, timeZone: string): CronSpan {
  return {
    schedule: accepted(parseCronSchedule(cron)),
    durationMinutes: accepted(parseSpanDuration(duration)),
    timeZone: accepted(parseTimeZone(timeZone)),
  };
}

const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad test time ${iso}`);
  return ms;
};

/** The instants of `times` inside the span, to assert windows compactly. */
function inside(cronSpan: CronSpan, times: readonly string[]): string[] {
  return times.filter((time) => cronSpanContains(cronSpan, at(time)));
}

describe('parseCronSchedule', () => {
  it('reads numbers, ranges, lists and *', () => {
    const schedule = accepted(parseCronSchedule('0,30 9-11,13 * 1-3,12 *'));
    expect([...schedule.minutes]).toEqual([0, 30]);
    expect([...schedule.hours]).toEqual([9, 10, 11, 13]);
    expect(schedule.daysOfMonth.size).toBe(31);
    expect([...schedule.months]).toEqual([1, 2, 3, 12]);
    expect(schedule.daysOfWeek.size).toBe(7);
    expect(schedule.dayOfMonthRestricted).toBe(false);
    expect(schedule.dayOfWeekRestricted).toBe(false);
  });

  it('takes 7 as Sunday, like 0', () => {
    expect([...accepted(parseCronSchedule('0 0 * * 5-7')).daysOfWeek].sort()).toEqual([0, 5, 6]);
    expect([...accepted(parseCronSchedule('0 0 * * 7')).daysOfWeek]).toEqual([0]);
  });

  it('counts a day field as restricted whenever it is not a lone *', () => {
    const schedule = accepted(parseCronSchedule('0 0 1-31 * 1'));
    expect(schedule.dayOfMonthRestricted).toBe(true);
    expect(schedule.dayOfWeekRestricted).toBe(true);
  });

  it.each([
    ['60 * * * *', /minute field: 60 is outside 0-59/, 0, 2],
    ['0 24 * * *', /hour field: 24 is outside 0-23/, 2, 2],
    ['0 0 0 * *', /day-of-month field: 0 is outside 1-31/, 4, 1],
    ['0 0 * 13 *', /month field: 13 is outside 1-12/, 6, 2],
    ['0 0 * * 8', /day-of-week field: 8 is outside 0-7, 0 and 7 both Sunday/, 8, 1],
    ['*/15 * * * *', /minute field: steps \('\/'\) are not supported/, 0, 4],
    ['0 9 * * MON', /day-of-week field: names are not supported/, 8, 3],
    ['0 9 * JAN *', /month field: names are not supported/, 6, 3],
    ['@daily', /cron macros like @daily are not supported/, 0, 6],
    ['0 0 9 * * *', /has 6; a seconds field is not supported/, 0, 11],
    ['0 9 * *', /a cron schedule has 5 fields \(minute hour day-of-month month day-of-week\), this one has 4/, 0, 7],
    ['0 17-9 * * *', /hour field: the range 17-9 runs backwards/, 2, 4],
    ['0 1,,2 * * *', /hour field: empty list item/, 4, 0],
    ['0 *,1 * * *', /hour field: '\*' must stand alone/, 2, 1],
    ['0 9 ? * *', /day-of-month field: '\?' is not a number/, 4, 1],
    ['0 0 30,31 2 *', /never fires: no chosen month has day 30, 31/, 4, 7],
  ])('refuses %s', (cron, reason, start, length) => {
    const refused = refusal(parseCronSchedule(cron));
    expect(refused.reason).toMatch(reason);
    expect({ start: refused.start, length: refused.length }).toEqual({ start, length });
  });

  it('accepts Feb 29 and a day-of-month that only some chosen months have', () => {
    expect(parseCronSchedule('0 0 29 2 *').ok).toBe(true);
    expect(parseCronSchedule('0 0 31 4,5 *').ok).toBe(true);
    // With a day of week too, the days are OR-ed, so the schedule still fires on Mondays in February.
    expect(parseCronSchedule('0 0 30 2 1').ok).toBe(true);
  });
});

describe('parseSpanDuration', () => {
  it.each([
    ['30m', 30],
    ['8h', 480],
    ['1d', 1440],
    ['1h30m', 90],
    ['1d12h', 2160],
    ['0h45m', 45],
    ['7d', MAX_SPAN_MINUTES],
    ['168h', MAX_SPAN_MINUTES],
  ])('%s is %i minutes', (text, minutes) => {
    expect(accepted(parseSpanDuration(text))).toBe(minutes);
  });

  it.each([
    ['', /'' is not a duration/],
    ['8', /'8' is not a duration/],
    ['1.5h', /not a duration/],
    ['30m1h', /not a duration: .*in that order/],
    ['1h1h', /not a duration/],
    ['8 h', /not a duration/],
    ['-1h', /not a duration/],
    ['1s', /not a duration/],
    ['0m', /must be longer than 0/],
    ['0d0h0m', /must be longer than 0/],
    ['7d1m', /longer than the 7-day limit/],
    ['10081m', /longer than the 7-day limit/],
  ])('refuses %j', (text, reason) => {
    expect(refusal(parseSpanDuration(text)).reason).toMatch(reason);
  });
});

describe('parseTimeZone', () => {
  it('accepts IANA names', () => {
    for (const zone of ['America/New_York', 'Asia/Kathmandu', 'UTC', 'Europe/Paris']) expect(accepted(parseTimeZone(zone))).toBe(zone);
  });

  it.each([
    ['Mars/Olympus_Mons', /unknown time zone 'Mars\/Olympus_Mons'/],
    ['+05:45', /'\+05:45' is not a time zone name/],
    ['', /'' is not a time zone name/],
  ])('refuses %j', (zone, reason) => {
    expect(refusal(parseTimeZone(zone)).reason).toMatch(reason);
  });
});

describe('cronSpanContains', () => {
  it('is true from each fire time, inclusive, to fire + duration, exclusive', () => {
    const weekdaysAtNine = span('0 9 * * 1-5', '8h', 'UTC');
    expect(
      inside(weekdaysAtNine, [
        '2026-03-02T08:59:59.999Z', // Monday
        '2026-03-02T09:00:00.000Z',
        '2026-03-02T16:59:59.999Z',
        '2026-03-02T17:00:00.000Z',
        '2026-03-07T10:00:00.000Z', // Saturday
      ]),
    ).toEqual(['2026-03-02T09:00:00.000Z', '2026-03-02T16:59:59.999Z']);
  });

  it('ORs day-of-month and day-of-week when both are restricted', () => {
    // The 13th of March 2026 is a Friday; the 15th a Sunday; the 2nd a Monday.
    const thirteenthOrMonday = span('0 12 13 * 1', '1h', 'UTC');
    expect(inside(thirteenthOrMonday, ['2026-03-13T12:30:00Z', '2026-03-02T12:30:00Z', '2026-03-15T12:30:00Z', '2026-03-03T12:30:00Z'])).toEqual([
      '2026-03-13T12:30:00Z',
      '2026-03-02T12:30:00Z',
    ]);
    // With day-of-week left as *, only the day of month applies (and the reverse).
    expect(inside(span('0 12 13 * *', '1h', 'UTC'), ['2026-03-13T12:30:00Z', '2026-03-02T12:30:00Z'])).toEqual(['2026-03-13T12:30:00Z']);
    expect(inside(span('0 12 * * 1', '1h', 'UTC'), ['2026-03-13T12:30:00Z', '2026-03-02T12:30:00Z'])).toEqual(['2026-03-02T12:30:00Z']);
  });

  it('honours lists and ranges in every field', () => {
    const schedule = span('15,45 8-9 1-10 3,5 *', '10m', 'UTC');
    expect(
      inside(schedule, [
        '2026-03-05T08:20:00Z',
        '2026-03-05T09:50:00Z',
        '2026-03-05T10:20:00Z', // hour 10 is not in 8-9
        '2026-03-05T08:30:00Z', // 15 minutes after :15, past the 10-minute window
        '2026-03-11T08:20:00Z', // the 11th is not in 1-10
        '2026-04-05T08:20:00Z', // April is not in 3,5
        '2026-05-01T09:16:00Z',
      ]),
    ).toEqual(['2026-03-05T08:20:00Z', '2026-03-05T09:50:00Z', '2026-05-01T09:16:00Z']);
  });

  it('keeps a window open across midnight and across the end of a week', () => {
    const saturdayNight = span('0 22 * * 6', '1d', 'UTC');
    // Saturday 2026-03-07 22:00 → Sunday 2026-03-08 22:00, crossing midnight into the next week (Sunday = 0).
    expect(
      inside(saturdayNight, ['2026-03-07T21:59:00Z', '2026-03-07T23:30:00Z', '2026-03-08T03:00:00Z', '2026-03-08T21:59:00Z', '2026-03-08T22:00:00Z']),
    ).toEqual(['2026-03-07T23:30:00Z', '2026-03-08T03:00:00Z', '2026-03-08T21:59:00Z']);
    // New Year's Eve: the window crosses a month and a year boundary.
    expect(inside(span('0 23 31 12 *', '2h', 'UTC'), ['2026-12-31T23:10:00Z', '2027-01-01T00:59:00Z', '2027-01-01T01:00:00Z'])).toEqual([
      '2026-12-31T23:10:00Z',
      '2027-01-01T00:59:00Z',
    ]);
  });

  it('reads the schedule on the zone’s wall clock, through daylight saving time', () => {
    const nineInNewYork = span('0 9 * * *', '1h', 'America/New_York');
    // Summer (EDT, UTC−4): 09:00 is 13:00Z. Winter (EST, UTC−5): 14:00Z.
    expect(inside(nineInNewYork, ['2026-07-01T13:00:00Z', '2026-07-01T14:00:00Z'])).toEqual(['2026-07-01T13:00:00Z']);
    expect(inside(nineInNewYork, ['2026-01-15T13:00:00Z', '2026-01-15T14:00:00Z'])).toEqual(['2026-01-15T14:00:00Z']);
  });

  it('spring forward (2026-03-08, New York): a skipped wall time does not fire; a window spans the shorter night', () => {
    // 02:30 does not exist that day: clocks go from 01:59 EST to 03:00 EDT (07:00Z).
    const halfPastTwo = span('30 2 * * *', '30m', 'America/New_York');
    expect(inside(halfPastTwo, ['2026-03-07T07:45:00Z', '2026-03-08T07:45:00Z', '2026-03-08T06:45:00Z', '2026-03-09T06:45:00Z'])).toEqual([
      '2026-03-07T07:45:00Z',
      '2026-03-09T06:45:00Z',
    ]);
    // Midnight EST (05:00Z) plus 4 hours of elapsed time ends at 09:00Z, which is 05:00 EDT on the wall clock.
    const fromMidnight = span('0 0 8 3 *', '4h', 'America/New_York');
    expect(inside(fromMidnight, ['2026-03-08T04:59:00Z', '2026-03-08T05:00:00Z', '2026-03-08T08:59:00Z', '2026-03-08T09:00:00Z'])).toEqual([
      '2026-03-08T05:00:00Z',
      '2026-03-08T08:59:00Z',
    ]);
  });

  it('fall back (2026-11-01, New York): a repeated wall time fires once, at its first occurrence', () => {
    // 01:30 is shown at 05:30Z (EDT) and again at 06:30Z (EST).
    const halfPastOne = span('30 1 * * *', '30m', 'America/New_York');
    expect(inside(halfPastOne, ['2026-11-01T05:40:00Z', '2026-11-01T06:40:00Z', '2026-11-02T06:40:00Z'])).toEqual([
      '2026-11-01T05:40:00Z',
      '2026-11-02T06:40:00Z',
    ]);
    // 09:00 after the change is EST: 14:00Z.
    expect(inside(span('0 9 * * *', '1m', 'America/New_York'), ['2026-10-31T13:00:00Z', '2026-11-01T14:00:00Z'])).toEqual([
      '2026-10-31T13:00:00Z',
      '2026-11-01T14:00:00Z',
    ]);
  });

  it('handles a +05:45 zone (Asia/Kathmandu): 09:00 local is 03:15Z', () => {
    const nineInKathmandu = span('0 9 * * *', '15m', 'Asia/Kathmandu');
    expect(inside(nineInKathmandu, ['2026-06-01T03:14:59Z', '2026-06-01T03:15:00Z', '2026-06-01T03:29:59Z', '2026-06-01T03:30:00Z'])).toEqual([
      '2026-06-01T03:15:00Z',
      '2026-06-01T03:29:59Z',
    ]);
    // Local midnight (18:15Z the day before) starts the day-of-month: the 1st in Kathmandu begins on the 31st in UTC.
    expect(inside(span('0 0 1 * *', '30m', 'Asia/Kathmandu'), ['2026-05-31T18:20:00Z', '2026-06-01T00:20:00Z'])).toEqual(['2026-05-31T18:20:00Z']);
  });

  it('finds an offset change inside a UTC hour (Australia/Lord_Howe moves by 30 minutes at 15:30Z)', () => {
    // 2026-10-04 02:00 LHST (+10:30) becomes 02:30 LHDT (+11:00) at 2026-10-03T15:30Z; 03:00 local is 16:00Z.
    const threeOClock = span('0 3 * * *', '1m', 'Australia/Lord_Howe');
    expect(inside(threeOClock, ['2026-10-02T16:30:00Z', '2026-10-03T16:00:00Z', '2026-10-03T16:30:00Z'])).toEqual([
      '2026-10-02T16:30:00Z',
      '2026-10-03T16:00:00Z',
    ]);
  });

  it('reaches back a full 7 days, and no further', () => {
    const weekly = span('0 0 * * 1', '7d', 'UTC');
    // Monday 2026-03-02 00:00 opens a window that the next Monday's fire time takes over.
    expect(cronSpanContains(weekly, at('2026-03-08T23:59:59Z'))).toBe(true);
    const yearly = span('0 0 1 1 *', '7d', 'UTC');
    expect(inside(yearly, ['2026-01-07T23:59:59.999Z', '2026-01-08T00:00:00Z'])).toEqual(['2026-01-07T23:59:59.999Z']);
  });

  it('scans a 7-day window without asking Intl per minute', () => {
    const rare = span('0 0 29 2 *', '7d', 'America/New_York');
    const started = performance.now();
    for (let day = 0; day < 20; day += 1) expect(cronSpanContains(rare, at('2026-06-10T00:00:00Z') + day * 86_400_000)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
