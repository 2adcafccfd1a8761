/** Step "date and time": the days with free times, seven at a time, and the times of the chosen day. */
import { h } from '../dom.js';
import { countText, fill } from '../i18n.js';
import { endText, startText } from '../format.js';
import { choosesProduct, pageCount, pageDaysOf, placesText, slotKey } from '../state.js';
import { heading, stepHeading, stepInfo } from './parts.js';

/** @typedef {import('../mount.js').Widget} Widget */

/**
 * A day button. Its accessible name is its visible text ("Mo. 20 Juli") plus the number of free
 * times for screen readers only, so voice control users can say what they see (WCAG 2.5.3).
 * @param {Widget} w @param {import('../state.js').Day} d @param
 * {boolean} selected @param {string} timesId @param {() => void} onclick
 */
function dayButton(w, d, selected, timesId, onclick) {
  return h(
    'button',
    {
      type: 'button',
      class: 'bw-day',
      'data-key': `day-${d.day}`,
      'data-day': d.day,
      'aria-pressed': selected ? 'true' : 'false',
      'aria-controls': timesId,
      onclick,
    },
    h('span', { class: 'bw-day-wd' }, w.fmt.weekdayShort(d.day)),
    ' ',
    h('span', { class: 'bw-day-num' }, String(Number(d.day.slice(8)))),
    ' ',
    h('span', { class: 'bw-day-mon' }, w.fmt.monthShort(d.day)),
    h('span', { class: 'bw-sr' }, `, ${countText(w.t, d.items.length)}`),
  );
}

/**
 * A time button: the visible start time, then (for screen readers) " bis 09:30 Uhr", then the
 * places left of a group appointment.
 * @param {Widget} w @param {any} b
 */
function slotButton(w, b) {
  const key = slotKey(b);
  const places = placesText(b, w.t);
  const [before, after] = w.t.slotLabel.split('{start}');
  return h(
    'button',
    {
      type: 'button',
      class: 'bw-slot',
      'data-key': key,
      'data-start': b.start,
      'aria-disabled': w.s.busy ? 'true' : null,
      'aria-busy': w.s.busySlot === key ? 'true' : null,
      onclick: () => w.actions.pickSlot(b),
    },
    before && h('span', { class: 'bw-sr' }, before),
    h('span', { class: 'bw-slot-time' }, startText(b)),
    h('span', { class: 'bw-sr' }, fill(after || '', { end: endText(b) }), places ? ', ' : ''),
    places && h('span', { class: 'bw-slot-meta' }, places),
  );
}

/**
 * On a pool (A5's pool): "anyone" and each member to choose from; choosing lists that member's
 * times (or the pool's again). @param {Widget} w
 */
export function memberChoice(w) {
  const pool = w.s.publicData?.pool;
  if (!pool || !Array.isArray(pool.members)) return null;
  const id = `${w.id}-member`;
  const option = (/** @type {string} */ value, /** @type {string} */ label) =>
    h('option', { value, selected: (w.s.member || '') === value ? true : null }, label);
  return h(
    'p',
    { class: 'bw-member' },
    h('label', { for: id }, `${w.t.who} `),
    h(
      'select',
      {
        id,
        'data-key': 'member',
        onchange: (/** @type {Event} */ e) =>
          w.actions.chooseMember(/** @type {HTMLSelectElement} */ (e.target).value || null),
      },
      option('', w.t.anyone),
      pool.members.map((/** @type {any} */ m) => option(String(m.uuid), String(m.name))),
    ),
  );
}

/** @param {Widget} w */
export function viewSlots(w) {
  const { s, t, actions } = w;
  const page = pageDaysOf(s);
  const current = s.days[s.dayIndex] || page[0];
  const month = w.fmt.monthRange(page.map((d) => d.day));
  const timesId = `${w.id}-times`;
  return h(
    'section',
    { class: 'bw-step' },
    stepInfo(w),
    stepHeading(w, t.stepSlots),
    memberChoice(w),
    choosesProduct(s, w.options.prdRef) &&
      s.product &&
      h(
        'p',
        { class: 'bw-chosen' },
        h('span', null, s.product.name),
        h(
          'button',
          { type: 'button', class: 'bw-link', 'data-key': 'change-product', onclick: actions.backToProducts },
          t.changeService,
        ),
      ),
    h(
      'div',
      { class: 'bw-daynav' },
      h(
        'button',
        {
          type: 'button',
          class: 'bw-icon-btn',
          'data-key': 'days-prev',
          'aria-label': t.earlier,
          disabled: s.dayPage === 0,
          onclick: () => actions.turnDays(-1),
        },
        '‹',
      ),
      h('p', { class: 'bw-month', 'aria-hidden': 'true' }, month),
      h(
        'button',
        {
          type: 'button',
          class: 'bw-icon-btn',
          'data-key': 'days-next',
          'aria-label': t.later,
          disabled: s.dayPage >= pageCount(s) - 1,
          onclick: () => actions.turnDays(1),
        },
        '›',
      ),
    ),
    h(
      'ul',
      { class: 'bw-days', role: 'list', 'aria-label': `${t.days}, ${month}` },
      page.map((d) => {
        const i = s.days.indexOf(d);
        return h(
          'li',
          null,
          dayButton(w, d, i === s.dayIndex, timesId, () => actions.selectDay(i)),
        );
      }),
    ),
    h(
      'div',
      { class: 'bw-times', id: timesId },
      heading(w, 2, { class: 'bw-times-heading' }, fill(t.timesOn, { date: w.fmt.longDate(current.day) })),
      h(
        'ul',
        { class: 'bw-slots', role: 'list' },
        current.items.map((b) => h('li', null, slotButton(w, b))),
      ),
    ),
  );
}
