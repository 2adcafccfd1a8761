/** Pieces several steps show: headings, the step indicator, the appointment summary, the contact. */
import { h } from '../dom.js';
import { fill } from '../i18n.js';
import { dayOf, endText, startText } from '../format.js';
import { choosesProduct, stepNumber } from '../state.js';

/** @typedef {import('../mount.js').Widget} Widget */

/**
 * A heading `extra` levels below the widget's title level (data-heading-level), at most h6.
 * @param {Widget} w @param {number} extra @param {Record<string, any> | null} attrs @param {...any} children
 */
export const heading = (w, extra, attrs, ...children) => h(`h${Math.min(6, w.level + extra)}`, attrs, ...children);

/**
 * The step's heading; focus moves here on every step change after
 * the consumer's first action. @param {Widget} w @param {string} text
 */
export const stepHeading = (w, text) => heading(w, 1, { class: 'bw-step-heading', tabindex: '-1' }, text);

/** "Step 2 of 3", on the steps that count. @param {Widget} w */
export function stepInfo(w) {
  const n = stepNumber(w.s, choosesProduct(w.s, w.options.prdRef));
  return n ? h('p', { class: 'bw-steps' }, fill(w.t.stepOf, n)) : null;
}

/** "09:00 bis 09:30 Uhr" @param {Widget} w @param {any} b a bookable or createdAppointment */
export const periodText = (w, b) => fill(w.t.slotLabel, { start: startText(b), end: endText(b) });

/** The appointment being booked (details step) or booked (done step). @param {Widget} w */
export function summary(w) {
  const { s, t } = w;
  const b = s.slot || s.created || {};
  const day = dayOf(b.start);
  const productName = s.product?.name || b.product_name || '';
  return h(
    'div',
    { class: 'bw-summary' },
    h('p', { class: 'bw-summary-label' }, t.summary),
    h('p', { class: 'bw-summary-when' }, day ? w.fmt.longDate(day) : '', h('br'), periodText(w, b)),
    productName && h('p', { class: 'bw-summary-what' }, productName),
  );
}

/** The resource's public contact (A5), when it has an email or phone. @param {Widget} w */
export function contactBlock(w) {
  const c = w.s.publicData?.contact || {};
  const phone = c.phone || c.mobile;
  const items = [
    c.email && h('li', null, h('a', { href: `mailto:${c.email}` }, c.email)),
    phone && h('li', null, h('a', { href: `tel:${String(phone).replace(/[^+0-9]/g, '')}` }, phone)),
  ].filter(Boolean);
  if (!items.length) return null;
  return h(
    'div',
    { class: 'bw-contact' },
    h('p', null, w.t.contactUs, c.name ? ` ${c.name}` : ''),
    h('ul', null, items),
  );
}

/**
 * A button; `primary` false gives the secondary style. @param
 * {string} key @param {string} label @param {() => void} onclick
 */
export const button = (key, label, onclick, primary = true) =>
  h(
    'button',
    { type: 'button', class: primary ? 'bw-btn' : 'bw-btn bw-btn--secondary', 'data-key': key, onclick },
    label,
  );
