/**
 * Recording webhook events (docs/webhooks.md) inside the caller's transaction: the one entry point for
 * code that changes a participation or an appointment. The bodies are built by the database
 * functions of migration 009 (webhook_participation_event, webhook_appointment_event), which the
 * one-statement hot paths (claim_place, book_hold, the hold sweeper) call in that same statement.
 * A crm without a subscription for the type writes nothing.
 */
import type { Queryable } from '../storage/db.js';

export const PARTICIPATION_EVENT_TYPES = [
  'participation.reserved',
  'participation.requested',
  'participation.booked',
  'participation.canceled',
  'participation.deleted',
  'participation.rescheduled',
] as const;
export const APPOINTMENT_EVENT_TYPES = ['appointment.created', 'appointment.cancelled'] as const;
export const CALENDAR_EVENT_TYPES = ['calendar.sync_failed', 'calendar.sync_recovered'] as const;
/** A person's data was erased (docs/privacy.md): the counts, no personal data. */
export const PRIVACY_EVENT_TYPES = ['consumer.erased'] as const;
export const EVENT_TYPES = [...PARTICIPATION_EVENT_TYPES, ...APPOINTMENT_EVENT_TYPES, ...CALENDAR_EVENT_TYPES, ...PRIVACY_EVENT_TYPES, 'webhook.test'] as const;

export type ParticipationEventType = (typeof PARTICIPATION_EVENT_TYPES)[number];
export type AppointmentEventType = (typeof APPOINTMENT_EVENT_TYPES)[number];
export type CalendarEventType = (typeof CALENDAR_EVENT_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

/** Who made the change: the public booking flow, the partner API, a consumer's cancel link, a provider's decision link, hold expiry. */
export type EventSource = 'public' | 'partner' | 'cancel-link' | 'decision-link' | 'expiry';

/** participation.reserved, .requested, .booked, .canceled or .deleted: the event of arriving in a state. */
export const participationEventType = (state: string) => `participation.${state.toLowerCase()}` as ParticipationEventType;

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

const listeners = new Set<() => void>();

/** Lets this process's webhook worker look at once instead of at its next poll. */
export function onEventsWritten(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the webhook workers of this process that events may have been written (they may not be committed yet). */
export function eventsWritten(): void {
  for (const listener of listeners) listener();
}

/**
 * Records a participation event in the caller's transaction, about the participation as the
 * transaction sees it now: call it after the change, before the commit.
 */
export async function recordParticipationEvent(tx: Queryable, e: ParticipationEvent): Promise<void> {
  const [{ id }] = await tx.query<{ id: string | null }>(
    `SELECT webhook_participation_event(COALESCE($1, 'participation.' || lower(COALESCE($6, (SELECT state FROM participations WHERE id = $2)))),
                                        $2, $3, $4, $5, $6) AS id`,
    [e.type ?? null, e.participationId, e.source, e.previousState, e.message ?? null, e.state ?? null],
  );
  if (id) eventsWritten();
}

export async function recordAppointmentEvent(tx: Queryable, e: { appointmentId: string; type: AppointmentEventType; source: EventSource }): Promise<void> {
  const [{ id }] = await tx.query<{ id: string | null }>('SELECT webhook_appointment_event($1, $2, $3) AS id', [e.type, e.appointmentId, e.source]);
  if (id) eventsWritten();
}

/** Records a subscribed calendar's outage or recovery (data without the calendar's URL) in the caller's transaction. */
export async function recordCalendarEvent(tx: Queryable, crmId: string, type: CalendarEventType, data: object): Promise<void> {
  const [{ id }] = await tx.query<{ id: string | null }>('SELECT webhook_enqueue($1, $2, $3) AS id', [crmId, type, JSON.stringify(data)]);
  if (id) eventsWritten();
}

/**
 * The SQL expression that records the events of a place claim_place took (appointment.created
 * when it made the appointment, then the participation's event), for the select list of
 * claim_place's own statement with its result as `c`; it gives the number of events written.
 */
export const placeEventsSql = (sourceParam: string) => `webhook_place_events(c.appointment, c.participation, c.created, ${sourceParam})`;
