/** Step "your details": the held time with its countdown, and the form. */
import { h } from '../dom.js';
import { fill } from '../i18n.js';
import { mmss } from '../format.js';
import { bookingProcess, MESSAGE_MAX } from '../state.js';
import { button, stepHeading, stepInfo, summary } from './parts.js';
import { viewQuestions } from './questions.js';

/** @typedef {import('../mount.js').Widget} Widget */
/**
 * @typedef {{ required?: boolean, type?: string, autocomplete?: string, inputmode?: string, hint?: string | null,
 * maxlength?: number }} FieldOptions
 */

/** Label of the submit button: booking or request. @param {Widget} w */
export const submitLabel = (w) => (bookingProcess(w.s) === 'REQUESTED' ? w.t.submitRequest : w.t.submitBook);

/** "Noch 995 Zeichen" @param {Widget} w */
export const charsLeftText = (w) => fill(w.t.charsLeft, { n: MESSAGE_MAX - w.s.form.message.length });

/**
 * One labelled field; hint, character count and error are tied to it with aria-describedby.
 * @param {Widget} w @param {'firstname' | 'lastname' | 'email' | 'mobile' | 'message'} name @param {FieldOptions} o
 */
function field(w, name, o) {
  const { s, t } = w;
  const inputId = `${w.id}-${name}`;
  const errId = `${inputId}-err`;
  const hintId = `${inputId}-hint`;
  const countId = `${inputId}-count`;
  const err = s.fieldErrors[name];
  const describedBy = [o.hint ? hintId : null, name === 'message' ? countId : null, err ? errId : null]
    .filter(Boolean)
    .join(' ');
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
    oninput: (/** @type {Event} */ e) => w.actions.input(name, /** @type {HTMLInputElement} */ (e.target).value),
  };
  const control =
    name === 'message'
      ? h('textarea', { ...attrs, rows: 4, maxlength: MESSAGE_MAX })
      : h('input', {
          ...attrs,
          type: o.type || 'text',
          maxlength: o.maxlength || 200,
          spellcheck: o.type === 'email' ? 'false' : null,
        });
  return h(
    'div',
    { class: `bw-field bw-field--${name}` },
    h(
      'label',
      { for: inputId },
      t[name],
      o.required
        ? h('span', { class: 'bw-req', 'aria-hidden': 'true' }, ' *')
        : h('span', { class: 'bw-opt' }, ` (${t.optional})`),
    ),
    o.hint && h('p', { class: 'bw-hint', id: hintId }, o.hint),
    control,
    name === 'message' && h('p', { class: 'bw-count', id: countId }, charsLeftText(w)),
    h('p', { class: 'bw-field-error', id: errId, hidden: !err }, err || ''),
  );
}

/** The countdown of the hold, or what to do once it has expired. @param {Widget} w */
function holdNotice(w) {
  const { s, t, actions } = w;
  if (s.expired) {
    return h(
      'div',
      { class: 'bw-expired', role: 'alert' },
      h('p', null, t.holdExpired),
      h(
        'div',
        { class: 'bw-actions' },
        button('reserve-again', t.reserveAgain, () => s.slot && actions.pickSlot(s.slot)),
        button('pick-again', t.pickAgain, () => actions.loadSlots(), false),
      ),
    );
  }
  const [before, after] = t.holdLeft.split('{time}');
  const left = s.hold ? s.hold.expiresAt - Date.now() : 0;
  // a timer that is not read out every second; the status region says "one minute left"
  return h(
    'p',
    { class: 'bw-hold' },
    before,
    h('span', { class: 'bw-hold-time', role: 'timer', 'aria-live': 'off' }, mmss(left)),
    after || '',
  );
}

/** @param {Widget} w */
export function viewDetails(w) {
  const { s, t, actions } = w;
  const resource = s.publicData?.resource || {};
  const blocked = s.expired || s.busy;
  return h(
    'section',
    { class: 'bw-step' },
    stepInfo(w),
    stepHeading(w, t.stepDetails),
    h(
      'div',
      { class: 'bw-chosen-slot' },
      summary(w),
      h(
        'button',
        { type: 'button', class: 'bw-link', 'data-key': 'change-time', onclick: () => actions.loadSlots() },
        t.changeTime,
      ),
    ),
    holdNotice(w),
    h(
      'form',
      {
        class: 'bw-form',
        novalidate: true,
        onsubmit: (/** @type {Event} */ e) => {
          e.preventDefault();
          if (!s.expired) actions.submit();
        },
      },
      h('p', { class: 'bw-hint' }, t.requiredNote),
      h(
        'div',
        { class: 'bw-row' },
        field(w, 'firstname', { required: true, autocomplete: 'given-name' }),
        field(w, 'lastname', { required: true, autocomplete: 'family-name' }),
      ),
      field(w, 'email', { required: true, type: 'email', autocomplete: 'email', maxlength: 254 }),
      field(w, 'mobile', { type: 'tel', autocomplete: 'tel', inputmode: 'tel', hint: t.mobileHint, maxlength: 32 }),
      viewQuestions(w),
      field(w, 'message', { hint: resource.msgHelpText || null }),
      h(
        'div',
        { class: 'bw-actions' },
        h(
          'button',
          {
            type: 'submit',
            class: 'bw-btn bw-submit',
            'data-key': 'submit',
            'aria-disabled': blocked ? 'true' : 'false',
          },
          s.busy ? t.sending : submitLabel(w),
        ),
      ),
    ),
  );
}
