/**
 * An independent computation of a rule's timeslots (DESIGN.md §7.14) for the property test: no
 * luxon, only Intl.DateTimeFormat's reading of an instant as wall-clock time in a zone. Around a
 * change of the zone's offset it scans every minute: the first instant showing the wanted wall time
 * is its first occurrence; a wall time no instant shows lies in a gap and moves forward by it.
 */
const MINUTE = 60_000;
const HOUR_MIN = 60;
const DAY_MIN = 1440;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time an instant shows in `zone`, as minutes since 1970-01-01T00:00 of that clock. */
export function wallMinutes(ms: number, zone: string): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(zone, f);
  }
  const part = Object.fromEntries(f.formatToParts(ms).map((p) => [p.type, Number(p.value)]));
  return Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute) / MINUTE;
}

/** A date's wall minutes -> the instant (epoch minutes) first showing each; built once per zone and date. */
interface DayTable {
  /** the zone's offset (minutes) when it does not change around the date, else null */
  offset: number | null;
  first: Map<number, number>;
  /** scanned instants and their wall minutes, in time order (only where the offset changes) */
  scan: { at: number; wall: number }[];
}

const tables = new Map<string, DayTable>();

function dayTable(dayStart: number, zone: string): DayTable {
  const key = `${zone}|${dayStart}`;
  let table = tables.get(key);
  if (table) return table;
  // every instant whose wall time falls on this date or the next lies in [from, to)
  const from = dayStart - 15 * HOUR_MIN;
  const to = dayStart + 2 * DAY_MIN + 15 * HOUR_MIN;
  const offsets = new Set<number>();
  for (let at = from; at <= to; at += HOUR_MIN) offsets.add(wallMinutes(at * MINUTE, zone) - at);
  table = { offset: offsets.size === 1 ? [...offsets][0] : null, first: new Map(), scan: [] };
  if (table.offset === null) {
    for (let at = from; at < to; at++) {
      const wall = wallMinutes(at * MINUTE, zone);
      table.scan.push({ at, wall });
      if (!table.first.has(wall)) table.first.set(wall, at);
    }
  }
  tables.set(key, table);
  return table;
}

/** The instant (epoch ms) of wall-clock minute `minute` (0..1440) of `date` (yyyy-MM-dd) in `zone`. */
export function oracleInstant(date: string, minute: number, zone: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const dayStart = Date.UTC(y, m - 1, d) / MINUTE;
  const wall = dayStart + minute;
  const table = dayTable(dayStart, zone);
  if (table.offset !== null) return (wall - table.offset) * MINUTE;
  const seen = table.first.get(wall);
  if (seen !== undefined) return seen * MINUTE;
  // in a gap: the first instant after it, plus how far into the gap the wall time lies
  const i = table.scan.findIndex((s, k) => k > 0 && s.wall > wall && table.scan[k - 1].wall < wall);
  const gapStart = table.scan[i - 1].wall + 1;
  return (table.scan[i].at + (wall - gapStart)) * MINUTE;
}

export interface OracleRule {
  weekdays: number[];
  windows: { from: number; to: number }[];
}

export interface OracleSlot {
  date: string;
  startMs: number;
  endMs: number;
}

/** Every timeslot the rule makes on the dates first..last, by the spec's words, computed independently. */
export function oracleSlots(rule: OracleRule, zone: string, first: string, last: string): OracleSlot[] {
  const out: OracleSlot[] = [];
  const end = Date.parse(`${last}T00:00:00Z`);
  for (let day = Date.parse(`${first}T00:00:00Z`); day <= end; day += DAY_MIN * MINUTE) {
    const isoWeekday = ((new Date(day).getUTCDay() + 6) % 7) + 1;
    if (!rule.weekdays.includes(isoWeekday)) continue;
    const date = new Date(day).toISOString().slice(0, 10);
    const resolved = rule.windows.map((w) => ({
      start: oracleInstant(date, w.from, zone),
      end: oracleInstant(date, w.to, zone),
    }));
    resolved.forEach((w, i) => {
      // a day's timeslots never overlap: an end pushed past a later window's start stops there
      const later = resolved.slice(i + 1).map((x) => x.start);
      const stop = Math.min(w.end, ...later);
      if (stop > w.start) out.push({ date, startMs: w.start, endMs: stop });
    });
  }
  return out;
}
