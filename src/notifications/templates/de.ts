import type { Wording } from './types.js';

export const de: Wording = {
  appointment: {
    'booking-confirmed': {
      subject: (v) => `Buchungsbestätigung: ${v.what} am ${v.day}`,
      body: () => ['vielen Dank für Ihre Buchung. Ihr Termin ist verbindlich gebucht.'],
    },
    'booking-notification': {
      subject: (v) => `Neue Buchung: ${v.what} am ${v.day} (${v.participant})`,
      body: (v) => [`${v.participant} hat folgenden Termin gebucht.`],
    },
    'booking-requested': {
      subject: (v) => `Anfrage erhalten: ${v.what} am ${v.day}`,
      body: (v) => [
        'vielen Dank für Ihre Anfrage.',
        `${v.provider} prüft sie und bestätigt den Termin so bald wie möglich. ` +
          `Bis dahin ist der Termin noch nicht verbindlich gebucht.`,
      ],
    },
    'booking-request-to-confirm': {
      subject: (v) => `Bitte bestätigen: Anfrage für ${v.what} am ${v.day} (${v.participant})`,
      body: (v) => [
        `${v.participant} möchte folgenden Termin buchen. Bitte bestätigen Sie die Anfrage oder sagen Sie sie ab.`,
      ],
    },
    'booking-declined': {
      subject: (v) => `Anfrage abgelehnt: ${v.what} am ${v.day}`,
      body: (v) => [
        `${v.provider} kann Ihre Anfrage für folgenden Termin leider nicht bestätigen. Der Termin ist nicht gebucht.`,
      ],
    },
    'participation-booked': {
      subject: (v) => `Termin bestätigt: ${v.what} am ${v.day}`,
      body: (v) => [`${v.provider} hat Ihren Termin bestätigt. Er ist jetzt verbindlich gebucht.`],
    },
    'participation-canceled': {
      subject: (v) => `Termin abgesagt: ${v.what} am ${v.day}`,
      body: (v) => [`${v.provider} hat Ihre Teilnahme an folgendem Termin abgesagt.`],
    },
    'appointment-cancelled': {
      subject: (v) => `Absage: ${v.what} am ${v.day}`,
      body: (v) => [`${v.provider} hat folgenden Termin abgesagt. Er findet nicht statt.`],
    },
    'resource-deleted-cancellation': {
      subject: (v) => `Termin entfällt: ${v.what} am ${v.day}`,
      body: (v) => [
        `Folgender Termin findet nicht statt, weil ${v.resource ?? 'das Angebot'} nicht mehr angeboten wird.`,
        `Bei Fragen wenden Sie sich bitte an ${v.provider}.`,
      ],
    },
    'customer-removed': {
      subject: (v) => `Termin storniert: ${v.what} am ${v.day}`,
      body: (v) => [`${v.provider} hat Sie von folgendem Termin abgemeldet.`],
    },
    'self-cancel-confirmation': {
      subject: (v) => `Stornierung bestätigt: ${v.what} am ${v.day}`,
      body: () => ['Sie haben folgenden Termin storniert. Ihr Platz ist wieder frei.'],
    },
    'self-cancel-notification': {
      subject: (v) => `Stornierung: ${v.what} am ${v.day} (${v.participant})`,
      body: (v) => [
        `${v.participant} hat folgenden Termin über den Stornierungslink abgesagt. Der Platz ist wieder frei.`,
      ],
    },
    'booking-rescheduled': {
      subject: (v) => `Termin verschoben: ${v.what} am ${v.day}`,
      body: (v) => [
        `Ihr Termin wurde verschoben${v.previousPeriod ? ` (bisher: ${v.previousPeriod})` : ''}. ` +
          `Hier ist die neue Zeit.`,
      ],
    },
    'booking-rescheduled-notification': {
      subject: (v) => `Termin verschoben: ${v.what} am ${v.day} (${v.participant})`,
      body: (v) => [
        `${v.participant} hat den Termin${v.previousPeriod ? ` vom ${v.previousPeriod}` : ''} ` +
          `über den Buchungslink auf folgende Zeit verschoben. Der bisherige Platz ist wieder frei.`,
      ],
    },
    'booking-reminder': {
      subject: (v) => `Erinnerung: ${v.what} am ${v.day}`,
      body: () => ['wir möchten Sie an Ihren Termin erinnern.'],
    },
  },
  verification: {
    subject: () => 'Bitte bestätigen Sie Ihre E-Mail-Adresse',
    body: (v) => [
      `Ihre E-Mail-Adresse ${v.email} wurde mit einem Benutzerkonto verknüpft (Referenz ${v.reference}).`,
      'Bitte bestätigen Sie Ihre E-Mail-Adresse bei Ihrer nächsten Anmeldung erneut. ' +
        'Falls Sie das nicht veranlasst haben, wenden Sie sich bitte an den Anbieter, ' +
        'bei dem Sie gebucht haben.',
    ],
  },
  myBookings: {
    subject: (v) => `Ihre Buchungen bei ${v.provider}`,
    body: (v) => [
      `Sie haben einen Link zu Ihren Buchungen bei ${v.provider} angefordert. ` +
        `Dort sehen Sie Ihre kommenden Termine und die der letzten 30 Tage und können sie verschieben oder ` +
        `stornieren.`,
      `Der Link ist ${v.validHours} Stunden gültig. Falls Sie ihn nicht angefordert haben, ` +
        `können Sie diese E-Mail ignorieren.`,
    ],
    intro: 'Ihre Buchungen, ohne Anmeldung:',
    action: 'Meine Buchungen ansehen',
  },
  greeting: (name) => (name ? `Hallo ${name},` : 'Guten Tag,'),
  labels: {
    when: 'Wann',
    previously: 'Bisher',
    what: 'Was',
    where: 'Wo',
    contact: 'Kontakt',
    customer: 'Kunde',
    messageFrom: (provider) => `Nachricht von ${provider}`,
    customerMessage: 'Nachricht des Kunden',
    answers: 'Angaben zur Buchung',
    cancelIntro: 'Falls Sie den Termin nicht wahrnehmen können, stornieren Sie ihn bitte hier:',
    cancelAction: 'Termin stornieren',
    decisionIntro: 'Bestätigen Sie die Anfrage oder sagen Sie sie ab, ohne Anmeldung:',
    decisionAction: 'Anfrage ansehen und entscheiden',
    calendarInvite: 'Im Anhang finden Sie eine Kalendereinladung für Ihren Kalender.',
    calendarCancel: 'Die Kalenderdatei im Anhang entfernt den Termin aus Ihrem Kalender.',
  },
  fallback: { what: 'Termin', participant: 'Ein Kunde' },
  closing: {
    consumer: (provider) => ['Viele Grüße', provider],
    provider: ['Diese Nachricht wurde automatisch vom Buchungssystem versendet.'],
    verification: ['Viele Grüße', 'Ihr Buchungsservice'],
  },
};
