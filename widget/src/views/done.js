/** The last step: booked, or request sent, with the cancel link. */
import { h } from '../dom.js';
import { fill } from '../i18n.js';
import { bookingProcess } from '../state.js';
import { button, stepHeading, summary } from './parts.js';
import { answerRows, questionsOf } from '../questions.js';

/** @typedef {import('../mount.js').Widget} Widget */

/** @param {Widget} w */
export function viewDone(w) {
  const { s, t } = w;
  const requested = bookingProcess(s) === 'REQUESTED';
  const c = s.created || {};
  const rows = answerRows(questionsOf(s), s.answers);
  const cancel = typeof c.cancelLink === 'string' && /^https?:\/\//.test(c.cancelLink) ? c.cancelLink : null;
  return h(
    'section',
    { class: `bw-step bw-done ${requested ? 'bw-done--requested' : 'bw-done--booked'}` },
    h('p', { class: 'bw-done-icon', 'aria-hidden': 'true' }, requested ? '✉' : '✓'),
    stepHeading(w, requested ? t.doneRequested : t.doneBooked),
    summary(w),
    s.publicData?.pool &&
      c.resource_name &&
      h('p', { class: 'bw-assigned' }, fill(t.assignedTo, { name: c.resource_name })),
    rows.length > 0 &&
      h(
        'div',
        { class: 'bw-answers' },
        h('p', { class: 'bw-summary-label' }, t.yourAnswers),
        h(
          'dl',
          null,
          rows.map(([label, value]) => [h('dt', null, label), h('dd', null, value === true ? t.yes : value)]),
        ),
      ),
    h('p', null, fill(requested ? t.doneRequestedText : t.doneBookedText, { email: s.form.email.trim() })),
    cancel && h('p', null, h('a', { href: cancel, target: '_blank', rel: 'noopener' }, t.cancelLink)),
    h('div', { class: 'bw-actions' }, button('book-another', t.bookAnother, w.actions.bookAnother, false)),
  );
}
