/**
 * Random calendars for property tests, each with its busy instants computed independently of the
 * code under test: wall-clock arithmetic and luxon, never ical.js. A calendar holds timed series
 * (daily, or weekly on some weekdays, ending by COUNT, by UNTIL or never, begun up to a year before
 * the windows the tests use) in Europe/Berlin, America/New_York and Australia/Sydney, written with
 * a VTIMEZONE, as a bare IANA TZID, or as Outlook's Windows zone name with or without VTIMEZONE;
 * floating series (the provider's zone); all-day series; EXDATEs; RECURRENCE-ID overrides that
 * move an instance, cancel it or mark it free; and cancelled or transparent series.
 *
 * fc.assert(fc.property(calendarArb(), (cal) => { busyIntervals(cal.ics, …) equals cal.expectedBusy(from, to, zone) }))
 *
 * Kept out of the instants where the oracle would need RFC 5545's rules for wall times that occur
 * twice or never: timed instances start and end between 06:00 and 24:00.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';

export interface BusyInterval {
  startMs: number;
  endMs: number;
}

export interface GeneratedCalendar {
  ics: string;
  /** The merged busy intervals within [fromMs, toMs) for a provider in providerZone. */
  expectedBusy(fromMs: number, toMs: number, providerZone: string): BusyInterval[];
}

type Zone = 'Europe/Berlin' | 'America/New_York' | 'Australia/Sydney';
type ZoneStyle = 'vtimezone' | 'iana' | 'windows' | 'windows-vtimezone';
/** A wall date: days since 1970-01-01; a wall time: minutes since that day's 00:00. */
interface Wall {
  day: number;
  minute: number;
}
interface Override {
  index: number;
  moveDays: number;
  moveMinutes: number;
  durationMin: number;
  effect: 'moved' | 'cancelled' | 'transparent';
}
interface Series {
  uid: string;
  zone: Zone | 'floating';
  allDay: boolean;
  start: Wall;
  /** timed: minutes; all-day: days */
  length: number;
  lengthAs: 'dtend' | 'duration' | 'none';
  /** count: COUNT, or with end 'until' the instance whose start is UNTIL */
  rule: {
    freq: 'DAILY' | 'WEEKLY';
    interval: number;
    weekdays: number[];
    end: 'count' | 'until' | 'never';
    count: number;
  } | null;
  exdates: number[];
  overrides: Override[];
  state: 'busy' | 'cancelled' | 'transparent';
}

