/**
 * The state of one widget and its transitions. Pure: no DOM, no network, no clock of its own
 * (`now` is passed in), so every rule here is unit-tested.
 */
import { fill } from './i18n.js';
import { dayOf, toUtcIso } from './format.js';

export const DAYS_PER_PAGE = 7;
export const MESSAGE_MAX = 1024;
export const FIELDS = /** @type {const} */ (['firstname', 'lastname', 'email', 'mobile', 'message']);

/**
 * @typedef {'loading' | 'products' | 'slots' | 'details' | 'done' | 'empty' | 'error' | 'manage' | 'manageSent'} Step
 */
/** @typedef {{ day: string, items: any[] }} Day */
/** @typedef {ReturnType<typeof initialState>} State */
/** @typedef {import('./api.js').ApiError} ApiError */
/** @typedef {import('./i18n.js').Dict} Dict */

export function initialState() {
  return {
    /** @type {Step} */ step: 'loading',
    /** @type {any} A5's answer */ publicData: null,
    /** @type {any[]} A4's products */ products: [],
    /** @type {any} the chosen product */ product: null,
    /** @type {string | null} on a pool: the member chosen (its uuid), null for anyone */ member: null,
    /** @type {Day[]} */ days: [],
    dayIndex: 0,
    dayPage: 0,
    /** @type {any} the reserved bookable */ slot: null,
    /** @type {{ customerUuid: string, expiresAt: number } | null} */ hold: null,
    expired: false,
    /** @type {Record<string, string>} */ form: { firstname: '', lastname: '', email: '', mobile: '', message: '' },
    /** @type {Record<string, string | boolean>} answers to the product's questions, by key */ answers: {},
    /** @type {Record<string, string>} by field name (questions: q_<key>) */ fieldErrors: {},
    /** @type {any} A3's createdAppointment */ created: null,
    busy: false,
    /** @type {string | null} data-key of the slot being reserved */ busySlot: null,
    notFound: false,
    /** "manage my bookings": the address asked for, and what is wrong with it */ manage: { email: '', error: '' },
  };
}

