/**
 * One widget on the page: its shadow root, the shell (header, alert, step, live region), drawing
 * the current step and moving focus. What actions do is in flow.js, the steps in views/.
 */
import { createApi } from './api.js';
import { append, h } from './dom.js';
import { createFormatters } from './format.js';
import { localeOf, pickLang, TEXT } from './i18n.js';
import { createActions } from './flow.js';
import { FIELDS, initialState } from './state.js';
import { fieldOf, questionsOf } from './questions.js';
import { viewDetails, submitLabel } from './views/details.js';
import { viewDone } from './views/done.js';
import { heading } from './views/parts.js';
import { viewProducts } from './views/products.js';
import { viewSlots } from './views/slots.js';
import { viewEmpty, viewError, viewLoading } from './views/status.js';
import { createMyBookings, manageEntry, viewManage, viewManageSent } from './myBookings.js';

const VIEWS = {
  loading: viewLoading,
  products: viewProducts,
  slots: viewSlots,
  details: viewDetails,
  done: viewDone,
  empty: viewEmpty,
  error: viewError,
  manage: viewManage,
  manageSent: viewManageSent,
};

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
 * @typedef {object} Widget what the views and actions of one widget share
 * @property {Options} options
 * @property {import('./i18n.js').Lang} lang
 * @property {import('./i18n.js').Dict} t
 * @property {import('./format.js').Formatters} fmt
 * @property {import('./api.js').Api} api
 * @property {import('./state.js').State} s
 * @property {string} id prefix of element ids, unique on the page
 * @property {number} level heading level of the title
 * @property {string} channelKey
 * @property {number} holdSeconds the service's hold, when A2's answer does not say
 * @property {ShadowRoot} root
 * @property {boolean} destroyed
 * @property {(focus?: string) => void} render 'heading': focus the step heading; a data-key: focus that control
 * @property {() => void} renderHeader
 * @property {(text: string) => void} announce
 * @property {(text: string | null, o?: { retry?: () => void, kind?:
 * 'error' | 'info', actionLabel?: string }) => void} showAlert
 * @property {() => void} updateBusy
 * @property {() => void} renderFieldErrors
 * @property {(key: string) => void} focusKey
 * @property {import('./flow.js').Actions} actions
 * @property {ReturnType<typeof createMyBookings>} myBookings "manage my bookings"
 */

let uid = 0;

/**
 * Mounts a widget into `target` (an element or a selector) and returns a handle.
 * @param {Element | string} target
 * @param {Options} options
 * @param {{ baseUrl: string, holdSeconds: number }} defaults
 */