const DAY = 86_400_000;
/** 2025-06-01 as days since the epoch: series begin from here to a year and a half later */
const FIRST_DAY = Date.UTC(2025, 5, 1) / DAY;
const WINDOWS: Record<Zone, string> = {
  'Europe/Berlin': 'W. Europe Standard Time',
  'America/New_York': 'Eastern Standard Time',
  'Australia/Sydney': 'AUS Eastern Standard Time',
};
const VTIMEZONES: Record<Zone, string[]> = {
  'Europe/Berlin': rules(
    '+0100',
    '+0200',
    'DAYLIGHT:19700329T020000:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
    'STANDARD:19701025T030000:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  ),
  'America/New_York': rules(
    '-0500',
    '-0400',
    'DAYLIGHT:19700308T020000:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
    'STANDARD:19701101T020000:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
  ),
  'Australia/Sydney': rules(
    '+1000',
    '+1100',
    'STANDARD:19700405T030000:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU',
    'DAYLIGHT:19701004T020000:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU',
  ),
};

/** A VTIMEZONE's STANDARD and DAYLIGHT parts (its TZID line is added where it is used). */
function rules(standard: string, daylight: string, ...parts: string[]): string[] {
  return parts.flatMap((part) => {
    const [kind, start, rrule] = part.split(':');
    const [from, to] = kind === 'DAYLIGHT' ? [standard, daylight] : [daylight, standard];
    return [
      `BEGIN:${kind}`,
      `TZOFFSETFROM:${from}`,
      `TZOFFSETTO:${to}`,
      `DTSTART:${start}`,
      `RRULE:${rrule}`,
      `END:${kind}`,
    ];
  });
}

/** EXDATEs and overrides name one of a series' first MAX_INDEX + 1 instances */
const MAX_INDEX = 40;

const overrideArb = fc.record({
  index: fc.nat(MAX_INDEX),
  moveDays: fc.integer({ min: -2, max: 2 }),
  moveMinutes: fc.integer({ min: -120, max: 120 }),
  durationMin: fc.integer({ min: 5, max: 120 }),
  effect: fc.constantFrom<Override['effect']>('moved', 'moved', 'cancelled', 'transparent'),
});

const seriesArb = (uid: string): fc.Arbitrary<Series> =>
  fc
    .record({
      zone: fc.constantFrom<Series['zone']>('Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'floating'),
      allDay: fc.constantFrom(false, false, false, true),
      startDay: fc.integer({ min: FIRST_DAY, max: FIRST_DAY + 540 }),
      startQuarter: fc.integer({ min: 8 * 4, max: 20 * 4 }), // 08:00..20:00 in quarter hours
      timedLength: fc.integer({ min: 5, max: 120 }),
      dayLength: fc.integer({ min: 1, max: 3 }),
      lengthAs: fc.constantFrom<Series['lengthAs']>('dtend', 'dtend', 'dtend', 'duration', 'duration', 'none'),
      rule: fc.option(
        fc.record({
          freq: fc.constantFrom<'DAILY' | 'WEEKLY'>('DAILY', 'WEEKLY', 'WEEKLY'),
          interval: fc.integer({ min: 1, max: 3 }),
          extraWeekdays: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { maxLength: 3 }),
          end: fc.constantFrom<'count' | 'until' | 'never'>('count', 'until', 'never', 'never'),
          count: fc.integer({ min: 1, max: 80 }),
        }),
        { freq: 4 },
      ),
      exdates: fc.uniqueArray(fc.nat(MAX_INDEX), { maxLength: 4 }),
      overrides: fc.array(overrideArb, { maxLength: 3 }),
      state: fc.constantFrom<Series['state']>(
        'busy',
        'busy',
        'busy',
        'busy',
        'busy',
        'busy',
        'cancelled',
        'transparent',
      ),
    })
    .map((r): Series => {
      const weekday = (r.startDay + 3) % 7; // 0 = Monday (1970-01-01 was a Thursday)
      const allDay = r.allDay;
      return {
        uid,
        zone: r.zone,
        allDay,
        start: { day: r.startDay, minute: allDay ? 0 : r.startQuarter * 15 },
        length: allDay ? r.dayLength : r.timedLength,
        lengthAs: allDay && r.lengthAs === 'none' ? 'none' : r.lengthAs,
        rule: r.rule && {
          freq: r.rule.freq,
          interval: r.rule.interval,
          weekdays: r.rule.freq === 'WEEKLY' ? [...new Set([weekday, ...r.rule.extraWeekdays])].sort() : [],
          end: r.rule.end,
          count: r.rule.count,
        },
        // overrides and EXDATEs of a series only, each instance at most once
        exdates: r.rule ? r.exdates : [],
        overrides: r.rule
          ? r.overrides.filter(
              (o, i, all) => all.findIndex((p) => p.index === o.index) === i && !r.exdates.includes(o.index),
            )
          : [],
        state: r.state,
      };
    });

/** Random calendars of 1 to 6 events; each names the zone style its timed events use. */
export function calendarArb(): fc.Arbitrary<GeneratedCalendar> {
  return fc
    .record({
      style: fc.constantFrom<ZoneStyle>('vtimezone', 'iana', 'windows', 'windows-vtimezone'),
      series: fc
        .integer({ min: 1, max: 6 })
        .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => seriesArb(`gen-${i}@example.org`)))),
    })
    .map(({ style, series }) => generated(style, series));
}

function generated(style: ZoneStyle, series: Series[]): GeneratedCalendar {
  const ics = render(style, series);
  return {
    ics,
    expectedBusy: (fromMs, toMs, providerZone) =>
      merge(
        series.flatMap((s) => busyOf(s, providerZone, fromMs, toMs)),
        fromMs,
        toMs,
      ),
    toString: () => ics,
  } as GeneratedCalendar;
}

// ---- the oracle: wall-clock arithmetic, instants by luxon -------------------------------------

/** A wall time read as UTC: within 14 hours of its instant in any zone. */
const roughMs = (w: Wall) => w.day * DAY + w.minute * 60_000;

