import type { MailTemplate } from '../templateNames.js';

export type AppointmentTemplate = Exclude<MailTemplate, 'user-email-verification' | 'my-bookings'>;

/** What the wording of an appointment mail may refer to, already formatted for the locale. */
export interface AppointmentVars {
  /** the product (or, without one, the resource) */
  what: string;
  /** the day of the start, e.g. "12. Juni 2026" */
  day: string;
  /** the period with the zone named */
  period: string;
  participant: string;
  provider: string;
  resource: string | null;
  /** the period before a reschedule (booking-rescheduled*), else null */
  previousPeriod: string | null;
}

export interface VerificationVars {
  email: string;
  reference: string;
}

export interface MyBookingsVars {
  provider: string;
  /** how long the link is valid, in hours */
  validHours: number;
}

export interface TemplateWording<V> {
  subject(v: V): string;
  /** paragraphs between the greeting and the details */
  body(v: V): string[];
}

export interface Wording {
  appointment: Record<AppointmentTemplate, TemplateWording<AppointmentVars>>;
  verification: TemplateWording<VerificationVars>;
  /** the "my bookings" link a consumer asked for (DESIGN 7.12) */
  myBookings: TemplateWording<MyBookingsVars> & { intro: string; action: string };
  greeting(name: string | null): string;
  labels: {
    when: string;
    /** the time before a reschedule */
    previously: string;
    what: string;
    where: string;
    contact: string;
    customer: string;
    /** heading of the provider's message in a mail to the consumer */
    messageFrom(provider: string): string;
    /** heading of the consumer's message in a mail to the provider side */
    customerMessage: string;
    /** heading of the consumer's answers to the booking questions */
    answers: string;
    cancelIntro: string;
    cancelAction: string;
    /** the provider's decision link of a request (booking-request-to-confirm) */
    decisionIntro: string;
    decisionAction: string;
    calendarInvite: string;
    calendarCancel: string;
  };
  fallback: { what: string; participant: string };
  closing: { consumer(provider: string): string[]; provider: string[]; verification: string[] };
}