export function mount(target, options, defaults) {
  const hostEl = typeof target === 'string' ? document.querySelector(target) : target;
  if (!hostEl) throw new Error(`booking widget: no element ${String(target)}`);
  if (!options?.ref) throw new Error('booking widget: ref is required');
  const lang = pickLang([options.lang, document.documentElement.lang, navigator.language]);
  const base = options.baseUrl || defaults.baseUrl;
  const channelKey = options.channelKey || 'RESOURCE_PUBLIC';

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

  // Focus moves to step headings only once the consumer has interacted: never steal it on load.
  let acted = false;
  shell.addEventListener('pointerdown', () => (acted = true));
  shell.addEventListener('keydown', () => (acted = true));

  /** @type {Widget} */
  const w = {
    options,
    lang,
    t: TEXT[lang],
    fmt: createFormatters(localeOf(lang)),
    api: createApi(base, { ref: options.ref, channelKey }),
    s: initialState(),
    id: `bw${++uid}`,
    level: Math.min(5, Math.max(1, Number(options.headingLevel) || 2)),
    channelKey,
    holdSeconds: defaults.holdSeconds,
    root,
    destroyed: false,
    render,
    renderHeader,
    announce,
    showAlert,
    updateBusy,
    renderFieldErrors,
    focusKey,
    actions: /** @type {any} */ (null),
    myBookings: /** @type {any} */ (null),
  };
  w.actions = createActions(w);
  w.myBookings = createMyBookings(w);

  /** @param {string} text */
  function announce(text) {
    status.textContent = '';
    // a fresh text after a tick makes screen readers read a repeated message too
    setTimeout(() => (status.textContent = text), 30);
  }

  /** An error or notice above the step (role=alert), with an optional retry button. @type {Widget['showAlert']} */
  function showAlert(text, o = {}) {
    alertBox.replaceChildren();
    alertBox.hidden = !text;
    if (!text) return;
    alertBox.className = `bw-alert bw-alert--${o.kind || 'error'}`;
    const retry = o.retry;
    append(alertBox, [
      h('p', null, text),
      retry &&
        h(
          'button',
          {
            type: 'button',
            class: 'bw-btn bw-btn--secondary',
            'data-key': 'alert-retry',
            onclick: () => {
              showAlert(null);
              retry();
            },
          },
          o.actionLabel || w.t.retry,
        ),
    ]);
  }

  /** @param {string} key */
  function focusKey(key) {
    const el = /** @type {HTMLElement | null} */ (root.querySelector(`[data-key="${CSS.escape(key)}"]`));
    if (el) el.focus();
  }

  function renderHeader() {
    const pd = w.s.publicData || {};
    const resource = pd.resource || {};
    const provider = pd.provider || {};
    const title = resource.name || provider.name || '';
    const img = typeof resource.imgUrl === 'string' && /^https?:\/\//.test(resource.imgUrl) ? resource.imgUrl : null;
    header.replaceChildren();
    if (!title) return;
    append(header, [
      img && h('img', { class: 'bw-img', src: img, alt: '', width: 56, height: 56, loading: 'lazy' }),
      h(
        'div',
        null,
        heading(w, 0, { class: 'bw-title' }, title),
        provider.name && provider.name !== title && h('p', { class: 'bw-sub' }, provider.name),
        resource.description && h('p', { class: 'bw-desc' }, resource.description),
      ),
    ]);
  }

  /** Redraws the current step, keeping the focused control focused. @param {string} [focus] */
  function render(focus) {
    if (w.destroyed) return;
    const active = /** @type {HTMLElement | null} */ (root.activeElement);
    const keepKey = !focus && active && active.getAttribute('data-key');
    if (focus === 'heading' || w.s.step === 'loading') showAlert(null);
    shell.setAttribute('aria-busy', w.s.step === 'loading' ? 'true' : 'false');
    main.replaceChildren(VIEWS[w.s.step](w), manageEntry(w) || '');
    const key = focus === 'heading' ? null : focus || keepKey;
    const target =
      focus === 'heading'
        ? acted && /** @type {HTMLElement | null} */ (root.querySelector('.bw-step-heading'))
        : key && /** @type {HTMLElement | null} */ (root.querySelector(`[data-key="${CSS.escape(key)}"]`));
    if (!target) return;
    target.focus({ preventScroll: focus !== 'heading' });
    if (focus !== 'heading' || typeof target.scrollIntoView !== 'function') return;
    const r = target.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) target.scrollIntoView({ block: 'nearest' });
  }

  /** Reflects s.busy on the visible buttons without redrawing (keeps focus and input). */
  function updateBusy() {
    const { s } = w;
    for (const el of root.querySelectorAll('.bw-slot')) {
      if (s.busy) el.setAttribute('aria-disabled', 'true');
      else el.removeAttribute('aria-disabled');
      if (s.busySlot && el.getAttribute('data-key') === s.busySlot) el.setAttribute('aria-busy', 'true');
      else el.removeAttribute('aria-busy');
    }
    const submitBtn = root.querySelector('.bw-submit');
    if (!submitBtn) return;
    submitBtn.setAttribute('aria-disabled', s.busy || s.expired ? 'true' : 'false');
    submitBtn.textContent = s.busy ? w.t.sending : submitLabel(w);
  }

  /** Shows s.fieldErrors at their fields without redrawing the form. */
  function renderFieldErrors() {
    for (const name of [...FIELDS, ...questionsOf(w.s).map(fieldOf)]) {
      const input = root.getElementById(`${w.id}-${name}`);
      const errEl = root.getElementById(`${w.id}-${name}-err`);
      if (!input || !errEl) continue;
      const err = w.s.fieldErrors[name];
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

  render();
  w.actions.start();

  return {
    /** Removes the widget and stops its timers. */
    destroy() {
      w.destroyed = true;
      w.actions.stopHold();
      root.replaceChildren();
    },
    /** Starts over. */
    reload: () => w.actions.start(),
  };
}