/** The wall days (and, timed, minutes) of a series' instances, in order, until one starts days after toMs. */
function instances(s: Series, toMs: number, limit = Infinity): Wall[] {
  const out: Wall[] = [];
  const untilWall = s.rule?.end === 'until' ? untilOf(s) : undefined;
  if (!s.rule) return [s.start];
  const { freq, interval, weekdays } = s.rule;
  const weekStart = s.start.day - ((s.start.day + 3) % 7); // the Monday of DTSTART's week (WKST=MO)
  for (let period = 0; ; period++) {
    const days =
      freq === 'DAILY'
        ? [s.start.day + period * interval]
        : weekdays.map((wd) => weekStart + period * 7 * interval + wd);
    for (const day of days) {
      if (day < s.start.day) continue;
      const w = { day, minute: s.start.minute };
      if ((s.rule.end === 'count' && out.length >= s.rule.count) || out.length >= limit) return out;
      if (untilWall && compareWall(w, untilWall) > 0) return out;
      if (roughMs(w) - 3 * DAY >= toMs) return out;
      out.push(w);
    }
  }
}

/** UNTIL: the start of the instance `count` (inclusive), as the series' own instance list gives it. */
function untilOf(s: Series): Wall {
  const counted: Series = { ...s, rule: { ...s.rule!, end: 'count' } };
  const list = instances(counted, Infinity);
  return list[list.length - 1];
}

const compareWall = (a: Wall, b: Wall) => a.day - b.day || a.minute - b.minute;

function instant(w: Wall, zone: string): number {
  const d = new Date(w.day * DAY + Math.floor(w.minute / 1440) * DAY);
  const minute = w.minute % 1440;
  return DateTime.fromObject(
    {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: Math.floor(minute / 60),
      minute: minute % 60,
    },
    { zone },
  ).toMillis();
}

/** A series' busy spans: its instances while it is busy; its overrides, each by its own status, always. */
function busyOf(s: Series, providerZone: string, fromMs: number, toMs: number): BusyInterval[] {
  const zone = s.zone === 'floating' ? providerZone : s.zone;
  const list = instances(s, toMs);
  // ends before the window, surely (luxon is slow)
  const before = (w: Wall, days: number) => roughMs(w) + (days + 2) * DAY < fromMs;
  const out: BusyInterval[] = [];
  const span = (w: Wall, length: number): BusyInterval =>
    s.allDay
      ? {
          startMs: instant({ day: w.day, minute: 0 }, providerZone),
          endMs: instant({ day: w.day + length, minute: 0 }, providerZone),
        }
      : { startMs: instant(w, zone), endMs: instant(w, zone) + length * 60_000 };
  const length = s.lengthAs === 'none' ? (s.allDay ? 1 : 0) : s.length;
  list.forEach((w, i) => {
    if (
      s.state !== 'busy' ||
      before(w, s.allDay ? length : 1) ||
      s.exdates.includes(i) ||
      s.overrides.some((o) => o.index === i && o.index < list.length)
    )
      return;
    if (length > 0) out.push(span(w, length));
  });
  for (const o of s.overrides) {
    const original = list[o.index];
    if (!original || o.effect !== 'moved') continue;
    out.push(span(moved(s, original, o), s.allDay ? 1 : o.durationMin));
  }
  return out;
}

/** Where an override moves its instance: whole days, and (timed) minutes within 06:00..22:00. */
function moved(s: Series, w: Wall, o: Override): Wall {
  return {
    day: w.day + o.moveDays,
    minute: s.allDay ? 0 : Math.min(22 * 60, Math.max(6 * 60, w.minute + o.moveMinutes)),
  };
}

function merge(intervals: BusyInterval[], fromMs: number, toMs: number): BusyInterval[] {
  const sorted = intervals
    .map((i) => ({ startMs: Math.max(i.startMs, fromMs), endMs: Math.min(i.endMs, toMs) }))
    .filter((i) => i.endMs > i.startMs)
    .sort((a, b) => a.startMs - b.startMs);
  const out: BusyInterval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.startMs <= last.endMs) last.endMs = Math.max(last.endMs, i.endMs);
    else out.push(i);
  }
  return out;
}

// ---- the text --------------------------------------------------------------------------------

