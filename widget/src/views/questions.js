/**
 * The product's booking questions in the details form: one
 * control per type, required marks, errors tied to their fields.
 */
import { h } from '../dom.js';
import { fieldOf, questionsOf } from '../questions.js';

/** @typedef {import('../mount.js').Widget} Widget */
/** @typedef {import('../questions.js').Question} Question */

const INPUT = {
  text: { type: 'text', autocomplete: 'off' },
  email: { type: 'email', autocomplete: 'off', spellcheck: 'false' },
  phone: { type: 'tel', autocomplete: 'off', inputmode: 'tel' },
};

/** @param {Widget} w @param {Question} q @param {Record<string, any>} attrs */
function control(w, q, attrs) {
  const v = w.s.answers[q.key];
  const set = (/** @type {string | boolean} */ value) => w.actions.answer(q.key, value);
  const onText = (/** @type {Event} */ e) => set(/** @type {HTMLInputElement} */ (e.target).value);
  if (q.type === 'checkbox') {
    return h('input', {
      ...attrs,
      type: 'checkbox',
      class: 'bw-check',
      checked: v === true,
      onchange: (/** @type {Event} */ e) => set(/** @type {HTMLInputElement} */ (e.target).checked),
    });
  }
  if (q.type === 'select') {
    const options = Array.isArray(q.options) ? q.options : [];
    return h(
      'select',
      { ...attrs, class: 'bw-input', onchange: onText },
      h('option', { value: '', selected: !v }, w.t.choose),
      options.map((o) => h('option', { value: o.value, selected: v === o.value }, o.label)),
    );
  }
  if (q.type === 'textarea')
    return h('textarea', {
      ...attrs,
      class: 'bw-input',
      rows: 3,
      maxlength: q.maxLength || 2000,
      value: v || '',
      oninput: onText,
    });
  const kind = INPUT[/** @type {'text' | 'email' | 'phone'} */ (q.type)] || INPUT.text;
  return h('input', {
    ...attrs,
    ...kind,
    class: 'bw-input',
    maxlength: q.maxLength || 500,
    value: v || '',
    oninput: onText,
  });
}

/** One question: label (after the box for a checkbox), control and its error. @param {Widget} w @param {Question} q */
function question(w, q) {
  const name = fieldOf(q);
  const id = `${w.id}-${name}`;
  const errId = `${id}-err`;
  const err = w.s.fieldErrors[name];
  const attrs = {
    id,
    name,
    'data-key': `field-${name}`,
    required: !!q.required,
    'aria-required': q.required ? 'true' : null,
    'aria-invalid': err ? 'true' : null,
    'aria-describedby': err ? errId : null,
  };
  const mark = q.required
    ? h('span', { class: 'bw-req', 'aria-hidden': 'true' }, ' *')
    : h('span', { class: 'bw-opt' }, ` (${w.t.optional})`);
  const box = q.type === 'checkbox';
  return h(
    'div',
    { class: `bw-field bw-field--q${box ? ' bw-field--check' : ''}` },
    box ? null : h('label', { for: id }, q.label, mark),
    box
      ? h('div', { class: 'bw-check-row' }, control(w, q, attrs), h('label', { for: id }, q.label, mark))
      : control(w, q, attrs),
    h('p', { class: 'bw-field-error', id: errId, hidden: !err }, err || ''),
  );
}

/** The questions of the product being booked, in their order; nothing when it asks none. @param {Widget} w */
export function viewQuestions(w) {
  const qs = questionsOf(w.s);
  return qs.length
    ? h(
        'div',
        { class: 'bw-questions' },
        qs.map((q) => question(w, q)),
      )
    : null;
}
