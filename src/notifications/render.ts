import { answerLine } from './answers.js';
import { PROVIDER_SIDE } from './compose.js';
import { formatDay, formatPeriod, mailLocale, type MailLocale } from './format.js';
import { buildCalendar, calendarMethodFor, type CalendarMethod } from './ics.js';
import { toHtml, toText, type MailDoc } from './layout.js';
import type { AppointmentMailPayload, MyBookingsMailPayload, VerificationMailPayload } from './payloads.js';
import { MAIL_TEMPLATES, type MailTemplate } from './templateNames.js';
import { de } from './templates/de.js';
import { en } from './templates/en.js';
import type { AppointmentTemplate, AppointmentVars, Wording } from './templates/types.js';

const WORDING: Record<MailLocale, Wording> = { de, en };

export interface MailToRender {
  template: string;
  locale: string;
  recipient: string;
  payload: unknown;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  calendar: { method: CalendarMethod; content: string } | null;
}

/** A row that can never be rendered (unknown template, broken payload): retrying will not help. */
export class RenderError extends Error {}

export interface RenderOptions {
  /** MAIL_FROM: the calendar organizer when the provider side has no address */
  mailFrom: string;
}

function isAppointmentPayload(p: unknown): p is AppointmentMailPayload {
  const a = (p as AppointmentMailPayload | null)?.appointment;
  return (
    (p as AppointmentMailPayload | null)?.kind === 'appointment' &&
    typeof a?.start === 'string' &&
    typeof a?.end === 'string' &&
    typeof a?.timeZone === 'string'
  );
}

function isVerificationPayload(p: unknown): p is VerificationMailPayload {
  return (
    typeof (p as VerificationMailPayload | null)?.email === 'string' &&
    typeof (p as VerificationMailPayload).reference === 'string'
  );
}

function isMyBookingsPayload(p: unknown): p is MyBookingsMailPayload {
  const m = p as MyBookingsMailPayload | null;
  return (
    m?.kind === 'my-bookings' &&
    typeof m.link === 'string' &&
    typeof m.providerName === 'string' &&
    typeof m.validHours === 'number'
  );
}

/** Subject, plain text, HTML and calendar part of one outbox row, in the row's language (unknown: de). */
export function renderMail(mail: MailToRender, options: RenderOptions): RenderedMail {
  if (!(MAIL_TEMPLATES as readonly string[]).includes(mail.template))
    throw new RenderError(`unknown template ${mail.template}`);
  const template = mail.template as MailTemplate;
  const locale = mailLocale(mail.locale);
  if (template === 'user-email-verification') {
    if (!isVerificationPayload(mail.payload)) throw new RenderError(`payload of ${template} lacks email or reference`);
    return renderVerification(mail.payload, locale);
  }
  if (template === 'my-bookings') {
    if (!isMyBookingsPayload(mail.payload)) throw new RenderError(`payload of ${template} lacks link or providerName`);
    return renderMyBookings(mail.payload, locale);
  }
  if (!isAppointmentPayload(mail.payload))
    throw new RenderError(`payload of ${template} is not an appointment payload`);
  return renderAppointment(template, mail.payload, locale, mail.recipient, options);
}

function renderVerification(payload: VerificationMailPayload, locale: MailLocale): RenderedMail {
  const w = WORDING[locale];
  const name = [payload.firstName, payload.lastName].filter(Boolean).join(' ') || null;
  const doc: MailDoc = {
    lang: locale,
    subject: w.verification.subject(payload),
    greeting: w.greeting(name),
    paragraphs: w.verification.body(payload),
    details: [],
    message: null,
    link: null,
    note: null,
    closing: w.closing.verification,
  };
  return { subject: doc.subject, text: toText(doc), html: toHtml(doc), calendar: null };
}

