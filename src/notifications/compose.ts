import { DateTime } from 'luxon';
import type { Config } from '../config.js';
import type { Queryable } from '../storage/db.js';
import { cancelLinkFor, decisionLinkFor } from './cancelToken.js';
import { storedAnswers } from './answers.js';
import { calendarMethodFor } from './ics.js';
import { calendarSequenceSql, enqueueMails, type OutboxMail } from './outbox.js';
import type { AppointmentMailPayload } from './payloads.js';
import type { MailTemplate } from './templateNames.js';

/** Mails that go to the provider side (docs/api.md, Mails); every other appointment mail goes to the participant. */
export const PROVIDER_SIDE: ReadonlySet<MailTemplate> = new Set([
  'booking-notification',
  'booking-request-to-confirm',
  'self-cancel-notification',
  'booking-rescheduled-notification',
]);
/** Mails that carry the consumer's cancel link. */
const WITH_CANCEL_LINK: ReadonlySet<MailTemplate> = new Set([
  'booking-confirmed',
  'booking-requested',
  'participation-booked',
  'booking-rescheduled',
  'booking-reminder',
]);
/**
 * Mails that show the consumer's answers to the booking questions: the provider side's, and the
 * consumer's own confirmations (nowhere else: answers are personal data).
 */
const WITH_ANSWERS: ReadonlySet<MailTemplate> = new Set([
  ...PROVIDER_SIDE,
  'booking-confirmed',
  'booking-requested',
  'participation-booked',
]);
/** Mails that carry the provider's decision link; all go to the provider side, never to a consumer. */
const WITH_DECISION_LINK: ReadonlySet<MailTemplate> = new Set(['booking-request-to-confirm']);

export const DEFAULT_MAIL_LOCALE = 'de';

/**
 * What the mails and the cancel page say about one participation, read in one query. `State` is
 * the participation state as the scheduling module types it (this module treats it as text).
 */
export interface ParticipationFacts<State extends string = string> {
  crm_id: string;
  p_id: string;
  p_reference: string;
  p_state: State;
  p_locale: string | null;
  p_message: string | null;
  /** the booking questions' answers (answers.ts); null: none */
  p_answers?: unknown;
  a_id: string;
  a_reference: string;
  start_at: Date;
  end_at: Date;
  a_address: unknown;
  a_product_name: string | null;
  product_name: string | null;
  resource_id: string | null;
  resource_name: string | null;
  resource_address: unknown;
  provider_name: string;
  provider_email: string | null;
  provider_phone: string | null;
  time_zone: string;
  c_name: string | null;
  c_email: string | null;
  c_mobile: string | null;
  c_language: string | null;
  /** the calendar entry's UID once the booking was moved (migration 010); null: derived */
  p_ics_uid?: string | null;
  /** the SEQUENCE of this mail's calendar part (nextCalendarSequence); absent: 0 */
  p_ics_sequence?: number;
  p_channel_key?: string | null;
  a_product_id?: string | null;
  resource_booking_window?: Record<string, number | null> | null;
  /** the pool the booking was made through (null: none, or the pool was deleted) */
  p_pool_id?: string | null;
}

