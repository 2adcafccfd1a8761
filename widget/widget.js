/*!
 * Booking widget: plain modern JavaScript, no framework, no build step.
 *
 * Served as-is by the booking service at /widget.js. Embed it with
 *   <script src="https://SERVICE/widget.js" data-ref="RESOURCE_REF" data-lang="de"></script>
 * or open https://SERVICE/widget?ref=RESOURCE_REF (a full page, also for iframes).
 * It talks only to the public booking flow (A1-A5) of the service it was loaded from.
 * See docs/widget.md for attributes, theming and the programmatic API.
 */
(function () {
  'use strict';

  /** Seconds a reservation is held; the service writes its configured value here when serving. */
  const HOLD_SECONDS = Number('__HOLD_SECONDS__') || 180;
  const REQUEST_TIMEOUT_MS = 20000;
  const DAYS_PER_PAGE = 7;
  const MESSAGE_MAX = 1024;
  const FIELDS = /** @type {const} */ (['firstname', 'lastname', 'email', 'mobile', 'message']);

  // ---------------------------------------------------------------------------------------------
  // Texts. Month and weekday names come from Intl.DateTimeFormat, everything else from here.
  // ---------------------------------------------------------------------------------------------

  /** @typedef {Record<string, string>} Dict */
  /** @type {{ en: Dict, de: Dict }} */
  const TEXT = {
    en: {
      loading: 'Loading…',
      stepOf: 'Step {n} of {total}',
      stepProduct: 'Choose a service',
      stepSlots: 'Choose a date and time',
      stepDetails: 'Your details',
      doneBooked: 'Your appointment is booked',
      doneRequested: 'Request sent — the provider will confirm',
      doneBookedText: 'We have sent a confirmation to {email}.',
      doneRequestedText: 'Your appointment is not confirmed yet. You will receive an email at {email} as soon as the provider has confirmed it.',
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
      slotTaken: 'Sorry, this time has just been taken by someone else. The list has been updated; please choose another time.',
      alreadyBooked: 'You have already booked this appointment.',
      reserved: 'Time reserved for you. Please complete your booking within {min} minutes.',
      holdLeft: 'Reserved for you for another {time}',
      holdOneMinute: 'One minute left to complete your booking.',
      holdExpired: 'Your reservation has expired, so this time is no longer held for you. Reserve it again or choose another time.',
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
      dayLabel: '{date}, {count}',
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
      mobileHint: 'With country code, e.g. +49 151 23456789',
      charsLeft: '{n} characters left',
      errRequired: 'Please fill in this field.',
      errEmail: 'Please enter a valid email address, e.g. name@example.com.',
      errMobile: 'Please enter a valid mobile number, e.g. +49 151 23456789.',
      errMessage: 'The message may have at most 1024 characters.',
      errInvalid: 'Please check this entry.',
      formErrors: 'Please correct the marked fields.',
      notCompleted: 'The booking could not be completed with this time. Please choose the time again.',
      submitBook: 'Book appointment',
      submitRequest: 'Send booking request',
      sending: 'Sending…',
      summary: 'Your appointment',
    },
    de: {
      loading: 'Wird geladen …',
      stepOf: 'Schritt {n} von {total}',
      stepProduct: 'Leistung wählen',
      stepSlots: 'Datum und Uhrzeit wählen',
      stepDetails: 'Ihre Angaben',
      doneBooked: 'Ihr Termin ist gebucht',
      doneRequested: 'Anfrage gesendet – der Anbieter bestätigt sie',
      doneBookedText: 'Wir haben eine Bestätigung an {email} gesendet.',
      doneRequestedText: 'Ihr Termin ist noch nicht bestätigt. Sie erhalten eine E-Mail an {email}, sobald der Anbieter ihn bestätigt hat.',
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
      slotTaken: 'Diese Zeit wurde leider gerade von jemand anderem gebucht. Die Liste ist aktualisiert; bitte wählen Sie eine andere Zeit.',
      alreadyBooked: 'Sie haben diesen Termin bereits gebucht.',
      reserved: 'Die Zeit ist für Sie reserviert. Bitte schließen Sie die Buchung innerhalb von {min} Minuten ab.',
      holdLeft: 'Für Sie reserviert: noch {time}',
      holdOneMinute: 'Noch eine Minute, um die Buchung abzuschließen.',
      holdExpired: 'Ihre Reservierung ist abgelaufen; die Zeit ist nicht mehr für Sie reserviert. Reservieren Sie sie erneut oder wählen Sie eine andere Zeit.',
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
      dayLabel: '{date}, {count}',
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
      mobileHint: 'Mit Ländervorwahl, z. B. +49 151 23456789',
      charsLeft: 'Noch {n} Zeichen',
      errRequired: 'Bitte füllen Sie dieses Feld aus.',
      errEmail: 'Bitte geben Sie eine gültige E-Mail-Adresse ein, z. B. name@beispiel.de.',
      errMobile: 'Bitte geben Sie eine gültige Mobilnummer ein, z. B. +49 151 23456789.',
      errMessage: 'Die Nachricht darf höchstens 1024 Zeichen lang sein.',
      errInvalid: 'Bitte prüfen Sie diese Eingabe.',
      formErrors: 'Bitte korrigieren Sie die markierten Felder.',
      notCompleted: 'Die Buchung konnte mit dieser Zeit nicht abgeschlossen werden. Bitte wählen Sie die Zeit erneut.',
      submitBook: 'Termin buchen',
      submitRequest: 'Buchungsanfrage senden',
      sending: 'Wird gesendet …',
      summary: 'Ihr Termin',
    },
  };

  // ---------------------------------------------------------------------------------------------
  // Small helpers
  // ---------------------------------------------------------------------------------------------

  /**
   * Creates an element. attrs: on* functions become listeners, `false`/null are skipped.
   * @param {string} tag
   * @param {Record<string, any> | null} [attrs]
   * @param {...any} children strings, nodes, arrays or null
   * @returns {HTMLElement}
   */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === false || v === null || v === undefined) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'value') /** @type {HTMLInputElement} */ (el).value = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    append(el, children);
    return el;
  }

  /** @param {Node} parent @param {any[]} children */
  function append(parent, children) {
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) append(parent, c);
      else parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
  }

  /** @param {string} s @param {Record<string, string | number>} vars */
  function fill(s, vars) {
    return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
  }

  /** yyyy-MM-dd of a key or an ISO timestamp in its own offset (the provider's wall clock). */
  function dayOf(text) {
    const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(text || ''));
    return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
  }

  /** HH:mm of an ISO timestamp in its own offset. */
  function timeOf(iso) {
    const m = /T(\d{2}):(\d{2})/.exec(String(iso || ''));
    return m ? `${m[1]}:${m[2]}` : '';
  }

  /** Noon UTC of a yyyy-MM-dd day, formatted in UTC so no time zone shifts the date. */
  function dayDate(day) {
    const [y, mo, d] = day.split('-').map(Number);
    return new Date(Date.UTC(y, mo - 1, d, 12));
  }

  /** @param {string} iso */
  function toUtcIso(iso) {
    const t = Date.parse(iso);
    return Number.isNaN(t) ? iso : new Date(t).toISOString();
  }

  /** @param {number} ms */
  function mmss(ms) {
    const s = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  }

  let uid = 0;

  // ---------------------------------------------------------------------------------------------
  // API client: A1-A5 of the public booking flow
  // ---------------------------------------------------------------------------------------------

  class ApiError extends Error {
    /**
     * @param {number} status 0 for network errors
     * @param {{ errorCode?: string, message?: string }[]} errors
     */
    constructor(status, errors) {
      super(errors.map((e) => e.message).join('; ') || `HTTP ${status}`);
      this.status = status;
      this.errors = errors;
      this.code = errors[0] && errors[0].errorCode;
    }
  }

  /**
   * Idempotency-Key (DESIGN 7.5): a new key for every attempt, except that the same request sent
   * again after a network error (the answer may have been lost) reuses its key, so the server
   * answers it once and a retry can never reserve or book twice.
   */
  function idempotencyKeys() {
    /** @type {{ url: string, body: string | undefined, key: string } | null} */
    let lost = null;
    const newKey = () => {
      if (crypto.randomUUID) return crypto.randomUUID();
      return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
    };
    return {
      /** @param {string} url @param {string | undefined} body */
      keyFor: (url, body) => (lost && lost.url === url && lost.body === body ? lost : { url, body, key: newKey() }),
      /** @param {{ url: string, body: string | undefined, key: string }} attempt */
      failed: (attempt) => (lost = attempt),
      answered: () => (lost = null),
    };
  }

  /**
   * @param {string} base service base URL ending in /
   * @param {{ ref: string, channelKey: string }} opts
   */
  function createApi(base, opts) {
    const retryable = idempotencyKeys();
    /**
     * @param {'GET'|'POST'} method
     * @param {string} path relative to base
     * @param {Record<string, string | undefined>} query
     * @param {object} [body]
     * @param {boolean} [idempotent] send an Idempotency-Key (reserve, book)
     */
    async function call(method, path, query, body, idempotent = false) {
      const url = new URL(path, base);
      for (const [k, v] of Object.entries(query)) if (v) url.searchParams.set(k, v);
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(), REQUEST_TIMEOUT_MS);
      const text = body ? JSON.stringify(body) : undefined;
      const attempt = idempotent ? retryable.keyFor(url.toString(), text) : null;
      /** @type {Record<string, string>} */
      const headers = body ? { 'Content-Type': 'application/json', Accept: 'application/json' } : { Accept: 'application/json' };
      if (attempt) headers['Idempotency-Key'] = attempt.key;
      let res;
      try {
        res = await fetch(url.toString(), { method, mode: 'cors', credentials: 'omit', headers, body: text, signal: ctrl.signal });
      } catch {
        if (attempt) retryable.failed(attempt);
        throw new ApiError(0, []);
      } finally {
        clearTimeout(timer);
      }
      if (attempt) retryable.answered();
      if (res.status === 204) return null;
      let data = null;
      try {
        data = await res.json();
      } catch {
        data = null;
      }
      if (!res.ok) {
        const errors = data && Array.isArray(data.errors) ? data.errors : [];
        throw new ApiError(res.status, errors);
      }
      return data;
    }
    const enc = encodeURIComponent;
    const ch = opts.channelKey;
    return {
      publicData: () => call('POST', 'resources/public_data', { ref: opts.ref, channelKey: ch }),
      activeProducts: () => call('POST', 'products/active_products', { ref: opts.ref, channelKey: ch }),
      /** @param {string | undefined} prdRef @param {string} languageTag */
      bookables: (prdRef, languageTag) =>
        call('GET', `resources/${enc(opts.ref)}/upcoming_bookables`, {
          channelKey: ch,
          prdRef,
          groupFormat: 'yyyy-MM-dd',
          timeFormat: 'HH:mm',
          languageTag,
        }),
      /** @param {object} body */
      reserve: (body) => call('POST', `rest/1/resources/${enc(opts.ref)}/reserve_appointment`, { channelKey: ch }, body, true),
      /** @param {object} body */
      book: (body) => call('POST', `resources/${enc(opts.ref)}/create_appointment_with_consumer`, { timeFormat: 'HH:mm' }, body, true),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // The widget
  // ---------------------------------------------------------------------------------------------

  /**
   * @typedef {object} Options
   * @property {string} ref resource reference or UUID
   * @property {string} [channelKey] default RESOURCE_PUBLIC
   * @property {string} [prdRef] product reference or UUID: skip the product choice
   * @property {'de'|'en'} [lang]
   * @property {string} [baseUrl] service base URL; default: where widget.js came from
   * @property {number} [headingLevel] level of the widget's title (steps get one more); default 2
   * @property {(slot: any) => void} [onPick] called with the chosen bookable instead of reserving it
   */

  /**
   * Mounts a widget into `target` (an element or a selector) and returns a handle.
   * @param {Element | string} target
   * @param {Options} options
   */
  function mount(target, options) {
    const hostEl = typeof target === 'string' ? document.querySelector(target) : target;
    if (!hostEl) throw new Error(`booking widget: no element ${String(target)}`);
    if (!options || !options.ref) throw new Error('booking widget: ref is required');
    const lang = pickLang(options.lang);
    const t = TEXT[lang];
    const locale = lang === 'de' ? 'de-DE' : 'en-GB';
    const base = options.baseUrl || defaultBase;
    const channelKey = options.channelKey || 'RESOURCE_PUBLIC';
    const api = createApi(base, { ref: options.ref, channelKey });
    const level = Math.min(5, Math.max(1, Number(options.headingLevel) || 2));
    const id = `bw${++uid}`;

    const fmtDayShort = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: 'short' });
    const fmtMonthShort = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', month: 'short' });
    const fmtLong = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
    const fmtMonthYear = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', month: 'long', year: 'numeric' });

    // Shadow DOM keeps the host page's CSS out; custom properties (--bw-*) still inherit in.
    const root = hostEl.shadowRoot || hostEl.attachShadow({ mode: 'open' });
    root.replaceChildren();
    hostEl.setAttribute('data-booking-widget', '');
    const sheet = h('link', { rel: 'stylesheet', href: new URL('widget/widget.css', base).toString() });
    const status = h('div', { class: 'bw-sr', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
    const alertBox = h('div', { class: 'bw-alert', role: 'alert', hidden: true });
    const header = h('header', { class: 'bw-header' });
    const main = h('div', { class: 'bw-main' });
    const shell = h('div', { class: 'bw', lang, hidden: true, 'aria-busy': 'true' }, header, alertBox, main, status);
    sheet.addEventListener('load', () => shell.removeAttribute('hidden'));
    sheet.addEventListener('error', () => shell.removeAttribute('hidden'));
    root.append(sheet, shell);

    /** The whole state of this widget instance. */
    const s = {
      step: 'loading',
      /** @type {any} */ publicData: null,
      /** @type {any[]} */ products: [],
      /** @type {any} */ product: null,
      /** @type {{ day: string, items: any[] }[]} */ days: [],
      dayIndex: 0,
      dayPage: 0,
      /** @type {any} */ slot: null,
      /** @type {{ customerUuid: string, expiresAt: number } | null} */ hold: null,
      expired: false,
      /** @type {Record<string, string>} */ form: { firstname: '', lastname: '', email: '', mobile: '', message: '' },
      /** @type {Record<string, string>} */ fieldErrors: {},
      /** @type {any} */ created: null,
      busy: false,
      /** @type {string | null} */ busySlot: null,
      notFound: false,
    };
    /** @type {ReturnType<typeof setInterval> | null} */
    let holdTimer = null;
    let announcedMinute = false;
    let destroyed = false;
    /** Focus moves to step headings only once the consumer has interacted: never steal it on load. */
    let acted = false;
    shell.addEventListener('pointerdown', () => (acted = true));
    shell.addEventListener('keydown', () => (acted = true));

    const bookingProcess = () => (s.publicData && s.publicData.channel && s.publicData.channel.bookingProcess) || 'IMMEDIATE';
    const multiProduct = () => !options.prdRef && s.products.length > 1;
    const heading = (/** @type {number} */ extra, /** @type {any} */ attrs, /** @type {any[]} */ ...children) =>
      h(`h${Math.min(6, level + extra)}`, attrs, ...children);

    // --- messages ------------------------------------------------------------------------------

    /** @param {string} text */
    function announce(text) {
      status.textContent = '';
      // a fresh text node after a tick makes screen readers read repeated messages too
      setTimeout(() => (status.textContent = text), 30);
    }

    /**
     * Shows an error/notice above the step (role=alert). retry: a "try again" button.
     * @param {string | null} text
     * @param {{ retry?: () => void, kind?: 'error' | 'info', actionLabel?: string }} [o]
     */
    function showAlert(text, o = {}) {
      alertBox.replaceChildren();
      if (!text) {
        alertBox.hidden = true;
        return;
      }
      alertBox.className = `bw-alert bw-alert--${o.kind || 'error'}`;
      append(alertBox, [
        h('p', null, text),
        o.retry &&
          h('button', { type: 'button', class: 'bw-btn bw-btn--secondary', 'data-key': 'alert-retry', onclick: () => { showAlert(null); o.retry && o.retry(); } }, o.actionLabel || t.retry),
      ]);
      alertBox.hidden = false;
    }

    /** Maps an API error to a message; returns true when it handled nothing special. */
    function messageOf(/** @type {ApiError} */ err) {
      if (err.status === 0) return t.networkError;
      if (err.status === 429) return t.tooMany;
      if (err.status === 404) return t.notFound;
      if (err.code === 'AppointmentAlreadyBookedException') return t.alreadyBooked;
      return t.serverError;
    }

    // --- flow ----------------------------------------------------------------------------------

    async function start() {
      stopHold();
      Object.assign(s, { step: 'loading', product: null, slot: null, hold: null, expired: false, created: null, notFound: false });
      render();
      try {
        const [pd, ap] = await Promise.all([api.publicData(), api.activeProducts()]);
        s.publicData = pd || {};
        s.products = (ap && Array.isArray(ap.products) ? ap.products : []).filter((p) => p && p.uuid);
        renderHeader();
      } catch (e) {
        return fail(/** @type {ApiError} */ (e), start);
      }
      if (multiProduct()) {
        s.step = 'products';
        render('heading');
        announce(t.stepProduct);
      } else {
        s.product = options.prdRef ? null : s.products[0] || null;
        await loadSlots();
      }
    }

    /** A failure while loading: an error step with a retry (none for 404). */
    function fail(/** @type {ApiError} */ err, /** @type {() => void} */ retry) {
      s.step = 'error';
      s.notFound = err.status === 404;
      render('heading');
      showAlert(messageOf(err), s.notFound ? {} : { retry });
    }

    /** @param {any} product */
    async function chooseProduct(product) {
      s.product = product;
      await loadSlots();
    }

    /**
     * Loads A1 and shows the day/slot step. notice: an alert to show with the fresh list.
     * @param {string} [notice]
     */
    async function loadSlots(notice) {
      stopHold();
      const keepDay = s.days[s.dayIndex] && s.days[s.dayIndex].day;
      s.step = 'loading';
      s.slot = null;
      s.hold = null;
      s.expired = false;
      render();
      let data;
      try {
        const prdRef = options.prdRef || (s.product ? s.product.uuid : undefined);
        data = await api.bookables(prdRef, lang === 'de' ? 'de_DE' : 'en_GB');
      } catch (e) {
        return fail(/** @type {ApiError} */ (e), () => loadSlots(notice));
      }
      s.days = groupDays(data);
      if (!s.days.length) {
        s.step = 'empty';
        render('heading');
        if (notice) showAlert(notice, { kind: 'info' });
        return;
      }
      const again = keepDay ? s.days.findIndex((d) => d.day === keepDay) : -1;
      s.dayIndex = again >= 0 ? again : 0;
      s.dayPage = Math.floor(s.dayIndex / DAYS_PER_PAGE);
      s.step = 'slots';
      render('heading');
      if (notice) showAlert(notice, { kind: 'error' });
    }

    /**
     * The groups of A1 (keys other than public_visible) as days, in order.
     * @param {any} data
     */
    function groupDays(data) {
      /** @type {Map<string, any[]>} */
      const byDay = new Map();
      if (data && typeof data === 'object') {
        for (const [key, value] of Object.entries(data)) {
          if (key === 'public_visible' || !Array.isArray(value)) continue;
          for (const b of value) {
            if (!b || !b.start) continue;
            const day = dayOf(key) || dayOf(b.start);
            if (!day) continue;
            if (!byDay.has(day)) byDay.set(day, []);
            /** @type {any[]} */ (byDay.get(day)).push(b);
          }
        }
      }
      return [...byDay.entries()]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([day, items]) => ({ day, items: items.sort((a, b) => Date.parse(a.start) - Date.parse(b.start)) }));
    }

    /** @param {any} b a bookable */
    function productUuidOf(b) {
      const offered = Array.isArray(b.products) ? b.products : [];
      if (s.product && (b.product_uuid === s.product.uuid || offered.some((p) => p && p.uuid === s.product.uuid))) return s.product.uuid;
      return b.product_uuid || (offered[0] && offered[0].uuid) || (s.product && s.product.uuid) || undefined;
    }

    /** Reserves a bookable (A2) and moves on to the form. @param {any} b */
    async function pickSlot(b) {
      if (s.busy) return;
      // a host page that only wants the choice (the manage page moving a booking) takes it here
      if (options.onPick) return options.onPick(b);
      s.busy = true;
      s.busySlot = slotKey(b);
      showAlert(null);
      updateBusy();
      announce(fill(t.reserving, { time: slotText(b) }));
      const body = {
        ...(b.kind === 'models.LotAppointment' && b.appointment_uuid ? { appointment_uuid: b.appointment_uuid } : { timeslot_uuid: b.timeslot_uuid }),
        product_uuid: productUuidOf(b),
        from: toUtcIso(b.start),
        to: toUtcIso(b.end),
      };
      let res;
      try {
        res = await api.reserve(body);
      } catch (e) {
        s.busy = false;
        s.busySlot = null;
        const err = /** @type {ApiError} */ (e);
        if (err.status === 412 || err.status === 409 && err.code !== 'AppointmentAlreadyBookedException' || err.status === 404 && s.step === 'details') {
          return loadSlots(t.slotTaken);
        }
        if (s.step === 'slots') render();
        else updateBusy();
        if (err.status === 400) return showAlert(t.notCompleted, { retry: () => loadSlots(), actionLabel: t.pickAgain });
        return showAlert(messageOf(err), err.status === 0 || err.status >= 500 ? { retry: () => pickSlot(b) } : {});
      }
      s.busy = false;
      s.busySlot = null;
      const p = (res && res.participation) || {};
      const seconds = Number(p.holdSeconds || p.hold_seconds) > 0 ? Number(p.holdSeconds || p.hold_seconds) : HOLD_SECONDS;
      const expiresAt = Date.now() + seconds * 1000;
      s.slot = b;
      s.hold = { customerUuid: p.customer_uuid, expiresAt };
      s.expired = false;
      s.fieldErrors = {};
      s.step = 'details';
      render('heading');
      startHold();
      announce(fill(t.reserved, { min: Math.round(seconds / 60) || 1 }));
    }

    function startHold() {
      stopHold();
      announcedMinute = false;
      holdTimer = setInterval(tickHold, 250);
      tickHold();
    }

    function stopHold() {
      if (holdTimer) clearInterval(holdTimer);
      holdTimer = null;
    }

    function tickHold() {
      if (!s.hold || destroyed) return stopHold();
      const left = s.hold.expiresAt - Date.now();
      const timer = root.querySelector('.bw-hold-time');
      if (timer) timer.textContent = mmss(left);
      if (left <= 60000 && left > 0 && !announcedMinute) {
        announcedMinute = true;
        announce(t.holdOneMinute);
      }
      if (left <= 0) {
        stopHold();
        s.expired = true;
        showAlert(null);
        render();
        const again = root.querySelector('[data-key="reserve-again"]');
        if (again) /** @type {HTMLElement} */ (again).focus();
      }
    }

    /** Client-side checks; the server's 400 answers are mapped onto the same fields. */
    function validate() {
      /** @type {Record<string, string>} */
      const errs = {};
      const f = s.form;
      if (!f.firstname.trim()) errs.firstname = t.errRequired;
      if (!f.lastname.trim()) errs.lastname = t.errRequired;
      if (!f.email.trim()) errs.email = t.errRequired;
      else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(f.email.trim())) errs.email = t.errEmail;
      if (f.mobile.trim() && !/^\+?[0-9][0-9 ()/.-]{4,24}$/.test(f.mobile.trim())) errs.mobile = t.errMobile;
      if (f.message.length > MESSAGE_MAX) errs.message = t.errMessage;
      return errs;
    }

    /** "body.email must match format ..." -> { email: localized text }. */
    function fieldErrorsOf(/** @type {ApiError} */ err) {
      /** @type {Record<string, string>} */
      const out = {};
      const parts = err.errors.flatMap((e) => String(e.message || '').split(/;\s*/));
      for (const msg of parts) {
        const m = /\b(?:body\.)?(firstname|lastname|email|mobile|message)\b/i.exec(msg);
        if (!m) continue;
        const field = m[1].toLowerCase();
        if (out[field]) continue;
        if (/required|empty|missing/i.test(msg)) out[field] = t.errRequired;
        else out[field] = field === 'email' ? t.errEmail : field === 'mobile' ? t.errMobile : field === 'message' ? t.errMessage : t.errInvalid;
      }
      return out;
    }

    async function submit() {
      if (s.busy || !s.slot) return;
      showAlert(null);
      const errs = validate();
      s.fieldErrors = errs;
      if (Object.keys(errs).length) {
        renderFieldErrors();
        showAlert(t.formErrors);
        focusFirstError();
        return;
      }
      renderFieldErrors();
      const b = s.slot;
      const f = s.form;
      const body = {
        start: b.start,
        end: b.end,
        timeslot_uuid: b.kind === 'models.LotAppointment' && b.appointment_uuid ? b.appointment_uuid : b.timeslot_uuid,
        product_uuid: productUuidOf(b),
        placeholder_id: s.hold ? s.hold.customerUuid : undefined,
        email: f.email.trim(),
        firstname: f.firstname.trim(),
        lastname: f.lastname.trim(),
        ...(f.mobile.trim() ? { mobile: f.mobile.trim() } : {}),
        ...(f.message.trim() ? { message: f.message } : {}),
        locale: lang,
        channelKey,
      };
      s.busy = true;
      updateBusy();
      announce(t.sending);
      let res;
      try {
        res = await api.book(body);
      } catch (e) {
        s.busy = false;
        updateBusy();
        const err = /** @type {ApiError} */ (e);
        if (err.status === 412 || err.code === '201' || err.code === 'CAPACITY_EXHAUSTED' || err.code === 'TOO_LATE') return loadSlots(t.slotTaken);
        if (err.status === 400) {
          const fe = fieldErrorsOf(err);
          if (Object.keys(fe).length) {
            s.fieldErrors = fe;
            renderFieldErrors();
            showAlert(t.formErrors);
            focusFirstError();
            return;
          }
          // not about a form field (e.g. the slot or reservation): let the consumer pick again
          return showAlert(t.notCompleted, { retry: () => loadSlots(), actionLabel: t.pickAgain });
        }
        return showAlert(messageOf(err), err.status === 0 || err.status >= 500 ? { retry: submit } : {});
      }
      s.busy = false;
      stopHold();
      s.created = (res && res.createdAppointment) || {};
      s.hold = null;
      s.step = 'done';
      render('heading');
    }

    function focusFirstError() {
      const first = FIELDS.find((f) => s.fieldErrors[f]);
      const el = first && root.getElementById(`${id}-${first}`);
      if (el) /** @type {HTMLElement} */ (el).focus();
    }

    // --- rendering -----------------------------------------------------------------------------

    function renderHeader() {
      const pd = s.publicData || {};
      const resource = pd.resource || {};
      const provider = pd.provider || {};
      const title = resource.name || provider.name || '';
      const img = typeof resource.imgUrl === 'string' && /^https?:\/\//.test(resource.imgUrl) ? resource.imgUrl : null;
      header.replaceChildren();
      if (!title) return;
      append(header, [
        img && h('img', { class: 'bw-img', src: img, alt: '', width: 56, height: 56, loading: 'lazy' }),
        h('div', null,
          heading(0, { class: 'bw-title' }, title),
          provider.name && provider.name !== title && h('p', { class: 'bw-sub' }, provider.name),
          resource.description && h('p', { class: 'bw-desc' }, resource.description)),
      ]);
    }

    /** Step number/total for the indicator. */
    function stepInfo() {
      const steps = multiProduct() ? ['products', 'slots', 'details'] : ['slots', 'details'];
      const n = steps.indexOf(s.step) + 1;
      return n > 0 ? h('p', { class: 'bw-steps' }, fill(t.stepOf, { n, total: steps.length })) : null;
    }

    /**
     * Re-renders the current step. focus: 'heading' moves focus to the step heading; a data-key
     * restores focus to that control.
     * @param {string} [focus]
     */
    function render(focus) {
      if (destroyed) return;
      const active = /** @type {HTMLElement | null} */ (root.activeElement);
      const keepKey = !focus && active && active.getAttribute('data-key');
      if (focus === 'heading' || s.step === 'loading') showAlert(null);
      shell.setAttribute('aria-busy', s.step === 'loading' ? 'true' : 'false');
      const view = {
        loading: viewLoading,
        products: viewProducts,
        slots: viewSlots,
        details: viewDetails,
        done: viewDone,
        empty: viewEmpty,
        error: viewError,
      }[s.step]();
      main.replaceChildren(view);
      const target = focus === 'heading'
        ? acted && root.querySelector('.bw-step-heading')
        : (focus || keepKey) && root.querySelector(`[data-key="${CSS.escape(String(focus || keepKey))}"]`);
      if (target) /** @type {HTMLElement} */ (target).focus({ preventScroll: focus !== 'heading' });
      if (focus === 'heading' && target && typeof target.scrollIntoView === 'function') {
        const r = target.getBoundingClientRect();
        if (r.top < 0 || r.bottom > window.innerHeight) target.scrollIntoView({ block: 'nearest' });
      }
    }

    function stepHeading(/** @type {string} */ text) {
      return heading(1, { class: 'bw-step-heading', tabindex: '-1' }, text);
    }

    function viewLoading() {
      return h('section', { class: 'bw-step bw-loading' }, h('span', { class: 'bw-spinner', 'aria-hidden': 'true' }), h('p', null, t.loading));
    }

    function viewError() {
      return h('section', { class: 'bw-step' },
        stepHeading(t.errorTitle),
        contactBlock());
    }

    function viewEmpty() {
      return h('section', { class: 'bw-step bw-empty' },
        stepHeading(t.emptyTitle),
        h('p', null, t.emptyText),
        contactBlock(),
        h('div', { class: 'bw-actions' },
          multiProduct() && h('button', { type: 'button', class: 'bw-btn bw-btn--secondary', 'data-key': 'change-product', onclick: backToProducts }, t.changeService),
          h('button', { type: 'button', class: 'bw-btn', 'data-key': 'check-again', onclick: () => loadSlots() }, t.checkAgain)));
    }

    function contactBlock() {
      const c = (s.publicData && s.publicData.contact) || {};
      const items = [
        c.email && h('li', null, h('a', { href: `mailto:${c.email}` }, c.email)),
        (c.phone || c.mobile) && h('li', null, h('a', { href: `tel:${String(c.phone || c.mobile).replace(/[^+0-9]/g, '')}` }, c.phone || c.mobile)),
      ].filter(Boolean);
      if (!items.length) return null;
      return h('div', { class: 'bw-contact' }, h('p', null, t.contactUs, c.name ? ` ${c.name}` : ''), h('ul', null, items));
    }

    function backToProducts() {
      stopHold();
      s.step = 'products';
      s.slot = null;
      s.hold = null;
      render('heading');
    }

    function viewProducts() {
      return h('section', { class: 'bw-step' },
        stepInfo(),
        stepHeading(t.stepProduct),
        h('ul', { class: 'bw-products', role: 'list' },
          s.products.map((p) => {
            const dur = p.minDuration ? fill(t.minutes, { n: p.minDuration }) : null;
            return h('li', null,
              h('button', { type: 'button', class: 'bw-product', 'data-key': `product-${p.uuid}`, onclick: () => chooseProduct(p) },
                h('span', { class: 'bw-product-name' }, p.name || ''),
                dur && h('span', { class: 'bw-product-meta' }, dur),
                p.description && h('span', { class: 'bw-product-desc' }, p.description)));
          })));
    }

    /** @param {any} b */
    function slotText(b) {
      const f = (/** @type {any} */ v, /** @type {string} */ iso) => (typeof v === 'string' && /^\d{1,2}:\d{2}$/.test(v) ? v : timeOf(iso));
      return f(b.formattedStart, b.start);
    }

    /** @param {any} b */
    function slotEndText(b) {
      return typeof b.formattedEnd === 'string' && /^\d{1,2}:\d{2}$/.test(b.formattedEnd) ? b.formattedEnd : timeOf(b.end);
    }

    /** @param {any} b */
    function slotKey(b) {
      return `slot-${b.appointment_uuid || b.timeslot_uuid}-${b.start}`;
    }

    /** @param {number} n */
    function countText(n) {
      return n === 1 ? t.timesCountOne : fill(t.timesCount, { n });
    }

    /** @param {number} i */
    function selectDay(i) {
      s.dayIndex = i;
      render(`day-${s.days[i].day}`);
      announce(`${fill(t.timesOn, { date: fmtLong.format(dayDate(s.days[i].day)) })}: ${countText(s.days[i].items.length)}`);
    }

    /** @param {number} delta */
    function pageDays(delta) {
      const pages = Math.ceil(s.days.length / DAYS_PER_PAGE);
      s.dayPage = Math.min(pages - 1, Math.max(0, s.dayPage + delta));
      s.dayIndex = s.dayPage * DAYS_PER_PAGE;
      const keyBtn = delta < 0 ? (s.dayPage > 0 ? 'days-prev' : 'days-next') : (s.dayPage < pages - 1 ? 'days-next' : 'days-prev');
      render(keyBtn);
      announce(`${monthLabel()}: ${fill(t.timesOn, { date: fmtLong.format(dayDate(s.days[s.dayIndex].day)) })}`);
    }

    function monthLabel() {
      const page = s.days.slice(s.dayPage * DAYS_PER_PAGE, (s.dayPage + 1) * DAYS_PER_PAGE);
      const first = fmtMonthYear.format(dayDate(page[0].day));
      const last = fmtMonthYear.format(dayDate(page[page.length - 1].day));
      return first === last ? first : `${first} – ${last}`;
    }

    function viewSlots() {
      const pages = Math.ceil(s.days.length / DAYS_PER_PAGE);
      const page = s.days.slice(s.dayPage * DAYS_PER_PAGE, (s.dayPage + 1) * DAYS_PER_PAGE);
      const current = s.days[s.dayIndex] || page[0];
      const longDate = fmtLong.format(dayDate(current.day));
      const timesId = `${id}-times`;
      return h('section', { class: 'bw-step' },
        stepInfo(),
        stepHeading(t.stepSlots),
        multiProduct() && s.product && h('p', { class: 'bw-chosen' },
          h('span', null, s.product.name),
          h('button', { type: 'button', class: 'bw-link', 'data-key': 'change-product', onclick: backToProducts }, t.changeService)),
        h('div', { class: 'bw-daynav' },
          h('button', { type: 'button', class: 'bw-icon-btn', 'data-key': 'days-prev', 'aria-label': t.earlier, disabled: s.dayPage === 0, onclick: () => pageDays(-1) }, '‹'),
          h('p', { class: 'bw-month', 'aria-hidden': 'true' }, monthLabel()),
          h('button', { type: 'button', class: 'bw-icon-btn', 'data-key': 'days-next', 'aria-label': t.later, disabled: s.dayPage >= pages - 1, onclick: () => pageDays(1) }, '›')),
        h('ul', { class: 'bw-days', role: 'list', 'aria-label': `${t.days}, ${monthLabel()}` },
          page.map((d) => {
            const i = s.days.indexOf(d);
            const date = dayDate(d.day);
            return h('li', null,
              h('button', {
                type: 'button',
                class: 'bw-day',
                'data-key': `day-${d.day}`,
                'data-day': d.day,
                'aria-pressed': i === s.dayIndex ? 'true' : 'false',
                'aria-controls': timesId,
                'aria-label': fill(t.dayLabel, { date: fmtLong.format(date), count: countText(d.items.length) }),
                onclick: () => selectDay(i),
              },
              h('span', { class: 'bw-day-wd' }, fmtDayShort.format(date)),
              h('span', { class: 'bw-day-num' }, String(date.getUTCDate())),
              h('span', { class: 'bw-day-mon' }, fmtMonthShort.format(date))));
          })),
        h('div', { class: 'bw-times', id: timesId },
          heading(2, { class: 'bw-times-heading' }, fill(t.timesOn, { date: longDate })),
          h('ul', { class: 'bw-slots', role: 'list' },
            current.items.map((b) => {
              const key = slotKey(b);
              const left = Number(b.capacity_left);
              const places = Number(b.capacity) > 1 && left > 0 ? (left === 1 ? t.placeLeft : fill(t.placesLeft, { n: left })) : null;
              const label = fill(t.slotLabel, { start: slotText(b), end: slotEndText(b) }) + (places ? `, ${places}` : '');
              return h('li', null,
                h('button', {
                  type: 'button',
                  class: 'bw-slot',
                  'data-key': key,
                  'data-start': b.start,
                  'aria-label': label,
                  'aria-disabled': s.busy ? 'true' : null,
                  'aria-busy': s.busySlot === key ? 'true' : null,
                  onclick: () => pickSlot(b),
                },
                h('span', { class: 'bw-slot-time' }, slotText(b)),
                places && h('span', { class: 'bw-slot-meta' }, places)));
            }))));
    }

    /** Reflects s.busy on the visible buttons without re-rendering (keeps focus and input). */
    function updateBusy() {
      for (const el of root.querySelectorAll('.bw-slot')) {
        if (s.busy) el.setAttribute('aria-disabled', 'true');
        else el.removeAttribute('aria-disabled');
        if (s.busySlot && el.getAttribute('data-key') === s.busySlot) el.setAttribute('aria-busy', 'true');
        else el.removeAttribute('aria-busy');
      }
      const submitBtn = /** @type {HTMLButtonElement | null} */ (root.querySelector('.bw-submit'));
      if (submitBtn) {
        submitBtn.setAttribute('aria-disabled', s.busy || s.expired ? 'true' : 'false');
        submitBtn.textContent = s.busy ? t.sending : submitLabel();
      }
    }

    function submitLabel() {
      return bookingProcess() === 'REQUESTED' ? t.submitRequest : t.submitBook;
    }

    function summary() {
      const b = s.slot || s.created || {};
      const day = dayOf(b.start);
      const productName = (s.product && s.product.name) || b.product_name || '';
      return h('div', { class: 'bw-summary' },
        h('p', { class: 'bw-summary-label' }, t.summary),
        h('p', { class: 'bw-summary-when' },
          day ? fmtLong.format(dayDate(day)) : '',
          h('br'),
          fill(t.slotLabel, { start: slotText(b), end: slotEndText(b) })),
        productName && h('p', { class: 'bw-summary-what' }, productName));
    }

    function viewDetails() {
      const pd = (s.publicData && s.publicData.resource) || {};
      /** @param {string} name @param {Record<string, any>} o */
      const field = (name, o) => {
        const inputId = `${id}-${name}`;
        const errId = `${inputId}-err`;
        const hintId = `${inputId}-hint`;
        const err = s.fieldErrors[name];
        const describedBy = [o.hint ? hintId : null, name === 'message' ? `${inputId}-count` : null, err ? errId : null].filter(Boolean).join(' ');
        const attrs = {
          id: inputId,
          name,
          class: 'bw-input',
          'data-key': `field-${name}`,
          required: !!o.required,
          'aria-required': o.required ? 'true' : null,
          'aria-invalid': err ? 'true' : null,
          'aria-describedby': describedBy || null,
          autocomplete: o.autocomplete,
          inputmode: o.inputmode,
          value: s.form[name],
          oninput: (/** @type {Event} */ e) => {
            const target = /** @type {HTMLInputElement} */ (e.target);
            s.form[name] = target.value;
            if (name === 'message') updateCount();
          },
        };
        const control = name === 'message'
          ? h('textarea', { ...attrs, rows: 4, maxlength: MESSAGE_MAX })
          : h('input', { ...attrs, type: o.type || 'text', maxlength: o.maxlength || 200, spellcheck: o.type === 'email' ? 'false' : null });
        return h('div', { class: `bw-field bw-field--${name}` },
          h('label', { for: inputId },
            t[name],
            o.required ? h('span', { class: 'bw-req', 'aria-hidden': 'true' }, ' *') : h('span', { class: 'bw-opt' }, ` (${t.optional})`)),
          o.hint && h('p', { class: 'bw-hint', id: hintId }, o.hint),
          control,
          name === 'message' && h('p', { class: 'bw-count', id: `${inputId}-count` }, fill(t.charsLeft, { n: MESSAGE_MAX - s.form.message.length })),
          h('p', { class: 'bw-field-error', id: errId, hidden: !err }, err || ''));
      };
      const left = s.hold ? s.hold.expiresAt - Date.now() : 0;
      return h('section', { class: 'bw-step' },
        stepInfo(),
        stepHeading(t.stepDetails),
        h('div', { class: 'bw-chosen-slot' },
          summary(),
          h('button', { type: 'button', class: 'bw-link', 'data-key': 'change-time', onclick: () => loadSlots() }, t.changeTime)),
        s.expired
          ? h('div', { class: 'bw-expired', role: 'alert' },
              h('p', null, t.holdExpired),
              h('div', { class: 'bw-actions' },
                h('button', { type: 'button', class: 'bw-btn', 'data-key': 'reserve-again', onclick: () => s.slot && pickSlot(s.slot) }, t.reserveAgain),
                h('button', { type: 'button', class: 'bw-btn bw-btn--secondary', 'data-key': 'pick-again', onclick: () => loadSlots() }, t.pickAgain)))
          : h('p', { class: 'bw-hold' },
              t.holdLeft.split('{time}')[0],
              h('span', { class: 'bw-hold-time', role: 'timer', 'aria-live': 'off' }, mmss(left)),
              t.holdLeft.split('{time}')[1] || ''),
        h('form', {
          class: 'bw-form',
          novalidate: true,
          onsubmit: (/** @type {Event} */ e) => {
            e.preventDefault();
            if (s.expired) return;
            submit();
          },
        },
        h('p', { class: 'bw-hint' }, t.requiredNote),
        h('div', { class: 'bw-row' },
          field('firstname', { required: true, autocomplete: 'given-name' }),
          field('lastname', { required: true, autocomplete: 'family-name' })),
        field('email', { required: true, type: 'email', autocomplete: 'email', maxlength: 254 }),
        field('mobile', { type: 'tel', autocomplete: 'tel', inputmode: 'tel', hint: t.mobileHint, maxlength: 32 }),
        field('message', { hint: pd.msgHelpText || null }),
        h('div', { class: 'bw-actions' },
          h('button', { type: 'submit', class: 'bw-btn bw-submit', 'data-key': 'submit', 'aria-disabled': s.expired || s.busy ? 'true' : 'false' }, s.busy ? t.sending : submitLabel()))));
    }

    function updateCount() {
      const el = root.getElementById(`${id}-message-count`);
      if (el) el.textContent = fill(t.charsLeft, { n: MESSAGE_MAX - s.form.message.length });
    }

    function renderFieldErrors() {
      for (const name of FIELDS) {
        const input = root.getElementById(`${id}-${name}`);
        const errEl = root.getElementById(`${id}-${name}-err`);
        if (!input || !errEl) continue;
        const err = s.fieldErrors[name];
        errEl.textContent = err || '';
        errEl.hidden = !err;
        if (err) input.setAttribute('aria-invalid', 'true');
        else input.removeAttribute('aria-invalid');
        const ids = (input.getAttribute('aria-describedby') || '').split(' ').filter((x) => x && x !== errEl.id);
        if (err) ids.push(errEl.id);
        if (ids.length) input.setAttribute('aria-describedby', ids.join(' '));
        else input.removeAttribute('aria-describedby');
      }
    }

    function viewDone() {
      const requested = bookingProcess() === 'REQUESTED';
      const c = s.created || {};
      const email = s.form.email.trim();
      const cancel = typeof c.cancelLink === 'string' && /^https?:\/\//.test(c.cancelLink) ? c.cancelLink : null;
      return h('section', { class: `bw-step bw-done ${requested ? 'bw-done--requested' : 'bw-done--booked'}` },
        h('p', { class: 'bw-done-icon', 'aria-hidden': 'true' }, requested ? '✉' : '✓'),
        stepHeading(requested ? t.doneRequested : t.doneBooked),
        summary(),
        h('p', null, fill(requested ? t.doneRequestedText : t.doneBookedText, { email })),
        cancel && h('p', null, h('a', { href: cancel, target: '_blank', rel: 'noopener' }, t.cancelLink)),
        h('div', { class: 'bw-actions' },
          h('button', { type: 'button', class: 'bw-btn bw-btn--secondary', 'data-key': 'book-another', onclick: () => { s.form.message = ''; s.days = []; start(); } }, t.bookAnother)));
    }

    render();
    start();

    return {
      /** Removes the widget and stops its timers. */
      destroy() {
        destroyed = true;
        stopHold();
        root.replaceChildren();
      },
      /** Reloads from the start. */
      reload: () => start(),
    };
  }

  /** @param {string | undefined} wanted */
  function pickLang(wanted) {
    const cand = [wanted, document.documentElement.lang, navigator.language].find((x) => typeof x === 'string' && x);
    return /^de\b/i.test(String(cand || '')) ? 'de' : /^en\b/i.test(String(cand || '')) ? 'en' : 'de';
  }

  // ---------------------------------------------------------------------------------------------
  // Auto-mount from the <script> tag
  // ---------------------------------------------------------------------------------------------

  const me = /** @type {HTMLScriptElement | null} */ (document.currentScript);
  const defaultBase = me && me.src ? new URL('.', me.src).toString() : new URL('/', location.href).toString();

  /** @type {any} */ (window).BookingWidget = { mount, version: '1' };

  if (me && me.dataset.ref) {
    const d = me.dataset;
    const opts = {
      ref: d.ref,
      channelKey: d.channelKey,
      prdRef: d.prdRef,
      lang: /** @type {'de'|'en'|undefined} */ (d.lang),
      baseUrl: d.baseUrl,
      headingLevel: d.headingLevel ? Number(d.headingLevel) : undefined,
    };
    const go = () => {
      let target = d.target ? document.querySelector(d.target) : null;
      if (!target) {
        target = document.createElement('div');
        me.insertAdjacentElement('afterend', target);
      }
      mount(target, opts);
    };
    if (d.target && document.readyState === 'loading') document.addEventListener('DOMContentLoaded', go, { once: true });
    else go();
  }
})();
