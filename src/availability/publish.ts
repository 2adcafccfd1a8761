/**
 * Publishing a rule's timeslots: the dates it covers now (from valid_from, not before today, to
 * valid_until or HORIZON_DAYS ahead, whichever is first), computed in TypeScript (expand.ts, with
 * luxon's zone offsets) and written in one statement, however many they are. Each is an ordinary timeslot
 * (scheduling's table) naming its rule; the listing triggers on timeslots make A1 show them at once.
 */
import type { Queryable } from '../storage/db.js';
import { ruleSlots, type RuleSlot } from './expand.js';
import { setPublished, type RuleRow } from './repo.js';
import { addDays, startOfDate } from './wallClock.js';

/** A rule keeps its timeslots published on this many dates, today included. */
export const HORIZON_DAYS = 400;

/** The last date a rule may publish on `today` (yyyy-MM-dd). */
export const horizonEnd = (today: string) => addDays(today, HORIZON_DAYS - 1);

const later = (a: string, b: string) => (a > b ? a : b);
const earlier = (a: string, b: string | null) => (b !== null && b < a ? b : a);

/**
 * The generated reference of a rule's timeslot: the rule's, the date and the window's start,
 * e.g. hours@crm:2026-06-01T09:00.
 */
export const slotReference = (ruleReference: string, slot: RuleSlot) => `${ruleReference}:${slot.date}T${slot.from}`;

/**
 * The dates a rule covers on `today` from `after` on (exclusive, default: none yet), as
 * {first, last}; first > last when none.
 */
export function datesToPublish(rule: Pick<RuleRow, 'valid_from' | 'valid_until'>, today: string, after?: string) {
  const first = later(later(rule.valid_from, today), after === undefined ? today : addDays(after, 1));
  return { first, last: earlier(horizonEnd(today), rule.valid_until) };
}

/**
 * When the horizon job should publish the rule's next date: the day (00:00 in `zone`) on which the
 * horizon reaches it. Null when valid_until is published already.
 */
export function nextExtendAt(
  rule: Pick<RuleRow, 'valid_from' | 'valid_until'>,
  publishedUntil: string,
  zone: string,
): Date | null {
  const next = later(addDays(publishedUntil, 1), rule.valid_from);
  if (rule.valid_until !== null && next > rule.valid_until) return null;
  return startOfDate(addDays(next, -(HORIZON_DAYS - 1)), zone);
}

/**
 * Inserts the timeslots of the rule on the dates first..last, except on `skip` dates, in one
 * statement. A timeslot the rule has at that start already, or whose generated reference the
 * provider uses already, is left as it is (ON CONFLICT DO NOTHING: a date is made once, whatever
 * the race). Returns how many were made.
 */
export async function insertSlots(
  tx: Queryable,
  rule: Pick<RuleRow, 'id' | 'reference' | 'weekdays' | 'windows'>,
  zone: string,
  dates: { first: string; last: string },
  skip: ReadonlySet<string> = new Set(),
): Promise<number> {
  if (dates.first > dates.last) return 0;
  const slots = ruleSlots(rule, zone, dates.first, dates.last).filter((s) => !skip.has(s.date));
  if (slots.length === 0) return 0;
  const rows = slots.map((s) => ({
    reference: slotReference(rule.reference, s),
    start_at: new Date(s.startMs),
    end_at: new Date(s.endMs),
  }));
  const [{ made }] = await tx.query<{ made: number }>(
    `WITH made AS (
       INSERT INTO timeslots (crm_id, provider_id, resource_id, reference, start_at, end_at, raster, default_capacity,
                              default_accept_bookings, state, rule_id)
       SELECT r.crm_id, r.provider_id, r.resource_id, s.reference, s.start_at, s.end_at, r.raster, r.default_capacity,
              r.default_accept_bookings, r.state, r.id
         FROM availability_rules r,
              jsonb_to_recordset($2::jsonb) AS s(reference text, start_at timestamptz, end_at timestamptz)
        WHERE r.id = $1
       ON CONFLICT DO NOTHING
       RETURNING 1)
     SELECT count(*)::int AS made FROM made`,
    [rule.id, JSON.stringify(rows)],
  );
  return made;
}

/**
 * Publishes what the rule covers on `today` after what it has published (`publishedUntil`; none
 * yet: the day before valid_from), except on `skip` dates, and records the new horizon. Returns
 * how many timeslots were made.
 */
export async function publishAhead(
  tx: Queryable,
  rule: Pick<RuleRow, 'id' | 'reference' | 'weekdays' | 'windows' | 'valid_from' | 'valid_until'>,
  zone: string,
  today: string,
  publishedUntil?: string,
  skip?: ReadonlySet<string>,
): Promise<number> {
  const dates = datesToPublish(rule, today, publishedUntil);
  const made = await insertSlots(tx, rule, zone, dates, skip);
  const reached = later(publishedUntil ?? addDays(rule.valid_from, -1), earlier(horizonEnd(today), rule.valid_until));
  await setPublished(tx, rule.id, reached, nextExtendAt(rule, reached, zone));
  return made;
}