const pad = (n: number) => String(n).padStart(2, '0');
function dateText(day: number): string {
  const d = new Date(day * DAY);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
}
/** A wall time as iCalendar writes it; minutes past 24:00 are the next day's. */
const wallText = (w: Wall) => {
  const day = w.day + Math.floor(w.minute / 1440);
  const minute = w.minute % 1440;
  return `${dateText(day)}T${pad(Math.floor(minute / 60))}${pad(minute % 60)}00`;
};
const utcText = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const WEEKDAY_NAMES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

function render(style: ZoneStyle, series: Series[]): string {
  const tzid = (zone: Zone) => (style.startsWith('windows') ? WINDOWS[zone] : zone);
  const used = [...new Set(series.filter((s) => !s.allDay && s.zone !== 'floating').map((s) => s.zone as Zone))];
  const zones =
    style === 'vtimezone' || style === 'windows-vtimezone'
      ? used.flatMap((z) => ['BEGIN:VTIMEZONE', `TZID:${tzid(z)}`, ...VTIMEZONES[z], 'END:VTIMEZONE'])
      : [];
  const events = series.flatMap((s) => {
    const at = (w: Wall, name: string) => {
      if (s.allDay) return `${name};VALUE=DATE:${dateText(w.day)}`;
      return s.zone === 'floating' ? `${name}:${wallText(w)}` : `${name};TZID=${tzid(s.zone)}:${wallText(w)}`;
    };
    const master = ['BEGIN:VEVENT', `UID:${s.uid}`, 'DTSTAMP:20250101T000000Z', at(s.start, 'DTSTART')];
    if (s.lengthAs === 'dtend')
      master.push(
        s.allDay
          ? at({ day: s.start.day + s.length, minute: 0 }, 'DTEND')
          : at({ day: s.start.day, minute: s.start.minute + s.length }, 'DTEND'),
      );
    if (s.lengthAs === 'duration') master.push(s.allDay ? `DURATION:P${s.length}D` : `DURATION:PT${s.length}M`);
    if (s.rule) master.push(`RRULE:${ruleText(s)}`);
    // the instances EXDATEs and overrides may name (by index; the zone only decides where to stop)
    const list = instances(s, Infinity, MAX_INDEX + 1);
    for (const i of s.exdates) if (list[i]) master.push(at(list[i], 'EXDATE'));
    if (s.state === 'cancelled') master.push('STATUS:CANCELLED');
    if (s.state === 'transparent') master.push('TRANSP:TRANSPARENT');
    master.push('END:VEVENT');
    const overrides = s.overrides.flatMap((o) => {
      const original = list[o.index];
      if (!original) return [];
      const to = moved(s, original, o);
      const end = s.allDay
        ? at({ day: to.day + 1, minute: 0 }, 'DTEND')
        : at({ day: to.day, minute: to.minute + o.durationMin }, 'DTEND');
      const effect =
        o.effect === 'cancelled' ? ['STATUS:CANCELLED'] : o.effect === 'transparent' ? ['TRANSP:TRANSPARENT'] : [];
      return [
        'BEGIN:VEVENT',
        `UID:${s.uid}`,
        'DTSTAMP:20250101T000000Z',
        at(original, 'RECURRENCE-ID'),
        at(to, 'DTSTART'),
        end,
        ...effect,
        'END:VEVENT',
      ];
    });
    return [...master, ...overrides];
  });
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//booking-service//calendarGen//EN',
    ...zones,
    ...events,
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

function ruleText(s: Series): string {
  const r = s.rule!;
  const parts = [`FREQ=${r.freq}`];
  if (r.interval > 1) parts.push(`INTERVAL=${r.interval}`);
  if (r.freq === 'WEEKLY') parts.push(`BYDAY=${r.weekdays.map((d) => WEEKDAY_NAMES[d]).join(',')}`);
  if (r.end === 'count') parts.push(`COUNT=${r.count}`);
  if (r.end === 'until') {
    const until = untilOf(s);
    // RFC 5545: UTC when DTSTART has a zone; a DATE for all-day series; a wall time when floating
    const end = s.allDay
      ? dateText(until.day)
      : s.zone === 'floating'
        ? wallText(until)
        : utcText(instant(until, s.zone));
    parts.push(`UNTIL=${end}`);
  }
  return parts.join(';');
}
