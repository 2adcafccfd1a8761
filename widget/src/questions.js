/**
 * The product's booking questions (A4's `questions`, labels already in the widget's language) and
 * the consumer's answers: pure, like state.js. Form field names of answers are `q_<key>`.
 */
import { fill } from './i18n.js';
import { PHONE_SHAPE, productUuidOf } from './state.js';

/**
 * @typedef {{ key: string, type: string, required: boolean, label: string, options?: { value: string, label: string
 * }[], maxLength?: number }} Question
 */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('./i18n.js').Dict} Dict */

/** The field name of a question's answer. @param {Question} q */
export const fieldOf = (q) => `q_${q.key}`;

/**
 * The questions of the product being booked (the reserved slot's, else the chosen one).
 * @param {State} s
 * @returns {Question[]}
 */
export function questionsOf(s) {
  const uuid = s.slot ? productUuidOf(s, s.slot) : s.product?.uuid;
  const p = s.products.find((x) => x && x.uuid === uuid) || s.product;
  return p && Array.isArray(p.questions)
    ? p.questions.filter((/** @type {any} */ q) => q && typeof q.key === 'string')
    : [];
}

/** Whether an answer counts as given. @param {Question} q @param {any} v */
const given = (q, v) => (q.type === 'checkbox' ? v === true : typeof v === 'string' && v.trim() !== '');

/**
 * The form's own checks of the answers, before A3 checks the same; errors by field name.
 * @param {Question[]} qs @param {Record<string, string | boolean>} answers @param {Dict} t
 */
export function validateAnswers(qs, answers, t) {
  /** @type {Record<string, string>} */
  const errs = {};
  for (const q of qs) {
    const v = answers[q.key];
    if (!given(q, v)) {
      if (q.required)
        errs[fieldOf(q)] = q.type === 'checkbox' ? t.errCheckbox : q.type === 'select' ? t.errChoose : t.errRequired;
      continue;
    }
    const text = String(v).trim();
    if (q.maxLength && [...text].length > q.maxLength) errs[fieldOf(q)] = fill(t.errTooLong, { n: q.maxLength });
    else if (q.type === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) errs[fieldOf(q)] = t.errEmail;
    else if (q.type === 'phone' && !PHONE_SHAPE.test(text)) errs[fieldOf(q)] = t.errPhone;
  }
  return errs;
}

/**
 * A3's `answers`: the given ones, by key (a checkbox only when ticked); undefined when none.
 * @param {Question[]} qs @param {Record<string, string | boolean>} answers
 */
export function answersBody(qs, answers) {
  /** @type {Record<string, string | boolean>} */
  const out = {};
  for (const q of qs) {
    const v = answers[q.key];
    if (given(q, v)) out[q.key] = q.type === 'checkbox' ? true : String(v).trim();
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * A3's 400 items about answers ("body.answers.plate must have at most 12 characters") as texts
 * per field; a key the widget does not show is left out (the caller shows a general message).
 * @param {{ message?: string }[]} errors @param {Question[]} qs @param {Dict} t
 */
export function answerErrorsOf(errors, qs, t) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const msg of errors.flatMap((e) => String(e.message || '').split(/;\s*/))) {
    const m = /\bbody\.answers\.([a-z][a-z0-9_]*)\s+(.*)$/.exec(msg);
    const q = m && qs.find((x) => x.key === m[1]);
    if (!m || !q || out[fieldOf(q)]) continue;
    out[fieldOf(q)] = /required/.test(m[2])
      ? q.type === 'checkbox'
        ? t.errCheckbox
        : t.errRequired
      : q.type === 'email'
        ? t.errEmail
        : q.type === 'phone'
          ? t.errPhone
          : t.errInvalid;
  }
  return out;
}

/**
 * The answers as the consumer gave them, for the summary of the done step: [label, text] pairs.
 * @param {Question[]} qs @param {Record<string, string | boolean>} answers
 */
export function answerRows(qs, answers) {
  return qs
    .filter((q) => given(q, answers[q.key]))
    .map((q) => {
      const v = answers[q.key];
      const option = q.options?.find((o) => o.value === v);
      return /** @type {[string, string | true]} */ ([
        q.label,
        v === true ? true : option ? option.label : String(v).trim(),
      ]);
    });
}