export async function participationFacts<State extends string = string>(
  db: Queryable,
  participationId: string,
): Promise<ParticipationFacts<State> | undefined> {
  const [row] = await db.query<ParticipationFacts<State>>(
    `SELECT pa.crm_id, pa.id AS p_id, pa.reference AS p_reference, pa.state AS p_state, pa.locale AS p_locale,
            pa.message AS p_message, pa.answers AS p_answers,
            pa.appointment_id AS a_id, a.reference AS a_reference, a.start_at, a.end_at, a.address AS a_address,
            a.product_name AS a_product_name,
            pr.name AS product_name, r.id AS resource_id, r.public_name AS resource_name, r.address AS resource_address,
            pv.name AS provider_name, pv.email AS provider_email, pv.phone AS provider_phone, pv.time_zone,
            c.user_name AS c_name, c.email AS c_email, c.mobile AS c_mobile, c.language AS c_language,
            pa.ics_uid AS p_ics_uid, pa.channel_key AS p_channel_key, a.product_id AS a_product_id,
            r.booking_window AS resource_booking_window, pa.pool_id AS p_pool_id
       FROM participations pa
       JOIN appointments a ON a.id = pa.appointment_id
       JOIN providers pv ON pv.id = pa.provider_id
       LEFT JOIN products pr ON pr.id = a.product_id
       LEFT JOIN resources r ON r.id = a.resource_id
       LEFT JOIN customers c ON c.id = pa.customer_id
      WHERE pa.id = $1`,
    [participationId],
  );
  return row;
}

/**
 * The SEQUENCE of the next mail's calendar part about a participation (its UID), stored with it:
 * 0 for the first, then one higher with every mail that carries one (a change, a cancellation, a
 * reminder), also several in one second. Participations mailed before migration 023 continue from
 * the Unix seconds their mails carried then.
 */
export async function nextCalendarSequence(tx: Queryable, participationId: string): Promise<number> {
  const [row] = await tx.query<{ sequence: string }>(calendarSequenceSql('$1'), [participationId]);
  return Number(row.sequence);
}

/** Whether any of these mails about a participation in this state carries a calendar part (and so takes a SEQUENCE). */
export const carriesCalendar = (templates: MailTemplate[], state: string) =>
  templates.some((t) => !PROVIDER_SIDE.has(t) && calendarMethodFor(t, state) !== null);

export function addressText(address: unknown): string | null {
  if (address === null || address === undefined) return null;
  if (typeof address === 'string') return address;
  const a = address as Record<string, string | undefined>;
  const line1 = [a.street, a.number].filter(Boolean).join(' ');
  const line2 = [a.zip, a.city].filter(Boolean).join(' ');
  return [line1, line2, a.countryCode ?? a.country].filter(Boolean).join(', ') || null;
}

export interface MailExtras {
  /** provider's text for the participant, or for provider-side mails the consumer's message */
  message?: string | null;
  /** overrides the participant's language */
  locale?: string | null;
  /** a reschedule: the time the booking had before */
  previous?: { start: Date; end: Date } | null;
}

/** The resource's contact as the mails show it (the offerings module resolves it; its ResolvedContact fits). */
export interface MailContact {
  name: string | null;
  email: string | null;
  phone: string | null;
  mobile: string | null;
  /** the contact user's language (provider-side mails speak it); null: German */
  language: string | null;
}

/** Everything the mails about one participation say, as the domain knows it at the change. */
export interface ParticipationMailFacts {
  facts: ParticipationFacts;
  /** the resource's resolved contact; null: the provider's own data */
  contact: MailContact | null;
  /** the consumer's cancel link, when a template carries it */
  cancelLink: string | null;
  /** the provider's decision link, when a template carries it */
  decisionLink?: string | null;
}

/** Whether any of the templates carries the consumer's cancel link. */
export const needsCancelLink = (templates: MailTemplate[]) => templates.some((t) => WITH_CANCEL_LINK.has(t));
/** Whether any of the templates carries the provider's decision link. */
export const needsDecisionLink = (templates: MailTemplate[]) => templates.some((t) => WITH_DECISION_LINK.has(t));

/**
 * The outbox mails of the given templates about one participation. Participant mails go to the
 * customer's email, provider-side mails to the resource's contact (profile email, else contact
 * user, else provider). A mail without a recipient is left out.
 */
