import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { AppointmentMailPayload } from './payloads.js';
import { calendarText } from './icsText.js';
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
 * An iTIP message (RFC 5546) about the participant's entry: UID stable per participation and
 * SEQUENCE one higher with every mail about it (0 for the first: compose.ts nextCalendarSequence),
 * so a CANCEL replaces the earlier REQUEST. Times in UTC; lines folded at 75 octets of UTF-8.
 */
export function buildCalendar({
  method,
  payload,
  summary,
  description,
  attendeeEmail,
  fallbackOrganizer,
}: CalendarInput): string {
  const { appointment, contact, provider, participant } = payload;
  const calendar = ical({
    prodId: { company: 'booking-service', product: 'mail', language: 'EN' },
    method: method === 'REQUEST' ? ICalCalendarMethod.REQUEST : ICalCalendarMethod.CANCEL,
  });
  calendar.createEvent({
    id: payload.icsUid,
    sequence: payload.sequence,
    start: new Date(appointment.start),
    end: new Date(appointment.end),
    summary,
    description,
    location: appointment.address,
    status: method === 'REQUEST' ? ICalEventStatus.CONFIRMED : ICalEventStatus.CANCELLED,
    organizer: {
      name: contact.name ?? provider.name,
      email: contact.email ?? provider.email ?? bareAddress(fallbackOrganizer),
    },
    attendees: [
      {
        name: participant.name,
        email: attendeeEmail,
        rsvp: false,
        status: method === 'REQUEST' ? ICalAttendeeStatus.ACCEPTED : ICalAttendeeStatus.DECLINED,
        role: ICalAttendeeRole.REQ,
      },
    ],
  });
  return calendarText(calendar);
}
