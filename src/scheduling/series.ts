/**
 * Series expansion (docs/api.md, Booking rules), pure: on each date from `firstDay` to `lastDay` (both included)
 * whose ISO weekday is listed, the daily wall-clock window is cut into `rasterMin`-minute
 * appointments from its start; a trailing part shorter than the raster is dropped. Each day's
 * window is built from wall-clock times in the zone, so it keeps its local times across DST.
 */
import { DateTime } from 'luxon';
import { invalid } from '../errors.js';
import type { TimeOfDay } from './time.js';

export const MAX_SERIES_DAYS = 1100;
export const MAX_SERIES_APPOINTMENTS = 2000;

export interface SeriesPlan {
  zone: string;
  /** calendar dates (any time of day; only the date counts) */
  firstDay: DateTime;
  lastDay: DateTime;
  windowFrom: TimeOfDay;
  windowTo: TimeOfDay;
  /** ISO weekdays 1 (Monday) .. 7 (Sunday); null or empty: every day */
  weekdays: number[] | null;
  rasterMin: number;
}

export interface SeriesItem {
  start: Date;
  end: Date;
}

const seconds = (t: TimeOfDay) => t.hour * 3600 + t.minute * 60 + t.second;

/** Checks a plan (400 naming the field) and returns its appointments in time order. */
export function expandSeries(plan: SeriesPlan): SeriesItem[] {
  const first = DateTime.fromObject(
    { year: plan.firstDay.year, month: plan.firstDay.month, day: plan.firstDay.day },
    { zone: plan.zone },
  );
  const last = DateTime.fromObject(
    { year: plan.lastDay.year, month: plan.lastDay.month, day: plan.lastDay.day },
    { zone: plan.zone },
  );
  if (last < first) throw invalid('body.series_data.to must not be before body.series_data.from');
  const days = Math.round(last.diff(first, 'days').days) + 1;
  if (days > MAX_SERIES_DAYS) throw invalid(`body.series_data may span at most ${MAX_SERIES_DAYS} days`);
  const weekdays = plan.weekdays && plan.weekdays.length > 0 ? new Set(plan.weekdays) : null;
  if (days > 1 && !weekdays)
    throw invalid('body.series_data.weekdays is required when the series spans more than one day');
  if (seconds(plan.windowTo) <= seconds(plan.windowFrom)) {
    throw invalid('body.to must be a later time of day than body.from (they give the daily window of the series)');
  }

  const items: SeriesItem[] = [];
  for (let i = 0; i < days; i++) {
    const date = first.plus({ days: i });
    if (weekdays && !weekdays.has(date.weekday)) continue;
    const windowStart = date.set({ ...plan.windowFrom, millisecond: 0 });
    const windowEnd = date.set({ ...plan.windowTo, millisecond: 0 });
    // Real minutes: on a DST day the raster stays rasterMin long.
    for (
      let start = windowStart;
      start.plus({ minutes: plan.rasterMin }) <= windowEnd;
      start = start.plus({ minutes: plan.rasterMin })
    ) {
      items.push({ start: start.toJSDate(), end: start.plus({ minutes: plan.rasterMin }).toJSDate() });
      if (items.length > MAX_SERIES_APPOINTMENTS) {
        throw invalid(`a series may have at most ${MAX_SERIES_APPOINTMENTS} appointments`);
      }
    }
  }
  if (items.length === 0)
    throw invalid(
      'the series gives no appointment: no listed weekday in the dates, or the window is shorter than the raster',
    );
  return items;
}
