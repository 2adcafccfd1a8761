/** The consumer's cancel page (de/en): markup only, every value escaped. */
import type { CancelView } from '../booking/selfCancel.js';
import { formatPeriod, type MailLocale } from '../notifications/format.js';
import { escapeHtml } from '../notifications/layout.js';
import { detailList, htmlDocument } from './htmlPage.js';

export type CancelPageKind = 'confirm' | 'done' | 'already' | 'too-late' | 'invalid' | 'error';

interface PageText {
  title: string;
  lead: (provider: string) => string;
}

const TEXT: Record<MailLocale, Record<CancelPageKind, PageText> & { labels: Record<'when' | 'what' | 'where' | 'provider', string>; button: string }> = {
  de: {
    confirm: { title: 'Termin stornieren', lead: () => 'Möchten Sie diesen Termin stornieren? Ihr Platz wird dann für andere frei.' },
    done: { title: 'Termin storniert', lead: () => 'Ihr Termin ist storniert. Sie erhalten eine Bestätigung per E-Mail.' },
    already: { title: 'Bereits storniert', lead: () => 'Dieser Termin ist bereits storniert.' },
    'too-late': {
      title: 'Stornierung nicht mehr möglich',
      lead: (provider) => `Dieser Termin hat bereits begonnen und kann nicht mehr online storniert werden. Bitte wenden Sie sich direkt an ${provider}.`,
    },
    invalid: { title: 'Link ungültig', lead: () => 'Dieser Stornierungslink ist ungültig, oder der Termin besteht nicht mehr.' },
    error: { title: 'Das hat nicht geklappt', lead: () => 'Ihre Anfrage konnte nicht bearbeitet werden. Bitte versuchen Sie es später noch einmal.' },
    labels: { when: 'Wann', what: 'Was', where: 'Wo', provider: 'Anbieter' },
    button: 'Termin verbindlich stornieren',
  },
  en: {
    confirm: { title: 'Cancel appointment', lead: () => 'Do you want to cancel this appointment? Your place will be released for others.' },
    done: { title: 'Appointment cancelled', lead: () => 'Your appointment has been cancelled. You will receive a confirmation by email.' },
    already: { title: 'Already cancelled', lead: () => 'This appointment has already been cancelled.' },
    'too-late': {
      title: 'Too late to cancel',
      lead: (provider) => `This appointment has already started and can no longer be cancelled online. Please contact ${provider} directly.`,
    },
    invalid: { title: 'Invalid link', lead: () => 'This cancellation link is not valid, or the appointment no longer exists.' },
    error: { title: 'Something went wrong', lead: () => 'Your request could not be processed. Please try again later.' },
    labels: { when: 'When', what: 'What', where: 'Where', provider: 'Provider' },
    button: 'Cancel the appointment',
  },
};

function details(view: CancelView, locale: MailLocale): string {
  const l = TEXT[locale].labels;
  const rows: [string, string | null][] = [
    [l.when, formatPeriod(view.start.toISOString(), view.end.toISOString(), view.timeZone, locale)],
    [l.what, view.productName],
    [l.where, [view.resourceName, view.address].filter(Boolean).join(', ') || null],
    [l.provider, view.providerName],
  ];
  return detailList(rows);
}

export function cancelPage(kind: CancelPageKind, locale: MailLocale, view?: CancelView): string {
  const t = TEXT[locale];
  const text = t[kind];
  const body = [
    `<h1>${escapeHtml(text.title)}</h1>`,
    `<p>${escapeHtml(text.lead(view?.providerName ?? ''))}</p>`,
    view ? details(view, locale) : '',
    // no action attribute: the form posts back to this very URL, ?lang= included
    kind === 'confirm' ? `<form method="post"><button type="submit">${escapeHtml(t.button)}</button></form>` : '',
  ].join('\n');
  return htmlDocument(locale, text.title, body);
}
