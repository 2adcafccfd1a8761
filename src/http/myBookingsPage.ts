/** The page of a "my bookings" link (de/en): markup only, every value escaped, no script. */
import type { MyBooking, MyBookings } from '../booking/myBookings.js';
import { formatPeriod, type MailLocale } from '../notifications/format.js';
import { escapeHtml } from '../notifications/layout.js';
import { detailList, htmlDocument } from './htmlPage.js';

export type MyBookingsPageKind = 'list' | 'invalid' | 'error';

const TEXT = {
  de: {
    list: {
      title: 'Meine Buchungen',
      lead: (p: string) => `Ihre kommenden Termine bei ${p} und die der letzten 30 Tage.`,
    },
    invalid: {
      title: 'Link ungültig',
      lead: () => 'Dieser Link ist ungültig oder abgelaufen. Fordern Sie im Buchungsformular einen neuen an.',
    },
    error: {
      title: 'Das hat nicht geklappt',
      lead: () => 'Ihre Anfrage konnte nicht bearbeitet werden. Bitte versuchen Sie es später noch einmal.',
    },
    none: 'Hier sind keine Buchungen zu sehen.',
    labels: { what: 'Was', where: 'Wo', state: 'Status' },
    states: { REQUESTED: 'angefragt, noch nicht bestätigt', BOOKED: 'gebucht', CANCELED: 'storniert' } as Record<
      string,
      string
    >,
    move: 'Andere Zeit wählen',
    cancel: 'Termin stornieren',
    fixed: 'Online nicht mehr änderbar.',
  },
  en: {
    list: {
      title: 'My bookings',
      lead: (p: string) => `Your upcoming appointments at ${p} and those of the last 30 days.`,
    },
    invalid: {
      title: 'Invalid link',
      lead: () => 'This link is not valid or has expired. Ask for a new one in the booking form.',
    },
    error: {
      title: 'Something went wrong',
      lead: () => 'Your request could not be processed. Please try again later.',
    },
    none: 'There are no bookings to show here.',
    labels: { what: 'What', where: 'Where', state: 'Status' },
    states: { REQUESTED: 'requested, not yet confirmed', BOOKED: 'booked', CANCELED: 'cancelled' } as Record<
      string,
      string
    >,
    move: 'Choose another time',
    cancel: 'Cancel the appointment',
    fixed: 'Can no longer be changed online.',
  },
} as const;

/** One booking: when, what, where, its state, and what its cancel link may still do. */
function bookingSection(b: MyBooking, i: number, locale: MailLocale): string {
  const t = TEXT[locale];
  const v = b.view;
  const period = formatPeriod(v.start.toISOString(), v.end.toISOString(), v.timeZone, locale);
  // relative to /my-bookings/{token}: the booking's own cancel link and manage page
  const manage = `../cancel/${escapeHtml(new URL(b.cancelLink).pathname.split('/').pop()!)}?lang=${locale}`;
  const actions = [
    b.canReschedule ? `<a href="${manage}#reschedule">${escapeHtml(t.move)}</a>` : '',
    b.canCancel
      ? `<form method="post" action="${manage}"><button type="submit">${escapeHtml(t.cancel)}</button></form>`
      : '',
  ].join('');
  const rows: [string, string | null][] = [
    [t.labels.what, v.productName],
    [t.labels.where, [v.resourceName, v.address].filter(Boolean).join(', ') || null],
    [t.labels.state, t.states[v.state] ?? v.state],
  ];
  return (
    `<section aria-labelledby="booking-${i}"><h2 id="booking-${i}">${escapeHtml(period)}</h2>${detailList(rows)}` +
    `${actions || (v.state === 'CANCELED' ? '' : `<p>${escapeHtml(t.fixed)}</p>`)}</section>`
  );
}

export function myBookingsPage(kind: MyBookingsPageKind, locale: MailLocale, list?: MyBookings): string {
  const t = TEXT[locale];
  const text = t[kind];
  const body = [
    `<h1>${escapeHtml(text.title)}</h1>`,
    `<p>${escapeHtml(text.lead(list?.providerName ?? ''))}</p>`,
    ...(list
      ? list.bookings.length > 0
        ? list.bookings.map((b, i) => bookingSection(b, i, locale))
        : [`<p>${escapeHtml(t.none)}</p>`]
      : []),
  ].join('\n');
  return htmlDocument(locale, text.title, body);
}