export function participationMails(
  { facts: row, contact, cancelLink, decisionLink = null }: ParticipationMailFacts,
  templates: MailTemplate[],
  extras: MailExtras = {},
): OutboxMail[] {
  const zone = row.time_zone;
  const iso = (d: Date) => DateTime.fromJSDate(d, { zone }).toISO({ suppressMilliseconds: true })!;
  const base: Omit<AppointmentMailPayload, 'message' | 'cancelLink' | 'decisionLink'> = {
    kind: 'appointment',
    appointment: {
      uuid: row.a_id,
      reference: row.a_reference,
      start: iso(row.start_at),
      end: iso(row.end_at),
      timeZone: zone,
      productName: row.a_product_name ?? row.product_name,
      resourceName: row.resource_name,
      address: addressText(row.a_address ?? row.resource_address),
    },
    provider: { name: row.provider_name, email: row.provider_email, phone: row.provider_phone },
    contact: {
      name: contact?.name ?? row.provider_name,
      email: contact?.email ?? row.provider_email,
      phone: contact?.phone ?? row.provider_phone,
      mobile: contact?.mobile ?? null,
    },
    participant: { name: row.c_name, email: row.c_email, mobile: row.c_mobile },
    participation: { uuid: row.p_id, reference: row.p_reference, state: row.p_state },
    icsUid: row.p_ics_uid ?? `${row.a_id}.${row.p_id}@booking-service`,
    sequence: row.p_ics_sequence ?? 0,
  };
  const answers = storedAnswers(row.p_answers);
  const participantLocale = extras.locale ?? row.p_locale ?? row.c_language ?? DEFAULT_MAIL_LOCALE;
  const mails: OutboxMail[] = [];
  for (const template of templates) {
    const providerSide = PROVIDER_SIDE.has(template);
    const recipient = providerSide ? (contact?.email ?? row.provider_email) : row.c_email;
    if (!recipient) continue;
    const payload: AppointmentMailPayload = {
      ...base,
      message: providerSide ? (extras.message ?? row.p_message ?? null) : (extras.message ?? null),
      cancelLink: WITH_CANCEL_LINK.has(template) ? cancelLink : null,
      decisionLink: providerSide && WITH_DECISION_LINK.has(template) ? decisionLink : null,
      ...(WITH_ANSWERS.has(template) && answers.length > 0 ? { answers } : {}),
      ...(extras.previous ? { previous: { start: iso(extras.previous.start), end: iso(extras.previous.end) } } : {}),
    };
    mails.push({
      crmId: row.crm_id,
      template,
      recipient,
      locale: providerSide ? (contact?.language ?? DEFAULT_MAIL_LOCALE) : participantLocale,
      payload: payload as unknown as Record<string, unknown>,
    });
  }
  return mails;
}

/**
 * What the caller hands the composer besides the participation: notifications sits below the
 * domain modules and imports none of them, so the contact rules come in as a function.
 */
export interface MailSources {
  config: Config;
  /** the resource's contact (offerings/contact.ts loadResourceContact) */
  contactOf(tx: Queryable, resourceId: string): Promise<MailContact | null>;
}

/**
 * Writes the given templates about one participation to the outbox, inside the caller's
 * transaction, reading what they say first (participationMails has the rules).
 */
export async function enqueueParticipationMails(
  tx: Queryable,
  sources: MailSources,
  participationId: string,
  templates: MailTemplate[],
  extras: MailExtras = {},
): Promise<void> {
  if (templates.length === 0) return;
  const read = await participationFacts(tx, participationId);
  if (!read) return;
  const facts = carriesCalendar(templates, read.p_state)
    ? { ...read, p_ics_sequence: await nextCalendarSequence(tx, participationId) }
    : read;
  const contact = facts.resource_id ? await sources.contactOf(tx, facts.resource_id) : null;
  const cancelLink = needsCancelLink(templates) ? await cancelLinkFor(tx, sources.config, facts.p_id) : null;
  const decisionLink = needsDecisionLink(templates) ? await decisionLinkFor(tx, sources.config, facts.p_id) : null;
  await enqueueMails(tx, participationMails({ facts, contact, cancelLink, decisionLink }, templates, extras));
}
