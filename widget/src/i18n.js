/**
 * Texts in German and English. Month and weekday names come from Intl.DateTimeFormat (format.js),
 * everything else from here.
 */

/** @typedef {'de' | 'en'} Lang */
/** @typedef {typeof TEXT.en} Dict */

export const TEXT = {
  en: {
    loading: 'Loading…',
    stepOf: 'Step {n} of {total}',
    stepProduct: 'Choose a service',
    stepSlots: 'Choose a date and time',
    who: 'With',
    anyone: 'Anyone who is free',
    assignedTo: 'With: {name}',
    stepDetails: 'Your details',
    doneBooked: 'Your appointment is booked',
    doneRequested: 'Request sent — the provider will confirm',
    doneBookedText: 'We have sent a confirmation to {email}.',
    doneRequestedText:
      'Your appointment is not confirmed yet. You will receive an email at {email} ' +
      'as soon as the provider has confirmed it.',
    cancelLink: 'Cancel this appointment',
    bookAnother: 'Book another appointment',
    emptyTitle: 'No free appointments at the moment',
    emptyText: 'All times are taken or none have been published yet. Please check back later.',
    contactUs: 'You can also contact us:',
    checkAgain: 'Check again',
    errorTitle: 'The booking calendar could not be loaded',
    notFound: 'This booking calendar is not available.',
    networkError: 'Connection problem. Please check your internet connection and try again.',
    serverError: 'Something went wrong on our side. Please try again.',
    retry: 'Try again',
    tooMany: 'Too many attempts. Please wait a minute, then try again.',
    slotTaken:
      'Sorry, this time has just been taken by someone else. The list has been updated; please choose another time.',
    alreadyBooked: 'You have already booked this appointment.',
    consumerLimit: 'You already have as many upcoming bookings here as are allowed. Please cancel one of them first.',
    reserved: 'Time reserved for you. Please complete your booking within {min} minutes.',
    holdLeft: 'Reserved for you for another {time}',
    holdOneMinute: 'One minute left to complete your booking.',
    holdExpired:
      'Your reservation has expired, so this time is no longer held for you. Reserve it again or choose another time.',
    reserveAgain: 'Reserve this time again',
    pickAgain: 'Choose another time',
    change: 'Change',
    changeTime: 'Change time',
    changeService: 'Change service',
    earlier: 'Earlier days',
    later: 'Later days',
    days: 'Days with free times',
    timesOn: 'Free times on {date}',
    timesCount: '{n} free times',
    timesCountOne: '1 free time',
    slotLabel: '{start} to {end}',
    placesLeft: '{n} places left',
    placeLeft: '1 place left',
    minutes: '{n} min',
    reserving: 'Reserving {time}…',
    firstname: 'First name',
    lastname: 'Last name',
    email: 'Email',
    mobile: 'Mobile number',
    message: 'Message',
    optional: 'optional',
    requiredNote: 'Fields marked * are required.',
    mobileHint: 'E.g. 0151 23456789 or +49 151 23456789',
    charsLeft: '{n} characters left',
    errRequired: 'Please fill in this field.',
    errEmail: 'Please enter a valid email address, e.g. name@example.com.',
    errMobile: 'Please enter a valid mobile number, e.g. +49 151 23456789.',
    errMessage: 'The message may have at most 1024 characters.',
    errInvalid: 'Please check this entry.',
    errChoose: 'Please choose one.',
    errCheckbox: 'Please tick this box to continue.',
    errTooLong: 'Please use at most {n} characters.',
    errPhone: 'Please enter a valid phone number, e.g. +49 30 1234567.',
    choose: 'Please choose',
    yourAnswers: 'Your answers',
    yes: 'Yes',
    formErrors: 'Please correct the marked fields.',
    notCompleted: 'The booking could not be completed with this time. Please choose the time again.',
    submitBook: 'Book appointment',
    submitRequest: 'Send booking request',
    sending: 'Sending…',
    summary: 'Your appointment',
    manageOpen: 'Manage my bookings',
    manageTitle: 'Manage my bookings',
    manageText:
      'Enter the email address you booked with. We will send you a link to your bookings, ' +
      'where you can move or cancel them.',
    manageSend: 'Send me the link',
    manageBack: 'Back',
    manageSentTitle: 'Check your email',
    manageSent: 'If there are bookings for {email} here, a link to them is on its way. It is valid for 24 hours.',
  },
  de: {
    loading: 'Wird geladen …',
    stepOf: 'Schritt {n} von {total}',
    stepProduct: 'Leistung wählen',
    stepSlots: 'Datum und Uhrzeit wählen',
    who: 'Bei',
    anyone: 'Beliebig, wer frei ist',
    assignedTo: 'Bei: {name}',
    stepDetails: 'Ihre Angaben',
    doneBooked: 'Ihr Termin ist gebucht',
    doneRequested: 'Anfrage gesendet – der Anbieter bestätigt sie',
    doneBookedText: 'Wir haben eine Bestätigung an {email} gesendet.',
    doneRequestedText:
      'Ihr Termin ist noch nicht bestätigt. Sie erhalten eine E-Mail an {email}, ' +
      'sobald der Anbieter ihn bestätigt hat.',
    cancelLink: 'Diesen Termin stornieren',
    bookAnother: 'Weiteren Termin buchen',
    emptyTitle: 'Zurzeit keine freien Termine',
    emptyText: 'Alle Zeiten sind vergeben oder noch nicht freigeschaltet. Bitte schauen Sie später noch einmal vorbei.',
    contactUs: 'Sie können uns auch direkt erreichen:',
    checkAgain: 'Erneut prüfen',
    errorTitle: 'Der Buchungskalender konnte nicht geladen werden',
    notFound: 'Dieser Buchungskalender ist nicht verfügbar.',
    networkError: 'Verbindungsproblem. Bitte prüfen Sie Ihre Internetverbindung und versuchen Sie es erneut.',
    serverError: 'Bei uns ist etwas schiefgelaufen. Bitte versuchen Sie es erneut.',
    retry: 'Erneut versuchen',
    tooMany: 'Zu viele Versuche. Bitte warten Sie eine Minute und versuchen Sie es dann erneut.',
    slotTaken:
      'Diese Zeit wurde leider gerade von jemand anderem gebucht. Die Liste ist aktualisiert; ' +
      'bitte wählen Sie eine andere Zeit.',
    alreadyBooked: 'Sie haben diesen Termin bereits gebucht.',
    consumerLimit:
      'Sie haben hier bereits so viele anstehende Buchungen wie erlaubt. Bitte stornieren Sie zuerst eine davon.',
    reserved: 'Die Zeit ist für Sie reserviert. Bitte schließen Sie die Buchung innerhalb von {min} Minuten ab.',
    holdLeft: 'Für Sie reserviert: noch {time}',
    holdOneMinute: 'Noch eine Minute, um die Buchung abzuschließen.',
    holdExpired:
      'Ihre Reservierung ist abgelaufen; die Zeit ist nicht mehr für Sie reserviert. ' +
      'Reservieren Sie sie erneut oder wählen Sie eine andere Zeit.',
    reserveAgain: 'Diese Zeit erneut reservieren',
    pickAgain: 'Andere Zeit wählen',
    change: 'Ändern',
    changeTime: 'Zeit ändern',
    changeService: 'Leistung ändern',
    earlier: 'Frühere Tage',
    later: 'Spätere Tage',
    days: 'Tage mit freien Zeiten',
    timesOn: 'Freie Zeiten am {date}',
    timesCount: '{n} freie Zeiten',
    timesCountOne: '1 freie Zeit',
    slotLabel: '{start} bis {end} Uhr',
    placesLeft: 'noch {n} Plätze frei',
    placeLeft: 'noch 1 Platz frei',
    minutes: '{n} Min.',
    reserving: '{time} wird reserviert …',
    firstname: 'Vorname',
    lastname: 'Nachname',
    email: 'E-Mail',
    mobile: 'Mobilnummer',
    message: 'Nachricht',
    optional: 'optional',
    requiredNote: 'Pflichtfelder sind mit * markiert.',
    mobileHint: 'Z. B. 0151 23456789 oder +49 151 23456789',
    charsLeft: 'Noch {n} Zeichen',
    errRequired: 'Bitte füllen Sie dieses Feld aus.',
    errEmail: 'Bitte geben Sie eine gültige E-Mail-Adresse ein, z. B. name@beispiel.de.',
    errMobile: 'Bitte geben Sie eine gültige Mobilnummer ein, z. B. +49 151 23456789.',
    errMessage: 'Die Nachricht darf höchstens 1024 Zeichen lang sein.',
    errInvalid: 'Bitte prüfen Sie diese Eingabe.',
    errChoose: 'Bitte wählen Sie eine Möglichkeit.',
    errCheckbox: 'Bitte setzen Sie das Häkchen, um fortzufahren.',
    errTooLong: 'Bitte höchstens {n} Zeichen.',
    errPhone: 'Bitte geben Sie eine gültige Telefonnummer ein, z. B. +49 30 1234567.',
    choose: 'Bitte wählen',
    yourAnswers: 'Ihre Angaben',
    yes: 'Ja',
    formErrors: 'Bitte korrigieren Sie die markierten Felder.',
    notCompleted: 'Die Buchung konnte mit dieser Zeit nicht abgeschlossen werden. Bitte wählen Sie die Zeit erneut.',
    submitBook: 'Termin buchen',
    submitRequest: 'Buchungsanfrage senden',
    sending: 'Wird gesendet …',
    summary: 'Ihr Termin',
    manageOpen: 'Meine Buchungen verwalten',
    manageTitle: 'Meine Buchungen verwalten',
    manageText:
      'Geben Sie die E-Mail-Adresse ein, mit der Sie gebucht haben. ' +
      'Wir senden Ihnen einen Link zu Ihren Buchungen, wo Sie sie verschieben oder stornieren können.',
    manageSend: 'Link zusenden',
    manageBack: 'Zurück',
    manageSentTitle: 'Bitte sehen Sie in Ihr Postfach',
    manageSent: 'Falls es hier Buchungen für {email} gibt, ist ein Link dorthin unterwegs. Er ist 24 Stunden gültig.',
  },
};

/**
 * The widget's language: the wanted one, else the host page's, else the browser's, else German.
 * @param {(string | null | undefined)[]} candidates in order of preference
 * @returns {Lang}
 */
export function pickLang(candidates) {
  const cand = String(candidates.find((x) => typeof x === 'string' && x) || '');
  return /^en\b/i.test(cand) ? 'en' : 'de';
}

/** Intl locale of the widget's language. @param {Lang} lang */
export const localeOf = (lang) => (lang === 'de' ? 'de-DE' : 'en-GB');

/** A1's languageTag. @param {Lang} lang */
export const languageTagOf = (lang) => (lang === 'de' ? 'de_DE' : 'en_GB');

/**
 * Replaces {name} placeholders; unknown ones stay as they are.
 * @param {string} s
 * @param {Record<string, string | number>} vars
 */
export function fill(s, vars) {
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

/** "1 free time" / "6 free times". @param {Dict} t @param {number} n */
export const countText = (t, n) => (n === 1 ? t.timesCountOne : fill(t.timesCount, { n }));
