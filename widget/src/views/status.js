/** The steps without a choice: loading, error (with the alert's retry) and no free times. */
import { h } from '../dom.js';
import { choosesProduct } from '../state.js';
import { button, contactBlock, stepHeading } from './parts.js';

/** @typedef {import('../mount.js').Widget} Widget */

/** @param {Widget} w */
export function viewLoading(w) {
  return h(
    'section',
    { class: 'bw-step bw-loading' },
    h('span', { class: 'bw-spinner', 'aria-hidden': 'true' }),
    h('p', null, w.t.loading),
  );
}

/** @param {Widget} w */
export function viewError(w) {
  return h('section', { class: 'bw-step' }, stepHeading(w, w.t.errorTitle), contactBlock(w));
}

/** A1 answered 204. @param {Widget} w */
export function viewEmpty(w) {
  const { t, actions } = w;
  return h(
    'section',
    { class: 'bw-step bw-empty' },
    stepHeading(w, t.emptyTitle),
    h('p', null, t.emptyText),
    contactBlock(w),
    h(
      'div',
      { class: 'bw-actions' },
      choosesProduct(w.s, w.options.prdRef) && button('change-product', t.changeService, actions.backToProducts, false),
      button('check-again', t.checkAgain, () => actions.loadSlots()),
    ),
  );
}
