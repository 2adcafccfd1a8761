/**
 * Taking back a rule's timeslots from today on, when the rule changes or goes (DESIGN.md §7.14),
 * except on the dates where one of them meets a live booking (a hold while it lasts, REQUESTED,
 * BOOKED) or a partner's appointment: such a date keeps its timeslots as they were.
 *
 * Dates are the unit: a date is kept whole or remade whole. The caller holds the rule's row lock.
 * A booking racing the change never ends up on a timeslot taken back:
 *  - the appointments meeting the rule's timeslots are locked first, then the timeslots. A
 *    booking that joins an appointment holds its lock (claim_place) until it commits; one that
 *    creates an appointment from a timeslot holds that timeslot's key-share lock (the foreign key)
 *    until it commits. Either way this transaction waits for it, and then
 *  - whether a timeslot is taken is read in a statement of its own, whose snapshot sees every
 *    booking committed while the locks were waited for (READ COMMITTED);
 *  - a booking that comes after the locks waits for this transaction and then finds its timeslot
 *    gone (claim_place's insert fails its foreign key: 404), or its emptied public appointment
 *    released (cancelled here: 412), never a timeslot that is not there.
 * Appointments are locked before timeslots because a booking takes them in that order too (it
 * releases an emptied appointment in its way before it inserts its own).
 */
import { appointmentTakesTimeSql, liveParticipationSql } from '../scheduling/capacity.js';
import type { Queryable } from '../storage/db.js';
import type { RuleRow } from './repo.js';
import { dateIn, startOfDate } from './wallClock.js';

interface FutureSlot {
  id: string;
  reference: string;
  start_at: Date;
  taken: boolean;
}

export interface TakenBack {
  /** references of the timeslots kept as they were (dates with a live booking or a partner's appointment), by start */
  kept: string[];
  /** the dates kept (yyyy-MM-dd, the provider's zone): a remade rule makes nothing on them */
  keptDates: Set<string>;
  /** how many timeslots were removed */
  removed: number;
}

/**
 * Removes the rule's timeslots on dates from today on (in the provider's zone, `zone`), except on
 * the dates that hold a live booking or a partner's appointment (as of `now`); public-flow
 * appointments left without a live participation on the removed ones are released.
 */
export async function takeBack(tx: Queryable, rule: Pick<RuleRow, 'id'>, zone: string, now: Date): Promise<TakenBack> {
  const from = [rule.id, startOfDate(dateIn(now, zone), zone)];
  await tx.query(
    `SELECT a.id FROM appointments a WHERE a.id IN (SELECT appointment_id FROM rule_appointments($1, $2))
      ORDER BY a.id FOR UPDATE`,
    from,
  );
  await tx.query(
    'SELECT t.id FROM timeslots t WHERE t.rule_id = $1 AND t.start_at >= $2 ORDER BY t.id FOR UPDATE',
    from,
  );
  const slots = await tx.query<FutureSlot>(
    `SELECT t.id, t.reference, t.start_at,
            t.id IN (SELECT m.timeslot_id FROM rule_appointments($1, $2) m
                       JOIN appointments a ON a.id = m.appointment_id
                      WHERE ${appointmentTakesTimeSql(
                        'a',
                        `EXISTS (SELECT 1 FROM participations p
                                  WHERE p.appointment_id = a.id AND ${liveParticipationSql('$3', 'p')})`,
                      )}) AS taken
       FROM timeslots t WHERE t.rule_id = $1 AND t.start_at >= $2 ORDER BY t.start_at, t.reference`,
    [...from, now],
  );
  const dateOf = (s: FutureSlot) => dateIn(s.start_at, zone);
  const keptDates = new Set(slots.filter((s) => s.taken).map(dateOf));
  const kept = slots.filter((s) => keptDates.has(dateOf(s)));
  const gone = slots.filter((s) => !keptDates.has(dateOf(s))).map((s) => s.id);
  if (gone.length > 0) {
    await tx.query(
      `SELECT release_emptied_appointment(x.id, $4)
         FROM (SELECT DISTINCT appointment_id AS id FROM rule_appointments($1, $2)
                WHERE timeslot_id = ANY($3::uuid[])) x`,
      [...from, gone, now],
    );
    await tx.query('DELETE FROM timeslots WHERE id = ANY($1::uuid[])', [gone]);
  }
  return { kept: kept.map((s) => s.reference), keptDates, removed: gone.length };
}
