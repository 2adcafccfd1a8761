import type { StoredAnswer } from './answers.js';

/**
 * What an outbox row carries: everything its template renders, so delivery needs no lookups and a
 * mail shows the state at the moment of the change.
 */
export interface AppointmentMailPayload {
  kind: 'appointment';
  appointment: {
    uuid: string;
    reference: string;
    /** ISO 8601 with the offset of the provider's zone */
    start: string;
    end: string;
    timeZone: string;
    productName: string | null;
    resourceName: string | null;
    address: string | null;
  };
  provider: { name: string; email: string | null; phone: string | null };
  /** the resource's contact (offerings/contact.ts) */
  contact: { name: string | null; email: string | null; phone: string | null; mobile: string | null };
  participant: { name: string | null; email: string | null; mobile: string | null };
  participation: { uuid: string; reference: string; state: string };
  /** the provider's message (D8, D9, D10, B6, D14) or the consumer's message (booking mails to the provider) */
  message: string | null;
  cancelLink: string | null;
  /** the provider's decision link (booking-request-to-confirm only); absent in rows written before it existed */
  decisionLink?: string | null;
  /** booking-rescheduled*: the time before the move (ISO 8601 with offset) */
  previous?: { start: string; end: string } | null;
  /**
   * the consumer's answers to the booking questions (provider-side
   * mails and the consumer's confirmations only); absent: none
   */
  answers?: StoredAnswer[];
  /** ICS UID, stable per participation (also when it is moved), so updates and cancellations match */
  icsUid: string;
  /** ICS SEQUENCE: grows with each mail about the same UID */
  sequence: number;
}

export interface VerificationMailPayload {
  firstName: string | null;
  lastName: string | null;
  email: string;
  reference: string;
}

/** The "my bookings" link a consumer asked for (booking/myBookings.ts). */
export interface MyBookingsMailPayload {
  kind: 'my-bookings';
  /** PUBLIC_BASE_URL/my-bookings/{token} */
  link: string;
  providerName: string;
  /** how long the link is valid, in hours */
  validHours: number;
  /** when it was asked for (ISO 8601): at most 3 such mails per address and hour count by it */
  requestedAt: string;
}
