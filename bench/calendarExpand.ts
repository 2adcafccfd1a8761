/**
 * Reading a large calendar (issue 33: "a 5 MiB calendar with 2,000 events, 500 of them recurring,
 * is read and expanded in <= 1 s of CPU"): `npx tsx bench/calendarExpand.ts`, or calendarExpandPhase()
 * from bench/run.ts. The calendar is generated (seeded, the same every run), as Outlook exports
 * it: a VTIMEZONE with a Windows name, single events in UTC, all-day ones; the series begun up to
 * six years ago (rule() has their shares: weekly meetings most, every weekday, fortnightly,
 * monthly, yearly birthdays, short daily runs, some ending by UNTIL or COUNT), some with an EXDATE,
 * every tenth with an override; descriptions padded to 5 MiB. Expanded from NOW to 400 days
 * ahead in the provider's zone.
 */
import { pathToFileURL } from 'node:url';
import { busyIntervals } from '../src/calendars/busyIntervals.js';

const NOW = Date.UTC(2026, 10, 30, 6);
const DAY = 86_400_000;
const EVENTS = 2_000;
const RECURRING = 500;
const TARGET_BYTES = 5 * 1024 * 1024;
const RUNS = 4;

/** A small deterministic random source (mulberry32), so every run reads the same calendar. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const local = (ms: number) => {
  const d = new Date(ms);
  const day = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
  return `${day}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00`;
};
const date = (ms: number) => local(ms).slice(0, 8);

/** Folds a content line at 75 octets as RFC 5545 3.1 asks (ASCII here). */
const fold = (line: string) => line.match(/.{1,74}/g)!.join('\r\n ');

const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/** A series' rule, in the shares a working calendar has them (weekly meetings above all). */
function rule(next: () => number, weekday: string, start: number): string {
  const roll = next();
  if (roll < 0.4) return `FREQ=WEEKLY;BYDAY=${weekday}`;
  if (roll < 0.5) return 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR';
  if (roll < 0.6) return `FREQ=WEEKLY;INTERVAL=2;BYDAY=${weekday}`;
  if (roll < 0.65) return `FREQ=MONTHLY;BYMONTHDAY=${1 + Math.floor(next() * 28)}`;
  if (roll < 0.7) return `FREQ=MONTHLY;BYDAY=1${weekday}`;
  if (roll < 0.8) return `FREQ=DAILY;COUNT=${5 + Math.floor(next() * 25)}`;
  if (roll < 0.9) return `FREQ=WEEKLY;BYDAY=${weekday};UNTIL=${local(start + Math.floor(next() * 3000) * DAY)}Z`;
  return `FREQ=WEEKLY;BYDAY=${weekday};COUNT=${10 + Math.floor(next() * 50)}`;
}

const BERLIN = [
  'BEGIN:VTIMEZONE',
  'TZID:W. Europe Standard Time',
  'BEGIN:STANDARD',
  'DTSTART:16010101T030000',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10',
  'END:STANDARD',
  'BEGIN:DAYLIGHT',
  'DTSTART:16010101T020000',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3',
  'END:DAYLIGHT',
  'END:VTIMEZONE',
];

