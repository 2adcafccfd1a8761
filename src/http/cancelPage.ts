/** The consumer's cancel page (de/en): markup only, every value escaped. */
import type { CancelView } from '../booking/selfCancel.js';
import { formatPeriod, type MailLocale } from '../notifications/format.js';
import { escapeHtml } from '../notifications/layout.js';
import { answerLine } from '../notifications/answers.js';
import { detailList, htmlDocument } from './htmlPage.js';

export type CancelPageKind =
  | 'confirm'
  | 'done'
  | 'already'
  | 'too-late'
  | 'notice'
  | 'invalid'
  | 'bad-request'
  | 'error';

interface PageText {
  title: string;
  lead: (provider: string, notice: string) => string;
}

interface ManageText {
  /** heading of the cancel part of the manage page */
  cancelTitle: string;
  cancelLead: string;
  moveTitle: string;
  moveLead: string;
  moveButton: string;
  moveNoScript: string;
  moved: string;
}

const TEXT: Record<
  MailLocale,
  Record<CancelPageKind, PageText> & {
    labels: Record<'when' | 'what' | 'where' | 'provider', string>;
    button: string;
    manage: ManageText;
    duration: (minutes: number) => string;
  }
> = {
  de: {
    confirm: { title: 'Termin verwalten', lead: () => 'Hier können Sie Ihren Termin verschieben oder stornieren.' },
    done: {
      title: 'Termin storniert',
      lead: () => 'Ihr Termin ist storniert. Sie erhalten eine Bestätigung per E-Mail.',
    },
    already: { title: 'Bereits storniert', lead: () => 'Dieser Termin ist bereits storniert.' },
    'too-late': {
      title: 'Stornierung nicht mehr möglich',
      lead: (provider) =>
        `Dieser Termin hat bereits begonnen und kann nicht mehr online storniert werden. ` +
        `Bitte wenden Sie sich direkt an ${provider}.`,
    },
    notice: {
      title: 'Änderung nicht mehr möglich',
      lead: (provider, notice) =>
        `Weniger als ${notice} vor Beginn kann dieser Termin nicht mehr online storniert oder verschoben ` +
        `werden. Bitte wenden Sie sich direkt an ${provider}.`,
    },
    invalid: {
      title: 'Link ungültig',
      lead: () => 'Dieser Stornierungslink ist ungültig, oder der Termin besteht nicht mehr.',
    },
    'bad-request': { title: 'Ungültige Anfrage', lead: () => 'Diese Anfrage kann so nicht bearbeitet werden.' },
    error: {
      title: 'Das hat nicht geklappt',
      lead: () => 'Ihre Anfrage konnte nicht bearbeitet werden. Bitte versuchen Sie es später noch einmal.',
    },
    labels: { when: 'Wann', what: 'Was', where: 'Wo', provider: 'Anbieter' },
    button: 'Termin verbindlich stornieren',
    manage: {
      cancelTitle: 'Termin stornieren',
      cancelLead: 'Möchten Sie diesen Termin stornieren? Ihr Platz wird dann für andere frei.',
      moveTitle: 'Anderen Termin wählen',
      moveLead:
        'Sie können Ihren Termin auf eine andere freie Zeit verschieben. Ihr bisheriger Platz bleibt, ' +
        'bis der neue gebucht ist.',
      moveButton: 'Andere Zeit wählen',
      moveNoScript: 'Zum Verschieben wird JavaScript benötigt.',
      moved: 'Ihr Termin wurde verschoben. Sie erhalten eine Bestätigung per E-Mail.',
    },
    duration: (m) => (m % 60 === 0 ? `${m / 60} ${m === 60 ? 'Stunde' : 'Stunden'}` : `${m} Minuten`),
  },
  en: {
    confirm: { title: 'Manage your booking', lead: () => 'Here you can move or cancel your appointment.' },
    done: {
      title: 'Appointment cancelled',
      lead: () => 'Your appointment has been cancelled. You will receive a confirmation by email.',
    },
    already: { title: 'Already cancelled', lead: () => 'This appointment has already been cancelled.' },
    'too-late': {
      title: 'Too late to cancel',
      lead: (provider) =>
        `This appointment has already started and can no longer be cancelled online. ` +
        `Please contact ${provider} directly.`,
    },
    notice: {
      title: 'Too late to change',
      lead: (provider, notice) =>
        `Less than ${notice} before it starts, this appointment can no longer be cancelled or moved online. ` +
        `Please contact ${provider} directly.`,
    },
    invalid: {
      title: 'Invalid link',
      lead: () => 'This cancellation link is not valid, or the appointment no longer exists.',
    },
    'bad-request': { title: 'Invalid request', lead: () => 'This request cannot be processed as sent.' },
    error: {
      title: 'Something went wrong',
      lead: () => 'Your request could not be processed. Please try again later.',
    },
    labels: { when: 'When', what: 'What', where: 'Where', provider: 'Provider' },
    button: 'Cancel the appointment',
    manage: {
      cancelTitle: 'Cancel appointment',
      cancelLead: 'Do you want to cancel this appointment? Your place will be released for others.',
      moveTitle: 'Choose another time',
      moveLead:
        'You can move your appointment to another free time. You keep your current place until the new one is booked.',
      moveButton: 'Choose another time',
      moveNoScript: 'Moving the appointment needs JavaScript.',
      moved: 'Your appointment has been moved. You will receive a confirmation by email.',
    },
    duration: (m) => (m % 60 === 0 ? `${m / 60} ${m === 60 ? 'hour' : 'hours'}` : `${m} minutes`),
  },
};

