/**
 * Recording the webhook events of participations and appointments (docs/webhooks.md) inside the
 * caller's transaction: the one entry point for code that changes a participation or an
 * appointment. The bodies are built by the database functions beside this file
 * (webhook_participation_event, webhook_appointment_event: scheduling owns the data they show and
 * the rule for live places), which the one-statement hot paths (claim_place, book_hold, the hold
 * sweeper) call in that same statement; they enqueue through webhooks' webhook_enqueue.
 */
import type { Queryable } from '../storage/db.js';
import {
  eventsWritten,
  type AppointmentEventType,
  type EventSource,
  type ParticipationEventType,
} from '../webhooks/events.js';

export interface ParticipationEvent {
  participationId: string;
  source: EventSource;
  /** null when the participation is new */
  previousState: string | null;
  /** the text that goes with the change (A3's message, D10's message, a decline reason) */
  message?: string | null;
  /** default: the event of the participation's current state (participationEventType) */
  type?: ParticipationEventType;
  /** the state the event shows, when not the row's (a participation reported deleted just before its row goes) */
  state?: string;
}

/**
 * Records a participation event in the caller's transaction, about the participation as the
 * transaction sees it now: call it after the change, before the commit.
 */
export async function recordParticipationEvent(tx: Queryable, e: ParticipationEvent): Promise<void> {
  const [{ id }] = await tx.query<{ id: string | null }>(
    `SELECT webhook_participation_event(COALESCE($1, 'participation.' || lower(COALESCE($6, (SELECT state
       FROM participations WHERE id = $2)))),
                                        $2, $3, $4, $5, $6) AS id`,
    [e.type ?? null, e.participationId, e.source, e.previousState, e.message ?? null, e.state ?? null],
  );
  if (id) eventsWritten();
}

export async function recordAppointmentEvent(
  tx: Queryable,
  e: { appointmentId: string; type: AppointmentEventType; source: EventSource },
): Promise<void> {
  const [{ id }] = await tx.query<{ id: string | null }>('SELECT webhook_appointment_event($1, $2, $3) AS id', [
    e.type,
    e.appointmentId,
    e.source,
  ]);
  if (id) eventsWritten();
}

/**
 * The SQL expression that records the events of a place claim_place took (appointment.created
 * when it made the appointment, then the participation's event), for the select list of
 * claim_place's own statement with its result as `c`; it gives the number of events written.
 */
export const placeEventsSql = (sourceParam: string) =>
  `webhook_place_events(c.appointment, c.participation, c.created, ${sourceParam})`;
