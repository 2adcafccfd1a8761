/**
 * The timeslots a rule makes, pure (DESIGN.md §7.14): on each date whose ISO weekday the rule
 * lists, one timeslot per window, from its wall-clock start to its wall-clock end in the provider's
 * zone (wallClock.ts: a time in the spring-forward gap moves forward by the gap, a repeated one
 * takes its first occurrence). A day's timeslots never overlap: where an end moved forward by the
 * gap reaches past a later window's start, it stops there, and a window left with no time (it lay
 * wholly in the gap) makes no timeslot that day.
 */
import { addDays, minuteOfDay, wallInstant, weekdayOf } from './wallClock.js';

export interface RuleWindow {
  /** "HH:mm" */
  from: string;
  /** "HH:mm" or "24:00", after from */
  to: string;
}

export interface RuleShape {
  /** ISO weekdays, 1 (Monday) .. 7 (Sunday) */
  weekdays: number[];
  /** ascending, not overlapping */
  windows: RuleWindow[];
}

export interface RuleSlot {
  /** the date (yyyy-MM-dd) whose window this is */
  date: string;
  /** the window's wall-clock start as the rule gives it */
  from: string;
  startMs: number;
  endMs: number;
}

/** One date's timeslots, in time order. */
export function slotsOfDate(windows: RuleWindow[], date: string, zone: string): RuleSlot[] {
  const resolved = windows.map((w) => ({
    from: w.from,
    startMs: wallInstant(date, minuteOfDay(w.from), zone),
    endMs: wallInstant(date, minuteOfDay(w.to), zone),
  }));
  const slots: RuleSlot[] = [];
  let laterStart = Infinity;
  for (let i = resolved.length - 1; i >= 0; i--) {
    const { from, startMs } = resolved[i];
    const endMs = Math.min(resolved[i].endMs, laterStart);
    if (endMs > startMs) slots.unshift({ date, from, startMs, endMs });
    laterStart = Math.min(laterStart, startMs);
  }
  return slots;
}

/** The rule's timeslots on the dates `first` to `last` (yyyy-MM-dd, both included), in time order. */
export function ruleSlots(shape: RuleShape, zone: string, first: string, last: string): RuleSlot[] {
  const weekdays = new Set(shape.weekdays);
  const slots: RuleSlot[] = [];
  for (let date = first; date <= last; date = addDays(date, 1)) {
    if (weekdays.has(weekdayOf(date))) slots.push(...slotsOfDate(shape.windows, date, zone));
  }
  return slots;
}
