/**
 * The bundle's entry (scripts/build-widget.mjs): the global BookingWidget and the auto-mount from
 * the <script> tag. Attributes, theming and the programmatic API: docs/widget.md.
 */
import { mount } from './mount.js';

/** Seconds a reservation is held; the service writes its configured value here when serving. */
const HOLD_SECONDS = Number('__HOLD_SECONDS__') || 180;

// document.currentScript is only set while this script first runs
const me = /** @type {HTMLScriptElement | null} */ (document.currentScript);
const defaults = {
  baseUrl: me?.src ? new URL('.', me.src).toString() : new URL('/', location.href).toString(),
  holdSeconds: HOLD_SECONDS,
};

/** @type {any} */ (window).BookingWidget = {
  /** @param {Element | string} target @param {import('./mount.js').Options} options */
  mount: (target, options) => mount(target, options, defaults),
  version: '1',
};

// Auto-mount from the <script> tag: where it is, or into data-target.
const ref = me?.dataset.ref;
if (me && ref) {
  const d = me.dataset;
  const script = me;
  const options = {
    ref,
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
      script.insertAdjacentElement('afterend', target);
    }
    mount(target, options, defaults);
  };
  if (d.target && document.readyState === 'loading') document.addEventListener('DOMContentLoaded', go, { once: true });
  else go();
}