/** What passes for an e-mail address before the service checks it. */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** What passes for a phone number before the service reads it for the provider's country. */
export const PHONE_SHAPE = /^[+(0-9][0-9 ()/.-]{4,30}$/;

/** IMMEDIATE or REQUESTED: the booking process of the channel (A5). @param {State} s */
export const bookingProcess = (s) => s.publicData?.channel?.bookingProcess || 'IMMEDIATE';

/** Whether the consumer chooses a product first. @param {State} s @param {string | undefined} prdRef */
export const choosesProduct = (s, prdRef) => !prdRef && s.products.length > 1;

/**
 * "Step n of total" for the steps that count; null for the others.
 * @param {State} s @param {boolean} withProducts
 */
export function stepNumber(s, withProducts) {
  const steps = withProducts ? ['products', 'slots', 'details'] : ['slots', 'details'];
  const n = steps.indexOf(s.step) + 1;
  return n > 0 ? { n, total: steps.length } : null;
}

/**
 * A1's groups (every key but public_visible) as days in order, each with its bookables by start.
 * @param {any} data
 * @returns {Day[]}
 */
export function groupDays(data) {
  /** @type {Map<string, any[]>} */
  const byDay = new Map();
  if (data && typeof data === 'object') {
    for (const [key, value] of Object.entries(data)) {
      if (key === 'public_visible' || !Array.isArray(value)) continue;
      for (const b of value) {
        if (!b?.start) continue;
        const day = dayOf(key) || dayOf(b.start);
        if (!day) continue;
        const items = byDay.get(day) || [];
        items.push(b);
        byDay.set(day, items);
      }
    }
  }
  return [...byDay.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([day, items]) => ({ day, items: items.sort((a, b) => Date.parse(a.start) - Date.parse(b.start)) }));
}

/**
 * A fresh list of days arrived: the slot step (the same day as before when it still has times),
 * or the empty step.
 * @param {State} s @param {Day[]} days @param {string | undefined} keepDay
 */
export function showDays(s, days, keepDay) {
  s.days = days;
  if (!days.length) {
    s.step = 'empty';
    return;
  }
  const again = keepDay ? days.findIndex((d) => d.day === keepDay) : -1;
  s.dayIndex = Math.max(again, 0);
  s.dayPage = Math.floor(s.dayIndex / DAYS_PER_PAGE);
  s.step = 'slots';
}

/** The days on the current page. @param {State} s */
export const pageDaysOf = (s) => s.days.slice(s.dayPage * DAYS_PER_PAGE, (s.dayPage + 1) * DAYS_PER_PAGE);

/** @param {State} s */
export const pageCount = (s) => Math.ceil(s.days.length / DAYS_PER_PAGE);

/**
 * Pages the days by `delta` (within bounds) and selects the first day of the page. Returns the
 * data-key of the paging button that should keep the focus (the other one when this one is now
 * disabled).
 * @param {State} s @param {number} delta
 */
export function turnDayPage(s, delta) {
  const last = pageCount(s) - 1;
  s.dayPage = Math.min(last, Math.max(0, s.dayPage + delta));
  s.dayIndex = s.dayPage * DAYS_PER_PAGE;
  if (delta < 0) return s.dayPage > 0 ? 'days-prev' : 'days-next';
  return s.dayPage < last ? 'days-next' : 'days-prev';
}

/** data-key of a bookable's button. @param {any} b */
export const slotKey = (b) => `slot-${b.appointment_uuid || b.timeslot_uuid}-${b.start}`;

/**
 * The product a booking of `b` is for: the chosen one when `b` offers it, else b's own.
 * @param {State} s @param {any} b a bookable
 */
export function productUuidOf(s, b) {
  const offered = Array.isArray(b.products) ? b.products : [];
  const chosen = s.product?.uuid;
  if (chosen && (b.product_uuid === chosen || offered.some((/** @type {any} */ p) => p && p.uuid === chosen)))
    return chosen;
  return b.product_uuid || offered[0]?.uuid || chosen || undefined;
}

/** A2's body for bookable `b`. @param {State} s @param {any} b */
export function reserveBody(s, b) {
  return {
    ...(b.kind === 'models.PoolBookable'
      ? { pool_uuid: b.pool_uuid }
      : b.kind === 'models.LotAppointment' && b.appointment_uuid
        ? { appointment_uuid: b.appointment_uuid }
        : { timeslot_uuid: b.timeslot_uuid }),
    product_uuid: productUuidOf(s, b),
    from: toUtcIso(b.start),
    to: toUtcIso(b.end),
  };
}

/**
 * A2 answered: the hold runs from `now` for the seconds the answer names, else `holdSeconds`.
 * Moves to the details step and returns the hold's length in seconds.
 * @param {State} s @param {any} b @param {any} answer @param {number} now @param {number} holdSeconds
 */
export function reserved(s, b, answer, now, holdSeconds) {
  const p = answer?.participation || {};
  const given = Number(p.holdSeconds || p.hold_seconds);
  const seconds = given > 0 ? given : holdSeconds;
  s.slot = b;
  s.hold = { customerUuid: p.customer_uuid, expiresAt: now + seconds * 1000 };
  s.expired = false;
  s.fieldErrors = {};
  s.step = 'details';
  return seconds;
}

/** A2 failed this way: the time is gone, show a fresh list. @param {ApiError} err @param {Step} step */
export const reserveLostSlot = (err, step) =>
  err.status === 412 ||
  (err.status === 409 && err.code !== 'AppointmentAlreadyBookedException') ||
  (err.status === 404 && step === 'details');

/** A3 failed this way: the time is gone, show a fresh list. @param {ApiError} err */
export const bookLostSlot = (err) =>
  err.status === 412 || err.code === '201' || err.code === 'CAPACITY_EXHAUSTED' || err.code === 'TOO_LATE';

/** A network error or a 5xx: the same call may work again. @param {ApiError} err */
export const retryable = (err) => err.status === 0 || err.status >= 500;

/** The consumer-facing text of a failed call. @param {ApiError} err @param {Dict} t */
export function messageOf(err, t) {
  if (err.status === 0) return t.networkError;
  if (err.status === 429) return t.tooMany;
  if (err.status === 404) return t.notFound;
  if (err.code === 'AppointmentAlreadyBookedException') return t.alreadyBooked;
  if (err.code === 'CONSUMER_LIMIT') return t.consumerLimit;
  return t.serverError;
}

/** The form's own checks, before A3 checks the same. @param {Record<string, string>} f @param {Dict} t */
export function validate(f, t) {
  /** @type {Record<string, string>} */
  const errs = {};
  if (!f.firstname.trim()) errs.firstname = t.errRequired;
  if (!f.lastname.trim()) errs.lastname = t.errRequired;
  if (!f.email.trim()) errs.email = t.errRequired;
  else if (!EMAIL_SHAPE.test(f.email.trim())) errs.email = t.errEmail;
  if (f.mobile.trim() && !PHONE_SHAPE.test(f.mobile.trim())) errs.mobile = t.errMobile;
  if (f.message.length > MESSAGE_MAX) errs.message = t.errMessage;
  return errs;
}

/**
 * A3's 400 items ("body.email must match format ...") as texts per form field. @param {ApiError} err @param {Dict} t
 */
export function fieldErrorsOf(err, t) {
  /** @type {Record<string, string>} */
  const out = {};
  const parts = err.errors.flatMap((e) => String(e.message || '').split(/;\s*/));
  for (const msg of parts) {
    if (/\bbody\.answers\./.test(msg)) continue; // about a question: questions.js answerErrorsOf
    const m = /\b(?:body\.)?(firstname|lastname|email|mobile|message)\b/i.exec(msg);
    if (!m) continue;
    const field = m[1].toLowerCase();
    if (out[field]) continue;
    if (/required|empty|missing/i.test(msg)) out[field] = t.errRequired;
    else
      out[field] =
        field === 'email'
          ? t.errEmail
          : field === 'mobile'
            ? t.errMobile
            : field === 'message'
              ? t.errMessage
              : t.errInvalid;
  }
  return out;
}

/**
 * A3's body: the reserved bookable, the hold's placeholder, the form and the answers (questions.js answersBody).
 * @param {State} s @param {{ lang: string, channelKey: string, answers?: Record<string, string | boolean> }} o
 */
export function bookBody(s, o) {
  const b = s.slot;
  const f = s.form;
  return {
    start: b.start,
    end: b.end,
    ...(b.kind === 'models.PoolBookable'
      ? { pool_uuid: b.pool_uuid }
      : {
          timeslot_uuid:
            b.kind === 'models.LotAppointment' && b.appointment_uuid ? b.appointment_uuid : b.timeslot_uuid,
        }),
    product_uuid: productUuidOf(s, b),
    placeholder_id: s.hold ? s.hold.customerUuid : undefined,
    email: f.email.trim(),
    firstname: f.firstname.trim(),
    lastname: f.lastname.trim(),
    ...(f.mobile.trim() ? { mobile: f.mobile.trim() } : {}),
    ...(f.message.trim() ? { message: f.message } : {}),
    locale: o.lang,
    channelKey: o.channelKey,
    ...(o.answers ? { answers: o.answers } : {}),
  };
}

/** Places-left text of a group slot, null for single places. @param {any} b @param {Dict} t */
export function placesText(b, t) {
  const left = Number(b.capacity_left);
  if (!(Number(b.capacity) > 1 && left > 0)) return null;
  return left === 1 ? t.placeLeft : fill(t.placesLeft, { n: left });
}