/** `withAnswers`: the consumer's own answers, on the manage page only. */
function details(view: CancelView, locale: MailLocale, withAnswers: boolean): string {
  const l = TEXT[locale].labels;
  const rows: [string, string | null][] = [
    [l.when, formatPeriod(view.start.toISOString(), view.end.toISOString(), view.timeZone, locale)],
    [l.what, view.productName],
    [l.where, [view.resourceName, view.address].filter(Boolean).join(', ') || null],
    [l.provider, view.providerName],
    ...(withAnswers ? view.answers.map((a) => answerLine(a, locale)) : []),
  ];
  return detailList(rows);
}

const MOVABLE = new Set(['BOOKED', 'REQUESTED']);

/** The manage page's two parts: another time (the widget's slot picker, manage.js) and the cancel form. */
function manageSections(view: CancelView, locale: MailLocale, notice: string | null): string {
  const t = TEXT[locale];
  const m = t.manage;
  const canMove = MOVABLE.has(view.state) && view.resourceId !== null;
  // a booking made through a pool may move to any member: the picker lists the pool ("anyone" and each member)
  const data = {
    'data-ref': view.poolId ?? view.resourceId ?? '',
    'data-prd-ref': view.productId ?? '',
    'data-channel-key': view.channelKey ?? '',
    'data-lang': locale,
  };
  const attrs = Object.entries(data)
    .map(([k, v]) => `${k}="${escapeHtml(v)}"`)
    .join(' ');
  return [
    notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : '',
    canMove
      ? `<section id="reschedule" ${attrs}><h2>${escapeHtml(m.moveTitle)}</h2><p>${escapeHtml(m.moveLead)}</p>` +
        `<button type="button" class="secondary" id="choose-time" hidden>${escapeHtml(m.moveButton)}</button>` +
        `<noscript><p>${escapeHtml(m.moveNoScript)}</p></noscript><div id="slot-picker"></div>` +
        `<div id="move-confirm"></div></section>`
      : '',
    `<section><h2>${escapeHtml(m.cancelTitle)}</h2><p>${escapeHtml(m.cancelLead)}</p>`,
    // no action attribute: the form posts back to this very URL, ?lang= included
    `<form method="post"><button type="submit">${escapeHtml(t.button)}</button></form></section>`,
    canMove ? '<script src="../widget.js"></script><script src="../widget/manage.js"></script>' : '',
  ].join('\n');
}

export interface PageOptions {
  /** the manage page after a successful move */
  moved?: boolean;
  /** bad-request: what is wrong with the request (http/pageProblem.ts) */
  problem?: string;
}

export function cancelPage(
  kind: CancelPageKind,
  locale: MailLocale,
  view?: CancelView,
  options: PageOptions = {},
): string {
  const t = TEXT[locale];
  const text = t[kind];
  const notice = view?.cancelNoticeMinutes != null ? t.duration(view.cancelNoticeMinutes) : '';
  const body = [
    `<h1>${escapeHtml(text.title)}</h1>`,
    `<p>${escapeHtml(text.lead(view?.providerName ?? '', notice))}</p>`,
    options.problem ? `<p class="error" role="alert">${escapeHtml(options.problem)}</p>` : '',
    view ? details(view, locale, kind === 'confirm') : '',
    kind === 'confirm' && view ? manageSections(view, locale, options.moved ? t.manage.moved : null) : '',
  ].join('\n');
  return htmlDocument(locale, text.title, body);
}