/** The generated calendar's text. */
export function largeCalendar(): { ics: string; events: number; recurring: number } {
  const next = random(33);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  const bodies: string[][] = [];
  for (let i = 0; i < EVENTS; i++) {
    const recurring = i < RECURRING;
    const uid = `bench-${i}@example.org`;
    const lines = ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20261101T000000Z', `SUMMARY:Event ${i}`];
    const hour = 7 + Math.floor(next() * 11);
    const minutes = pick([15, 30, 45, 60, 90, 120]);
    if (recurring && next() < 0.1) {
      // a birthday: yearly, all-day
      const day = NOW - Math.floor(next() * 6 * 365) * DAY;
      lines.push(`DTSTART;VALUE=DATE:${date(day)}`, `DTEND;VALUE=DATE:${date(day + DAY)}`, 'RRULE:FREQ=YEARLY');
    } else if (recurring) {
      const start = NOW - Math.floor(next() * 6 * 365) * DAY + hour * 3_600_000 - 6 * 3_600_000;
      const weekday = WEEKDAYS[new Date(start).getUTCDay()];
      lines.push(
        `DTSTART;TZID=W. Europe Standard Time:${local(start)}`,
        `DTEND;TZID=W. Europe Standard Time:${local(start + minutes * 60_000)}`,
        `RRULE:${rule(next, weekday, start)}`,
      );
      if (next() < 0.3)
        lines.push(`EXDATE;TZID=W. Europe Standard Time:${local(start + 7 * DAY * (1 + Math.floor(next() * 50)))}`);
    } else if (next() < 0.15) {
      const day = NOW + Math.floor(next() * 400) * DAY;
      lines.push(
        `DTSTART;VALUE=DATE:${date(day)}`,
        `DTEND;VALUE=DATE:${date(day + (1 + Math.floor(next() * 3)) * DAY)}`,
      );
    } else {
      const start = NOW + Math.floor(next() * 420 - 20) * DAY + (hour - 1) * 3_600_000;
      lines.push(`DTSTART:${local(start)}Z`, `DTEND:${local(start + minutes * 60_000)}Z`);
    }
    lines.push(next() < 0.05 ? 'TRANSP:TRANSPARENT' : 'TRANSP:OPAQUE', 'X-MICROSOFT-CDO-BUSYSTATUS:BUSY');
    bodies.push(lines);
  }
  // overrides of every tenth recurring event: its next instance moved by two hours
  const overrides: string[][] = [];
  for (let i = 0; i < RECURRING; i += 10) {
    const master = bodies[i];
    if (!master.some((l) => l.startsWith('DTSTART;TZID'))) continue;
    const start = master.find((l) => l.startsWith('DTSTART'))!.split(':')[1];
    overrides.push([
      'BEGIN:VEVENT',
      `UID:bench-${i}@example.org`,
      'DTSTAMP:20261101T000000Z',
      `RECURRENCE-ID;TZID=W. Europe Standard Time:${start}`,
      `DTSTART;TZID=W. Europe Standard Time:${start.slice(0, 9)}200000`,
      `DTEND;TZID=W. Europe Standard Time:${start.slice(0, 9)}210000`,
      'END:VEVENT',
    ]);
  }
  const bare = (body: string[]) => [...body, 'END:VEVENT'];
  const size = [...bodies.map(bare), ...overrides].reduce((n, b) => n + b.join('\r\n').length + 2, 0) + 200;
  const perEvent = Math.max(0, Math.floor((TARGET_BYTES - size) / EVENTS) - 16);
  const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit; sed do eiusmod tempor. ';
  const text = filler.repeat(Math.ceil(perEvent / filler.length)).slice(0, Math.floor(perEvent * 0.985));
  const description = `DESCRIPTION:${text}`;
  const events = bodies.map((body) => [...body, fold(description), 'END:VEVENT'].join('\r\n'));
  const ics = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:Microsoft Exchange Server 2010',
    'METHOD:PUBLISH',
    ...BERLIN,
    ...events,
    ...overrides.map((o) => o.join('\r\n')),
    'END:VCALENDAR',
    '',
  ].join('\r\n');
  return { ics, events: EVENTS + overrides.length, recurring: RECURRING };
}

export interface CalendarExpandResult {
  bytes: number;
  events: number;
  recurring: number;
  intervals: number;
  /** CPU (user + system) of each run, ms; the first includes the code's warm-up */
  cpuMs: number[];
}

/** Reads the generated calendar RUNS times, 400 days ahead from NOW, in Berlin. */
export function calendarExpand(runs = RUNS): CalendarExpandResult {
  const { ics, events, recurring } = largeCalendar();
  const cpuMs: number[] = [];
  let intervals = 0;
  for (let i = 0; i < runs; i++) {
    const started = process.cpuUsage();
    intervals = busyIntervals(ics, {
      providerZone: 'Europe/Berlin',
      fromMs: NOW,
      toMs: NOW + 400 * DAY,
      isOwnUid: (uid) => uid.endsWith('@booking.invalid'),
    }).length;
    const spent = process.cpuUsage(started);
    cpuMs.push((spent.user + spent.system) / 1000);
  }
  return { bytes: Buffer.byteLength(ics), events, recurring, intervals, cpuMs };
}

/** The phase as bench/run.ts prints its workloads. */
export function calendarExpandPhase(): CalendarExpandResult {
  console.log(
    `\nCALENDAR  read and expand a ${(TARGET_BYTES / 1048576).toFixed(0)} MiB iCalendar text (${EVENTS} ` +
      `events, ${RECURRING} recurring), 400 days ahead, ${RUNS} times in this process`,
  );
  const r = calendarExpand();
  const [first, ...later] = r.cpuMs;
  const warm = later.sort((a, b) => a - b)[Math.floor(later.length / 2)];
  console.log(
    `    calendar: ${(r.bytes / 1048576).toFixed(2)} MiB, ${r.events} VEVENTs (${r.recurring} series), ` +
      `${r.intervals} busy intervals after merging`,
  );
  console.log(
    `    CPU     : first read ${first.toFixed(0)} ms (the process's first: ` +
      `ical.js and luxon not yet compiled), then ${later.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`,
  );
  // the sync job reads calendars all day in one process: its reads are the warm ones
  console.log(
    `    targets : <= 1 s CPU per read (warm, median): ${warm.toFixed(0)} ms ${warm <= 1000 ? 'met' : 'MISSED'}`,
  );
  return r;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) calendarExpandPhase();
