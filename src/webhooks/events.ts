/**
 * Webhook events (docs/webhooks.md): their types and sources, the wake-up of this process's webhook
 * worker, and a subscribed calendar's events. The events of participations and appointments are
 * built by scheduling's functions (scheduling/events.ts), which own the data they show; every event
 * goes out through webhook_enqueue. A crm without a subscription for the type writes nothing.
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
export const EVENT_TYPES = [
  ...PARTICIPATION_EVENT_TYPES,
  ...APPOINTMENT_EVENT_TYPES,
  ...CALENDAR_EVENT_TYPES,
  ...PRIVACY_EVENT_TYPES,
  'webhook.test',
] as const;

export type ParticipationEventType = (typeof PARTICIPATION_EVENT_TYPES)[number];
export type AppointmentEventType = (typeof APPOINTMENT_EVENT_TYPES)[number];
export type CalendarEventType = (typeof CALENDAR_EVENT_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Who made the change: the public booking flow, the partner API, a
 * consumer's cancel link, a provider's decision link, hold expiry.
 */
export type EventSource = 'public' | 'partner' | 'cancel-link' | 'decision-link' | 'expiry';

/** participation.reserved, .requested, .booked, .canceled or .deleted: the event of arriving in a state. */
export const participationEventType = (state: string) =>
  `participation.${state.toLowerCase()}` as ParticipationEventType;

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

/** Records a subscribed calendar's outage or recovery (data without the calendar's URL) in the caller's transaction. */
export async function recordCalendarEvent(
  tx: Queryable,
  crmId: string,
  type: CalendarEventType,
  data: object,
): Promise<void> {
  const [{ id }] = await tx.query<{ id: string | null }>('SELECT webhook_enqueue($1, $2, $3) AS id', [
    crmId,
    type,
    JSON.stringify(data),
  ]);
  if (id) eventsWritten();
}
