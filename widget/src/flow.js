/**
 * What the consumer's actions do: the calls to the service in order (A5+A4, A1, A2, A3), the hold's
 * countdown and the messages. The rules themselves are in state.js; the drawing in mount.js.
 */
import { countText, fill, languageTagOf } from './i18n.js';
import { mmss, startText } from './format.js';
import {
  bookBody,
  bookLostSlot,
  choosesProduct,
  fieldErrorsOf,
  FIELDS,
  messageOf,
  pageDaysOf,
  reserveBody,
  reserved,
  reserveLostSlot,
  retryable,
  showDays,
  groupDays,
  slotKey,
  turnDayPage,
  validate,
} from './state.js';
import { charsLeftText } from './views/details.js';
import { answerErrorsOf, answersBody, fieldOf, questionsOf, validateAnswers } from './questions.js';

/** @typedef {import('./mount.js').Widget} Widget */
/** @typedef {import('./api.js').ApiError} ApiError */

/** @param {Widget} w */
export function createActions(w) {
  const { s, t, api } = w;
  /** @type {ReturnType<typeof setInterval> | null} */
  let holdTimer = null;
  let announcedMinute = false;

  /**
   * A failure while loading: the error step with a retry (none
   * for 404). @param {ApiError} err @param {() => void} retry
   */
  function fail(err, retry) {
    s.step = 'error';
    s.notFound = err.status === 404;
    w.render('heading');
    w.showAlert(messageOf(err, t), s.notFound ? {} : { retry });
  }

  async function start() {
    stopHold();
    Object.assign(s, {
      step: 'loading',
      product: null,
      slot: null,
      hold: null,
      expired: false,
      created: null,
      notFound: false,
    });
    w.render();
    try {
      const [pd, ap] = await Promise.all([api.publicData(), api.activeProducts(languageTagOf(w.lang))]);
      s.publicData = pd || {};
      s.products = (ap && Array.isArray(ap.products) ? ap.products : []).filter((/** @type {any} */ p) => p?.uuid);
      w.renderHeader();
    } catch (e) {
      return fail(/** @type {ApiError} */ (e), start);
    }
    if (choosesProduct(s, w.options.prdRef)) {
      s.step = 'products';
      w.render('heading');
      w.announce(t.stepProduct);
    } else {
      s.product = w.options.prdRef ? null : s.products[0] || null;
      await loadSlots();
    }
  }

  /** @param {any} product */
  async function chooseProduct(product) {
    s.product = product;
    await loadSlots();
  }

  function backToProducts() {
    stopHold();
    Object.assign(s, { step: 'products', slot: null, hold: null });
    w.render('heading');
  }

  /** Loads A1 and shows the day/time step. notice: an alert to show with the fresh list. @param {string} [notice] */
  async function loadSlots(notice) {
    stopHold();
    const keepDay = s.days[s.dayIndex] && s.days[s.dayIndex].day;
    Object.assign(s, { step: 'loading', slot: null, hold: null, expired: false });
    w.render();
    let data;
    try {
      const prdRef = w.options.prdRef || (s.product ? s.product.uuid : undefined);
      data = await api.bookables(prdRef, languageTagOf(w.lang));
    } catch (e) {
      return fail(/** @type {ApiError} */ (e), () => loadSlots(notice));
    }
    showDays(s, groupDays(data), keepDay);
    w.render('heading');
    if (notice) w.showAlert(notice, { kind: s.step === 'empty' ? 'info' : 'error' });
  }

  /** On a pool: book this member (its uuid), or anyone (null). @param {string | null} member */
  async function chooseMember(member) {
    s.member = member;
    api.chooseMember(member);
    await loadSlots();
    w.focusKey('member');
  }

  /** @param {number} i */
  function selectDay(i) {
    s.dayIndex = i;
    const day = s.days[i];
    w.render(`day-${day.day}`);
    w.announce(`${fill(t.timesOn, { date: w.fmt.longDate(day.day) })}: ${countText(t, day.items.length)}`);
  }

  /** @param {number} delta */
  function turnDays(delta) {
    w.render(turnDayPage(s, delta));
    const first = s.days[s.dayIndex].day;
    w.announce(
      `${w.fmt.monthRange(pageDaysOf(s).map((d) => d.day))}: ${fill(t.timesOn, { date: w.fmt.longDate(first) })}`,
    );
  }

  /** Reserves a bookable (A2) and moves on to the form. @param {any} b */
  async function pickSlot(b) {
    if (s.busy) return;
    // a host page that only wants the choice (the manage page moving a booking) takes it here
    if (w.options.onPick) return w.options.onPick(b);
    s.busy = true;
    s.busySlot = slotKey(b);
    w.showAlert(null);
    w.updateBusy();
    w.announce(fill(t.reserving, { time: startText(b) }));
    let answer;
    try {
      answer = await api.reserve(reserveBody(s, b));
    } catch (e) {
      const err = /** @type {ApiError} */ (e);
      s.busy = false;
      s.busySlot = null;
      if (reserveLostSlot(err, s.step)) return loadSlots(t.slotTaken);
      if (s.step === 'slots') w.render();
      else w.updateBusy();
      if (err.status === 400)
        return w.showAlert(t.notCompleted, { retry: () => loadSlots(), actionLabel: t.pickAgain });
      return w.showAlert(messageOf(err, t), retryable(err) ? { retry: () => pickSlot(b) } : {});
    }
    s.busy = false;
    s.busySlot = null;
    const seconds = reserved(s, b, answer, Date.now(), w.holdSeconds);
    w.render('heading');
    startHold();
    w.announce(fill(t.reserved, { min: Math.round(seconds / 60) || 1 }));
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
    if (!s.hold || w.destroyed) return stopHold();
    const left = s.hold.expiresAt - Date.now();
    const timer = w.root.querySelector('.bw-hold-time');
    if (timer) timer.textContent = mmss(left);
    if (left <= 60000 && left > 0 && !announcedMinute) {
      announcedMinute = true;
      w.announce(t.holdOneMinute);
    }
    if (left > 0) return;
    stopHold();
    s.expired = true;
    w.showAlert(null);
    w.render();
    w.focusKey('reserve-again');
  }

  /** @param {Record<string, string>} errs */
  function showFieldErrors(errs) {
    s.fieldErrors = errs;
    w.renderFieldErrors();
    w.showAlert(t.formErrors);
    const first = [...FIELDS, ...questionsOf(s).map(fieldOf)].find((f) => errs[f]);
    if (first) w.focusKey(`field-${first}`);
  }

  async function submit() {
    if (s.busy || !s.slot) return;
    w.showAlert(null);
    const questions = questionsOf(s);
    const errs = { ...validate(s.form, t), ...validateAnswers(questions, s.answers, t) };
    if (Object.keys(errs).length) return showFieldErrors(errs);
    s.fieldErrors = {};
    w.renderFieldErrors();
    s.busy = true;
    w.updateBusy();
    w.announce(t.sending);
    let answer;
    try {
      answer = await api.book(
        bookBody(s, { lang: w.lang, channelKey: w.channelKey, answers: answersBody(questions, s.answers) }),
      );
    } catch (e) {
      const err = /** @type {ApiError} */ (e);
      s.busy = false;
      w.updateBusy();
      if (bookLostSlot(err)) return loadSlots(t.slotTaken);
      if (err.status === 400) {
        const fe = { ...fieldErrorsOf(err, t), ...answerErrorsOf(err.errors, questions, t) };
        if (Object.keys(fe).length) return showFieldErrors(fe);
        // not about a form field (e.g. the slot or reservation): let the consumer pick again
        return w.showAlert(t.notCompleted, { retry: () => loadSlots(), actionLabel: t.pickAgain });
      }
      return w.showAlert(messageOf(err, t), retryable(err) ? { retry: submit } : {});
    }
    s.busy = false;
    stopHold();
    s.created = answer?.createdAppointment || {};
    s.hold = null;
    s.step = 'done';
    w.render('heading');
  }

  /**
   * Typing into a field keeps the state; only the message's
   * counter is redrawn. @param {string} name @param {string} value
   */
  function input(name, value) {
    s.form[name] = value;
    if (name !== 'message') return;
    const count = w.root.getElementById(`${w.id}-message-count`);
    if (count) count.textContent = charsLeftText(w);
  }

  /**
   * An answer to a question: kept in the state, nothing redrawn. @param {string} key @param {string | boolean} value
   */
  function answer(key, value) {
    s.answers[key] = value;
  }

  function bookAnother() {
    s.form.message = '';
    s.answers = {};
    s.days = [];
    start();
  }

  return {
    start,
    chooseProduct,
    backToProducts,
    loadSlots,
    chooseMember,
    selectDay,
    turnDays,
    pickSlot,
    submit,
    input,
    answer,
    bookAnother,
    stopHold,
  };
}

/** @typedef {ReturnType<typeof createActions>} Actions */