function renderMyBookings(payload: MyBookingsMailPayload, locale: MailLocale): RenderedMail {
  const w = WORDING[locale];
  const vars = { provider: payload.providerName, validHours: payload.validHours };
  const doc: MailDoc = {
    lang: locale,
    subject: oneLine(w.myBookings.subject(vars)),
    greeting: w.greeting(null),
    paragraphs: w.myBookings.body(vars),
    details: [],
    message: null,
    link: { intro: w.myBookings.intro, label: w.myBookings.action, url: payload.link },
    note: null,
    closing: w.closing.consumer(payload.providerName),
  };
  return { subject: doc.subject, text: toText(doc), html: toHtml(doc), calendar: null };
}

/** A header never carries a line break, whatever a product name contains. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

const lines = (...values: (string | null | undefined)[]) => values.filter((v): v is string => Boolean(v)).join('\n');

function renderAppointment(
  template: AppointmentTemplate,
  payload: AppointmentMailPayload,
  locale: MailLocale,
  recipient: string,
  options: RenderOptions,
): RenderedMail {
  const w = WORDING[locale];
  const { appointment, provider, contact, participant } = payload;
  const providerSide = PROVIDER_SIDE.has(template);
  const vars: AppointmentVars = {
    what: appointment.productName ?? appointment.resourceName ?? w.fallback.what,
    day: formatDay(appointment.start, appointment.timeZone, locale),
    period: formatPeriod(appointment.start, appointment.end, appointment.timeZone, locale),
    participant: participant.name ?? participant.email ?? w.fallback.participant,
    provider: provider.name,
    resource: appointment.resourceName,
    previousPeriod: payload.previous
      ? formatPeriod(payload.previous.start, payload.previous.end, appointment.timeZone, locale)
      : null,
  };
  const where = lines(appointment.resourceName, appointment.address);
  const details: MailDoc['details'] = [
    [w.labels.when, vars.period],
    ...(vars.previousPeriod ? [[w.labels.previously, vars.previousPeriod] as [string, string]] : []),
    [w.labels.what, appointment.productName ?? vars.what],
    ...(where ? [[w.labels.where, where] as [string, string]] : []),
    providerSide
      ? [w.labels.customer, lines(participant.name, participant.email, participant.mobile) || vars.participant]
      : [w.labels.contact, lines(contact.name ?? provider.name, contact.email, contact.phone ?? contact.mobile)],
  ];
  const method = providerSide ? null : calendarMethodFor(template, payload.participation.state);
  const wording = w.appointment[template];
  const doc: MailDoc = {
    lang: locale,
    subject: oneLine(wording.subject(vars)),
    greeting: w.greeting(providerSide ? contact.name : participant.name),
    paragraphs: wording.body(vars),
    details,
    answers: payload.answers?.length
      ? { heading: w.labels.answers, rows: payload.answers.map((a) => answerLine(a, locale)) }
      : null,
    message: payload.message
      ? {
          heading: providerSide ? w.labels.customerMessage : w.labels.messageFrom(provider.name),
          text: payload.message,
        }
      : null,
    link: payload.cancelLink
      ? { intro: w.labels.cancelIntro, label: w.labels.cancelAction, url: payload.cancelLink }
      : payload.decisionLink
        ? { intro: w.labels.decisionIntro, label: w.labels.decisionAction, url: payload.decisionLink }
        : null,
    note: method === 'REQUEST' ? w.labels.calendarInvite : method === 'CANCEL' ? w.labels.calendarCancel : null,
    closing: providerSide ? w.closing.provider : w.closing.consumer(provider.name),
  };
  const calendar = method
    ? {
        method,
        content: buildCalendar({
          method,
          payload,
          summary: `${vars.what} (${provider.name})`,
          description: [
            ...details.map(([label, value]) => `${label}: ${value.replace(/\n/g, ', ')}`),
            payload.cancelLink ? `${w.labels.cancelAction}: ${payload.cancelLink}` : null,
          ]
            .filter(Boolean)
            .join('\n'),
          attendeeEmail: participant.email ?? recipient,
          fallbackOrganizer: options.mailFrom,
        }),
      }
    : null;
  return { subject: doc.subject, text: toText(doc), html: toHtml(doc), calendar };
}
