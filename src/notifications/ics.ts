import { createEvents, type DateArray } from 'ics';
import { DateTime } from 'luxon';
import type { AppointmentMailPayload } from './payloads.js';
import { foldIcs } from './icsText.js';
import type { MailTemplate } from './templateNames.js';

export type CalendarMethod = 'REQUEST' | 'CANCEL';

/** Only confirmed bookings put an entry into the consumer's calendar; a request is not one yet. */
const INVITES: ReadonlySet<MailTemplate> = new Set(['booking-confirmed', 'participation-booked', 'booking-reminder']);
/** An entry that moves: an update of the invite when the booking is confirmed, nothing for a request. */
const UPDATES: ReadonlySet<MailTemplate> = new Set(['booking-rescheduled']);
const CANCELLATIONS: ReadonlySet<MailTemplate> = new Set([
  'participation-canceled',
  'appointment-cancelled',
  'resource-deleted-cancellation',
  'customer-removed',
  'self-cancel-confirmation',
]);

export function calendarMethodFor(template: MailTemplate, participationState?: string): CalendarMethod | null {
  if (INVITES.has(template)) return 'REQUEST';
  if (UPDATES.has(template)) return participationState === 'BOOKED' ? 'REQUEST' : null;
  if (CANCELLATIONS.has(template)) return 'CANCEL';
  return null;
}

function utcArray(iso: string): DateArray {
  const d = DateTime.fromISO(iso, { setZone: true }).toUTC();
  return [d.year, d.month, d.day, d.hour, d.minute];
}

/** The address inside `Name <address>`, or the whole string. */
export function bareAddress(mailbox: string): string {
  return /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox.trim();
}

export interface CalendarInput {
  method: CalendarMethod;
  payload: AppointmentMailPayload;
  summary: string;
  description: string;
  /** the consumer's address (the mail's recipient) */
  attendeeEmail: string;
  /** organizer when neither the contact nor the provider has an address (MAIL_FROM) */
  fallbackOrganizer: string;
}

/**
 * An iTIP message (RFC 5546) about the participant's entry: UID stable per appointment and
 * participant and SEQUENCE growing with every mail, so a CANCEL replaces the earlier REQUEST.
 * Lines are folded at 75 octets of UTF-8.
 */
export function buildCalendar({ method, payload, summary, description, attendeeEmail, fallbackOrganizer }: CalendarInput): string {
  const { appointment, contact, provider, participant } = payload;
  const { error, value } = createEvents(
    [
      {
        uid: payload.icsUid,
        // a new number for every mail with a calendar part (notifications/compose.ts nextCalendarSequence)
        sequence: payload.sequence,
        start: utcArray(appointment.start),
        startInputType: 'utc',
        startOutputType: 'utc',
        end: utcArray(appointment.end),
        endInputType: 'utc',
        endOutputType: 'utc',
        title: summary,
        description,
        ...(appointment.address ? { location: appointment.address } : {}),
        status: method === 'REQUEST' ? 'CONFIRMED' : 'CANCELLED',
        organizer: { name: contact.name ?? provider.name, email: contact.email ?? provider.email ?? bareAddress(fallbackOrganizer) },
        attendees: [
          {
            ...(participant.name ? { name: participant.name } : {}),
            email: attendeeEmail,
            rsvp: false,
            partstat: method === 'REQUEST' ? 'ACCEPTED' : 'DECLINED',
            role: 'REQ-PARTICIPANT',
          },
        ],
      },
    ],
    { method, productId: '-//booking-service//mail//EN' },
  );
  if (error || !value) throw new Error(`calendar part could not be built: ${error?.message ?? 'no output'}`);
  return foldIcs(value);
}
