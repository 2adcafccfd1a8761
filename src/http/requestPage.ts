/** The provider's decision page of a booking request (de/en): markup only, every value escaped, no script. */
import type { RequestView } from '../scheduling/decisionLink.js';
import { formatPeriod, type MailLocale } from '../notifications/format.js';
import { escapeHtml } from '../notifications/layout.js';
import { answerLine } from '../notifications/answers.js';
import { detailList, htmlDocument } from './htmlPage.js';

export type RequestPageKind = 'decide' | 'confirmed' | 'declined' | 'not-pending' | 'invalid' | 'bad-request' | 'error';

type Lead = (customer: string, view?: RequestView) => string;

interface Wording {
  title: Record<RequestPageKind, string>;
  lead: Record<RequestPageKind, Lead>;
  labels: Record<'when' | 'what' | 'where' | 'customer' | 'message', string>;
  confirm: string;
  decline: string;
  reason: string;
  reasonHint: string;
  someone: string;
}

const TEXT: Record<MailLocale, Wording> = {
  de: {
    title: {
      decide: 'Buchungsanfrage',
      confirmed: 'Anfrage bestätigt',
      declined: 'Anfrage abgelehnt',
      'not-pending': 'Bereits entschieden',
      invalid: 'Link ungültig',
      'bad-request': 'Ungültige Anfrage',
      error: 'Das hat nicht geklappt',
    },
    lead: {
      decide: (c) => `${c} möchte diesen Termin buchen. Bitte bestätigen Sie die Anfrage oder lehnen Sie sie ab.`,
      confirmed: (c) => `Der Termin ist jetzt verbindlich gebucht. ${c} erhält die Bestätigung per E-Mail.`,
      declined: (c) => `Die Anfrage ist abgelehnt. ${c} wird per E-Mail informiert.`,
      'not-pending': (_c, v) =>
        v?.state === 'BOOKED'
          ? 'Diese Anfrage wurde bereits bestätigt. Es hat sich nichts geändert.'
          : 'Diese Anfrage wurde bereits abgelehnt oder vom Kunden storniert. Es hat sich nichts geändert.',
      invalid: () => 'Dieser Link ist ungültig, oder die Anfrage besteht nicht mehr.',
      'bad-request': () => 'Diese Anfrage kann so nicht bearbeitet werden.',
      error: () => 'Ihre Entscheidung konnte nicht verarbeitet werden. Bitte versuchen Sie es später noch einmal.',
    },
    labels: { when: 'Wann', what: 'Was', where: 'Wo', customer: 'Kunde', message: 'Nachricht des Kunden' },
    confirm: 'Anfrage bestätigen',
    decline: 'Anfrage ablehnen',
    reason: 'Grund der Ablehnung',
    reasonHint: '(optional, wird dem Kunden geschickt)',
    someone: 'Ein Kunde',
  },
  en: {
    title: {
      decide: 'Booking request',
      confirmed: 'Request confirmed',
      declined: 'Request declined',
      'not-pending': 'Already decided',
      invalid: 'Invalid link',
      'bad-request': 'Invalid request',
      error: 'Something went wrong',
    },
    lead: {
      decide: (c) => `${c} would like to book this appointment. Please confirm or decline the request.`,
      confirmed: (c) => `The appointment is now booked. ${c} receives the confirmation by email.`,
      declined: (c) => `The request has been declined. ${c} is informed by email.`,
      'not-pending': (_c, v) =>
        v?.state === 'BOOKED'
          ? 'This request has already been confirmed. Nothing has changed.'
          : 'This request has already been declined or was cancelled by the customer. Nothing has changed.',
      invalid: () => 'This link is not valid, or the request no longer exists.',
      'bad-request': () => 'This request cannot be processed as sent.',
      error: () => 'Your decision could not be processed. Please try again later.',
    },
    labels: { when: 'When', what: 'What', where: 'Where', customer: 'Customer', message: "Customer's message" },
    confirm: 'Confirm request',
    decline: 'Decline request',
    reason: 'Reason for declining',
    reasonHint: '(optional, sent to the customer)',
    someone: 'A customer',
  },
};

/** Longest decline reason the form accepts (the route's schema says the same). */
export const MAX_REASON = 2000;

function details(view: RequestView, t: Wording, locale: MailLocale): string {
  const l = t.labels;
  const customer = [view.customer.name, view.customer.email, view.customer.mobile].filter(Boolean).join('\n');
  return detailList([
    [l.when, formatPeriod(view.start.toISOString(), view.end.toISOString(), view.timeZone, locale)],
    [l.what, view.productName],
    [l.where, [view.resourceName, view.address].filter(Boolean).join(', ')],
    [l.customer, customer],
    ...view.answers.map((a) => answerLine(a, locale)),
  ]);
}

// No action attribute: each form posts back to this very URL, ?lang= included.
const forms = (t: Wording) =>
  `<form method="post"><input type="hidden" name="decision" value="confirm">` +
  `<button type="submit" class="confirm">${escapeHtml(t.confirm)}</button></form>\n` +
  `<form method="post"><input type="hidden" name="decision" value="decline">` +
  `<label for="reason">${escapeHtml(t.reason)} <span class="hint">${escapeHtml(t.reasonHint)}</span></label>` +
  `<textarea id="reason" name="message" rows="3" maxlength="${MAX_REASON}"></textarea>` +
  `<button type="submit">${escapeHtml(t.decline)}</button></form>`;

/** `problem`: what is wrong with the request (bad-request, http/pageProblem.ts), shown under the lead. */
export function requestPage(kind: RequestPageKind, locale: MailLocale, view?: RequestView, problem?: string): string {
  const t = TEXT[locale];
  const customer = view?.customer.name ?? view?.customer.email ?? t.someone;
  const message =
    kind === 'decide' && view?.message
      ? `<h2>${escapeHtml(t.labels.message)}</h2>` +
        `<blockquote>${escapeHtml(view.message).replace(/\r?\n/g, '<br>')}</blockquote>`
      : '';
  const body = [
    `<h1>${escapeHtml(t.title[kind])}</h1>`,
    `<p>${escapeHtml(t.lead[kind](customer, view))}</p>`,
    problem ? `<p class="error" role="alert">${escapeHtml(problem)}</p>` : '',
    view ? details(view, t, locale) : '',
    message,
    kind === 'decide' ? forms(t) : '',
  ].join('\n');
  return htmlDocument(locale, t.title[kind], body);
}
